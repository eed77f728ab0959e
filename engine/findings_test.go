package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

var allModes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"}

// safetyAsk is what a safety ASK of the tool check becomes in each mode.
var safetyAsk = map[string][2]string{
	"default":           {permission.Ask, permission.StepToolCheck},
	"acceptEdits":       {permission.Ask, permission.StepToolCheck},
	"plan":              {permission.Deny, permission.StepModeFallback},
	"bypassPermissions": {permission.Allow, permission.StepModeFallback},
	"dontAsk":           {permission.Deny, permission.StepToolCheck},
}

func newTestEngine(t *testing.T, s settings.Settings) *engine.Engine {
	t.Helper()
	if s.Home == "" {
		s.Home = "/home/u"
	}
	if s.Cwd == "" {
		s.Cwd = "/w"
	}
	eng, err := newEngine(context.Background(), engine.WithSettings(s))
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

func decideBash(eng *engine.Engine, cmd, cwd, mode string) permission.Decision {
	return eng.Decide(context.Background(), map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
		"cwd": cwd, "permission_mode": mode,
	})
}

// One decision per call: a command with any number of findings of every
// kind at once (dangerous writes, credential reads, critical removals,
// dangerous patterns, recursive credential reads, environment dumps) gets
// exactly one decision in every mode, never a policy conflict (DENY with
// step "error"), and with at least one finding it is the safety ASK.
func TestAnyNumberOfFindingsOneDecision(t *testing.T) {
	t.Parallel()
	eng := newTestEngine(t, settings.Settings{})
	kinds := []func(i int) string{
		func(i int) string { return fmt.Sprintf("echo x > /w/.git/f%d", i) },
		func(i int) string { return fmt.Sprintf("echo x >> ~/.config/git/c%d", i) },
		func(i int) string { return fmt.Sprintf("cat ~/.ssh/k%d", i) },
		func(i int) string { return fmt.Sprintf("head -n1 /w/d%d/.env", i) },
		func(i int) string { return fmt.Sprintf("rm -rf /top%d", i) },
		func(i int) string { return fmt.Sprintf("dd if=/dev/zero of=/dev/sd%c", 'a'+i) },
		func(i int) string { return fmt.Sprintf("grep -r k%d ~", i) },
		func(i int) string { return fmt.Sprintf("cat /proc/%d/environ", i+1) },
		func(i int) string { return fmt.Sprintf("printenv; env -u X%d", i) },
	}
	for n := 0; n <= 5; n++ {
		var parts []string
		for i := range n {
			for _, k := range kinds {
				parts = append(parts, k(i))
			}
		}
		cmd := strings.Join(parts, "; ")
		if n == 0 {
			cmd = "git status"
		}
		for _, mode := range allModes {
			d := decideBash(eng, cmd, "/w", mode)
			if d.Step == permission.StepError {
				t.Fatalf("%d findings of every kind, %s: step error: %s", n, mode, d.Message)
			}
			if n == 0 {
				if d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
					t.Errorf("no finding, %s: %s/%s (%s)", mode, d.Behavior, d.Step, d.Message)
				}
				continue
			}
			if want := safetyAsk[mode]; d.Behavior != want[0] || d.Step != want[1] {
				t.Errorf("%d findings of every kind, %s: %s/%s (%s), want %v", n, mode, d.Behavior, d.Step, d.Message, want)
			}
		}
	}
	// Each kind alone, many times over: the message names every hit, sorted.
	for _, k := range kinds {
		var parts []string
		for i := range 4 {
			parts = append(parts, k(i))
		}
		cmd := strings.Join(parts, "; ")
		for _, mode := range allModes {
			d := decideBash(eng, cmd, "/w", mode)
			if want := safetyAsk[mode]; d.Behavior != want[0] || d.Step != want[1] {
				t.Errorf("%q, %s: %s/%s (%s), want %v", cmd, mode, d.Behavior, d.Step, d.Message, want)
			}
		}
	}
}

// The file tools too: a Glob whose path and pattern both reach a
// credential directory has two findings and one decision.
func TestFileToolFindingsOneDecision(t *testing.T) {
	t.Parallel()
	eng := newTestEngine(t, settings.Settings{})
	calls := []map[string]any{
		{"tool_name": "Glob", "tool_input": map[string]any{"pattern": "/home/u/.ssh/*", "path": "/home/u/.aws"}},
		{"tool_name": "Glob", "tool_input": map[string]any{"pattern": "~/.gnupg/**", "path": "~/.kube"}},
		{"tool_name": "Grep", "tool_input": map[string]any{"pattern": "k", "path": "/home/u", "glob": "*"}},
	}
	for _, c := range calls {
		for _, mode := range allModes {
			in := map[string]any{"cwd": "/w", "permission_mode": mode}
			for k, v := range c {
				in[k] = v
			}
			d := eng.Decide(context.Background(), in)
			if want := safetyAsk[mode]; d.Behavior != want[0] || d.Step != want[1] {
				t.Errorf("%v, %s: %s/%s (%s), want %v", c["tool_input"], mode, d.Behavior, d.Step, d.Message, want)
			}
		}
	}
}
