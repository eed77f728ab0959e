package settings_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/settings"
)

// TestSettingsErrorsNameFileLineKey: a settings file that does not parse
// is reported at the line (and column) of the mistake, in each format; a
// value that cannot be read is reported with its line and key, and the
// rest of the file is kept.
func TestSettingsErrorsNameFileLineKey(t *testing.T) {
	syntax := []struct {
		name, file, text string
		want             []string // parts of the error, after the file name
	}{
		{"YAML key indented wrongly", "s.yaml", "permissions:\n  allow:\n    - \"Bash(ls:*)\"\n  deny:\n    - \"Bash(rm:*)\"\n   ask: [\"x\"]\n", []string{":6:4: not valid yaml: did not find expected key (found `ask`)"}},
		{"YAML list never closed", "s.yaml", "permissions:\n  allow: [\"Bash(x)\"\n  deny: []\n", []string{":3:3: not valid yaml: did not find expected ',' or ']' (found `deny`)"}},
		{"YAML tab indentation", "s.yml", "permissions:\n\tallow: []\n", []string{":2:1: not valid yaml: found character that cannot start any token (found a tab (YAML indents with spaces))"}},
		{"YAML second colon", "s.yaml", "permissions:\n  allow: Bash(x): y\n", []string{":2:17: not valid yaml: mapping values are not allowed in this context (found `:`)"}},
		{"YAML list with a missing comma", "s.yaml", "permissions:\n  deny: [\"a\" \"b\"]\n", []string{":2:14: not valid yaml: did not find expected ',' or ']' (found `\"`)"}},
		{"YAML columns count characters", "s.yaml", "permissions:\n  deny: [\"é\" \"b\"]\n", []string{":2:14: not valid yaml: did not find expected ',' or ']'"}},
		{"YAML missing colon", "s.yaml", "permissions:\n  allow: []\n  deny [\"x\"]\n", []string{":3:3: not valid yaml: could not find expected ':' (found `deny`)"}},
		{"YAML tab after spaces", "s.yaml", "permissions:\n  allow: []\n  \tdeny: []\n", []string{":3:3: not valid yaml: found character that cannot start any token (found a tab (YAML indents with spaces))"}},
		{"YAML duplicate key, in another case", "s.yaml", "Permissions: {}\npermissions:\n  deny: []\n", []string{":2:1: not valid yaml: key \"permissions\" given twice (first at 1:1)"}},
		{"YAML word of the file stays hidden", "s.yaml", "permissions:\n  allow: [\"Bash(x)\"\n  hunter2: []\n", []string{":3:3: not valid yaml: did not find expected ',' or ']' (found a word that is no settings key)"}},
		{"YAML mistake after many lines", "s.yaml", "permissions:\n  deny:\n" + strings.Repeat("    - \"Bash(x)\"\n", 300) + "  ask: [\"x\"\n  allow: []\n", []string{":304:3: not valid yaml: did not find expected ',' or ']' (found `allow`)"}},
		{"YAML tab after many lines", "s.yaml", "permissions:\n  deny:\n" + strings.Repeat("    - \"Bash(x)\"\n", 300) + "\t- x\n", []string{":303:1: not valid yaml: found character that cannot start any token (found a tab"}},
		{"YAML quote never closed", "s.yaml", "permissions:\n  allow: ['Bash(x)\n", []string{":2:11: not valid yaml: found unexpected end of stream (found `'` never closed)"}},
		{"YAML duplicate key", "s.yaml", "permissions:\n  allow: []\n  allow: []\n", []string{":3:3: not valid yaml: key \"allow\" given twice (first at 2:3)"}},
		{"JSON duplicate key", "s.json", `{"permissions": {"deny": ["Bash(rm:*)"]},
 "permissions": {"allow": ["Bash"]}}`, []string{`:2:2: not valid json: key "permissions" given twice (first at 1:2)`}},
		{"JSON trailing comma in an object", "s.json", "{\"permissions\": {},}", []string{":1:20: not valid json: invalid character '}' looking for beginning of object key string"}},
		{"JSON trailing comma", "s.json", "{\"permissions\": {\n  \"allow\": [\"Bash(ls:*)\",\n]}}", []string{":3:1: not valid json: invalid character ']' looking for beginning of value"}},
		{"JSON missing comma", "s.json", "{\"permissions\": {\"allow\": [\"Bash(ls:*)\" \"Read\"]}}", []string{`:1:41: not valid json: invalid character '"' after array element`}},
		{"JSON bare word", "s.json", "{\"permissions\": {\"deny\": [Bash(x)]}}", []string{":1:27: not valid json: invalid character 'B' looking for beginning of value"}},
		{"YAML text of the file stays hidden", "s.yaml", "hunter2secret\n", []string{":1:1: not valid yaml: the settings must be one map of keys, not a string"}},
		{"JSON missing colon", "s.json", "{\"permissions\" {}}", []string{":1:16: not valid json: invalid character '{' after object key"}},
		{"JSON cut short", "s.json", "{\"permissions\": {\n  \"allow\": [\"Bash(ls:*)\"", []string{":2:", "not valid json:"}},
		{"JSON not an object", "s.json", "[\"Bash(ls:*)\"]\n", []string{":1:1: not valid json: the settings must be one map of keys, not a list"}},
		{"TOML bad value", "s.toml", "[permissions]\nallow = [\"Bash(x)\"\ndeny = 3\n", []string{":3:", "not valid toml:"}},
	}
	for _, c := range syntax {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), c.file)
			if err := os.WriteFile(file, []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := settings.LoadSettingsFile(file, "")
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "settings "+file) {
				t.Errorf("%q does not start with the file", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not say %q", msg, w)
				}
			}
			if strings.Contains(msg, "hunter2") {
				t.Errorf("%q: the file's text leaks into the message", msg)
			}
			if strings.Contains(msg, "While parsing config") {
				t.Errorf("%q: viper's wording", msg)
			}
		})
	}

	values := []struct {
		name, file, text string
		want             []string // each problem, after the file name
		rules            int      // rules kept
	}{
		{"YAML rules and mode", "s.yaml", "permissions:\n  allow:\n    - \"Bash(ls:*)\"\n    - \"Bash(oops\"\n  deny:\n    - 7\n  defaultMode: yolo\n",
			[]string{`:4:7: permissions.allow: rule "Bash(oops"`, ":6:7: permissions.deny: rule 7", `:7:16: permissions.defaultMode: unknown mode "yolo"`}, 1},
		{"JSON rules", "s.json", "{\n  \"permissions\": {\n    \"deny\": [\n      \"Bash(rm:*)\",\n      \"Bash(\"\n    ]\n  }\n}\n",
			[]string{`:5:7: permissions.deny: rule "Bash("`}, 1},
		{"AgentScope rules keyed by tool", "s.yaml", "allow_rules:\n  Bash:\n    - {tool_name: Bash, rule_content: 'ls:*'}\n    - 12\n",
			[]string{":4:7: allow_rules.Bash:"}, 1},
		{"a lock outside managed settings", "s.yaml", "permissions:\n  allow: [\"Read\"]\ndisable_bypass_mode: true\n",
			[]string{":3:22: disable_bypass_mode: honoured in managed settings only"}, 1},
		{"TOML: file and key", "s.toml", "[permissions]\nallow = [\"Bash(x\"]\n", []string{`: permissions.allow: rule "Bash(x"`}, 0},
	}
	for _, c := range values {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), c.file)
			if err := os.WriteFile(file, []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			s, problems, err := settings.LoadSettingsFile(file, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Rules) != c.rules {
				t.Errorf("%d rules kept, want %d", len(s.Rules), c.rules)
			}
			all := fmt.Sprint(problems)
			for _, w := range c.want {
				if !strings.Contains(all, file+w) {
					t.Errorf("problems %v do not say %q", problems, file+w)
				}
			}
		})
	}
}

// TestFileProblemSaysWhatHappens: a broken file in the layers is reported
// with its line and what permopa does with its rules.
func TestFileProblemSaysWhatHappens(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cli.yaml")
	if err := os.WriteFile(file, []byte("permissions:\n  deny: [\"Bash(rm:*)\"]\n   ask: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, problems := settings.LoadLayers(settings.LayerOptions{CommandLine: []string{file}, Home: dir, Cwd: dir, ManagedDir: filepath.Join(dir, "managed")})
	all := fmt.Sprint(problems)
	if !strings.Contains(all, file+":3:4: not valid yaml: did not find expected key (found `ask`) (its rules are left out)") {
		t.Errorf("problems: %v", problems)
	}
}
