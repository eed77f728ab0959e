package settings_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// TestEveryProblemIsPlaced: every problem of a settings file, whoever
// finds it (the load: rules and values left out; the lint: keys and rules
// that may not mean what they look like), is one settings.Problem that
// names the file and the line, and its message starts with them.
func TestEveryProblemIsPlaced(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.yaml")
	text := `permissions:
  allow: ["Bash(npm run:*", "Bash(ls)"]
  deny: ["Bash(rm:*)", "Reed(src/**)"]
  ask: ["Bash(git push:*"]
  denny: ["Bash(curl:*)"]
  defaultMode: sometimes
disable_bypass_mode: true
network_reads: sometimes
environment_is_secret: perhaps
`
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	_, problems, err := settings.LoadSettingsFile(file, settings.SourceUser)
	if err != nil {
		t.Fatal(err)
	}
	lint, err := settings.LintFile(file)
	if err != nil {
		t.Fatal(err)
	}
	problems = append(problems, settings.LintProblems(lint)...)
	for _, r := range settings.LintRules(mustRules(t, file)) {
		problems = append(problems, &r)
	}
	want := map[string][2]int{ // kind and key or rule → line and column
		settings.CheckInvalidRule + " permissions.allow":        {2, 11},
		settings.CheckInvalidRule + " permissions.ask":          {4, 9},
		settings.CheckInvalidValue + " permissions.defaultMode": {6, 16},
		settings.CheckInvalidValue + " disable_bypass_mode":     {7, 22},
		settings.CheckInvalidValue + " network_reads":           {8, 16},
		settings.CheckInvalidValue + " environment_is_secret":   {9, 24},
		settings.CheckUnknownKey + " permissions.denny":         {5, 3},
		settings.CheckUnknownTool + " Reed(src/**)":             {3, 25},
	}
	seen := map[string]bool{}
	for _, e := range problems {
		var p *settings.Problem
		if !errors.As(e, &p) {
			t.Errorf("%v (%T) is no settings.Problem", e, e)
			continue
		}
		what := p.Kind + " " + p.Key
		if p.Rule != "" {
			what = p.Kind + " " + p.Rule
		}
		at, ok := want[what]
		if !ok {
			continue
		}
		seen[what] = true
		if p.File != file || p.Line != at[0] || p.Column != at[1] {
			t.Errorf("%s: at %s:%d:%d, want %s:%d:%d", what, p.File, p.Line, p.Column, file, at[0], at[1])
		}
		if pos := fmt.Sprintf("%s:%d:%d: ", file, at[0], at[1]); !strings.HasPrefix(e.Error(), pos) {
			t.Errorf("%s: %q does not start with %q", what, e.Error(), pos)
		}
		if p.Level == "" || strings.Contains(e.Error(), p.Level+":") {
			t.Errorf("%s: level %q; the message %q leaves the level to whoever prints it", what, p.Level, e.Error())
		}
	}
	for what := range want {
		if !seen[what] {
			t.Errorf("no problem %s among %v", what, problems)
		}
	}
	// The deny and ask rules left out (a rule that does not read, a key
	// that hides them) make deciding unsafe; the allow rule does not.
	unsafe := map[string]bool{}
	for _, e := range settings.UnsafeProblems(problems) {
		var p *settings.Problem
		errors.As(e, &p)
		unsafe[p.Key] = true
	}
	if !unsafe["permissions.ask"] || !unsafe["permissions.denny"] || unsafe["permissions.allow"] || len(unsafe) != 2 {
		t.Errorf("unsafe problems: %v", unsafe)
	}
}

func mustRules(t *testing.T, file string) []permission.Rule {
	t.Helper()
	s, _, err := settings.LoadSettingsFile(file, settings.SourceUser)
	if err != nil {
		t.Fatal(err)
	}
	return s.Rules
}
