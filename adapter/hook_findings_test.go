package adapter_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter"
)

// TestCodexPatchNamesEveryFinding: a patch is one host call made of one
// call per file. The answer names the finding of every file, so that the
// human sees them all at once; it offers rules only when accepting them
// lets the whole patch through.
func TestCodexPatchNamesEveryFinding(t *testing.T) {
	t.Parallel()
	opts := adapter.HookOptions{Engine: settingsEngine(t)}
	patch := func(files ...string) string {
		p := "*** Begin Patch\n"
		for _, f := range files {
			p += "*** Update File: " + f + "\n@@\n-a\n+b\n"
		}
		payload, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "cwd": "/w/app", "permission_mode": "default",
			"tool_name": "apply_patch", "tool_input": map[string]any{"command": p + "*** End Patch\n"}})
		return string(payload)
	}
	cases := []struct {
		name     string
		files    []string
		say      []string // every finding, named
		approve  bool     // the answer offers `permopa rules add`
		rulesFor []string // ... with these rules
	}{
		{"a source file and a git hook", []string{"src/a.go", ".git/hooks/pre-commit"},
			[]string{"2 findings", "/w/app/src/a.go", "/w/app/.git/hooks/pre-commit", "no rule can approve"}, false, nil},
		{"a git hook and a shell profile", []string{".git/hooks/pre-commit", "../../home/u/.bashrc"},
			[]string{"2 findings", ".git/hooks/pre-commit", "/home/u/.bashrc"}, false, nil},
		{"two source directories", []string{"src/a.go", "lib/b.go"},
			[]string{"2 findings", "/w/app/src/a.go", "/w/app/lib/b.go"}, true, []string{"Edit(//w/app/src/**)", "Edit(//w/app/lib/**)"}},
		{"one file", []string{"src/a.go"}, []string{"Edit needs approval"}, true, []string{"Edit(//w/app/src/**)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := runHook(t, "codex", patch(c.files...), opts)
			if code != 2 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, s := range c.say {
				if !strings.Contains(errOut, s) {
					t.Errorf("the answer does not say %q:\n%s", s, errOut)
				}
			}
			if got := strings.Contains(errOut, "permopa rules add"); got != c.approve {
				t.Errorf("offers rules: %v, want %v:\n%s", got, c.approve, errOut)
			}
			for _, r := range c.rulesFor {
				if !strings.Contains(errOut, r) {
					t.Errorf("the approval does not add %s:\n%s", r, errOut)
				}
			}
		})
	}
}
