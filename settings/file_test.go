package settings_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/settings"
)

// TestFileValuesOfTheWrongType: a value of the wrong type is reported at
// its line and column, and read the way that only tightens: a switch that
// only tightens reads as true, a name that is a map is left out, the rest
// of the file is kept. A key with dots stands for its path, as before.
func TestFileValuesOfTheWrongType(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, text string
		want       []string // problems, after the file name
		check      func(settings.Settings) error
	}{
		{"flag.yaml", "bypass_honours_safety: \"yes\"\ncase_insensitive_paths: [true]\npermissions:\n  allow: [\"Bash(ls)\"]\n",
			[]string{":1:24: bypass_honours_safety: want true or false, got a string; read as true (it only tightens)", ":2:25: case_insensitive_paths: want true or false, got a list; read as true"},
			func(s settings.Settings) error {
				if !s.BypassHonoursSafety || !s.CaseInsensitivePaths || len(s.Rules) != 1 {
					return fmt.Errorf("%+v", s)
				}
				return nil
			}},
		{"flag-ok.json", "{\"bypass_honours_safety\": \"false\", \"case_insensitive_paths\": 1}", nil,
			func(s settings.Settings) error {
				if s.BypassHonoursSafety || !s.CaseInsensitivePaths {
					return fmt.Errorf("%+v", s)
				}
				return nil
			}},
		{"dirs.yaml", "permissions:\n  additionalDirectories:\n    - /ok\n    - {path: /x}\n",
			[]string{":4:7: permissions.additionalDirectories.1: want a name, got a map; left out"},
			func(s settings.Settings) error {
				if len(s.WorkingDirectories) != 1 || s.WorkingDirectories[0] != "/ok" {
					return fmt.Errorf("%v", s.WorkingDirectories)
				}
				return nil
			}},
		{"mode.json", "{\n  \"permissions\": {\"defaultMode\": {\"x\": 1}}\n}", []string{":2:34: permissions.defaultMode: want a mode name, got a map"}, nil},
		{"objects.yaml", "permissions:\n  deny: [{Tool_Name: Bash, Rule_Content: 'rm:*'}]\nmode: plan\n", nil,
			func(s settings.Settings) error {
				if len(s.Rules) != 1 || s.Rules[0].String() != "Bash(rm:*)" || s.DefaultMode != "plan" {
					return fmt.Errorf("%v %q", s.Rules, s.DefaultMode)
				}
				return nil
			}},
		{"mode.yaml", "permissions:\n  defaultMode: \"\"\nmode: sideways\n", []string{":3:7: mode: unknown mode \"sideways\""}, nil},
		{"utf8.yaml", "permissions:\n  allow: [\"é\", \"Bash(oops\"]\n", []string{`:2:16: permissions.allow: rule "Bash(oops"`}, nil},
		{"utf8.json", `{"permissions": {"allow": ["é", "Bash(oops"]}}`, []string{`:1:33: permissions.allow: rule "Bash(oops"`}, nil},
		{"dots.yaml", "permissions.deny: [\"Bash(rm:*)\"]\nPERMISSIONS:\n  Ask: [\"Bash(git push:*)\"]\n", nil,
			func(s settings.Settings) error {
				if len(s.Rules) != 2 || s.Rules[0].Behavior != "DENY" || s.Rules[1].Behavior != "ASK" {
					return fmt.Errorf("%v", s.Rules)
				}
				return nil
			}},
	} {
		file := filepath.Join(dir, c.name)
		if err := os.WriteFile(file, []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		s, problems, err := settings.LoadSettingsFile(file, settings.SourceUser)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		all := fmt.Sprint(problems)
		for _, w := range c.want {
			if !strings.Contains(all, file+w) {
				t.Errorf("%s: problems %s lack %q", c.name, all, w)
			}
		}
		if len(c.want) == 0 && len(problems) > 0 {
			t.Errorf("%s: problems %s", c.name, all)
		}
		if c.check != nil {
			if err := c.check(s); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}
	}
}

// A PERMOPA_* variable that cannot be read is named by the variable.
func TestEnvironmentProblemsNameTheVariable(t *testing.T) {
	dir := t.TempDir()
	_, problems := settings.LoadLayers(settings.LayerOptions{
		Environ:    []string{"PERMOPA_DENY=Bash(rm:*),Bash(oops", "PERMOPA_DEFAULT_MODE=sideways", "PERMOPA_BYPASS_HONOURS_SAFETY=maybe"},
		ManagedDir: filepath.Join(dir, "managed"), ProjectDir: dir, UserDir: filepath.Join(dir, "user"), Home: dir, Cwd: dir,
	})
	all := fmt.Sprint(problems)
	for _, w := range []string{`PERMOPA_DENY: permissions.deny: rule "Bash(oops"`, `PERMOPA_DEFAULT_MODE: permissions.defaultMode: unknown mode "sideways"`, "PERMOPA_BYPASS_HONOURS_SAFETY: bypass_honours_safety: want true or false, got a string; read as true"} {
		if !strings.Contains(all, w) {
			t.Errorf("problems %s lack %q", all, w)
		}
	}
}
