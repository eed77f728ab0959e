package engine_test

import (
	"context"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// A call decided before decision point 5 (read-only, a deny or ask rule)
// never looks for its allow rule; one that reaches point 5 does, and is
// allowed by it (issue 28: evaluate only the decision points a call
// reaches; docs/decision.md).
func TestAllowRulesLookedUpOnlyAtPointFive(t *testing.T) {
	ctx := context.Background()
	s := settings.Settings{Home: "/home/u", Cwd: "/w"}
	for spec, b := range map[string]string{"Bash(git log:*)": "allow", "Bash(npm test:*)": "allow", "Bash(rm:*)": "deny", "Bash(curl:*)": "ask"} {
		r, err := settings.ParseRule(spec, b)
		if err != nil {
			t.Fatal(err)
		}
		r.Source = settings.SourceUser
		s.Rules = append(s.Rules, r)
	}
	eng, err := engine.New(ctx, engine.WithSettings(s))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		command, step string
		allowLookup   bool
	}{
		{"git log -n 5", permission.StepReadOnly, false},
		{"rm -rf build", permission.StepDenyRule, false},
		{"curl https://example.com", permission.StepAskRule, false},
		{"npm test", permission.StepAllowRule, true},
		{"make", permission.StepModeFallback, true},
	} {
		in := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": c.command}, "permission_mode": "default", "cwd": "/w"}
		d, counts := eng.DecideCounted(ctx, in)
		if d.Step != c.step {
			t.Errorf("%s: step %s, want %s (%+v)", c.command, d.Step, c.step, d)
		}
		if got := counts.Calls["permopa.bash.covered"] > 0; got != c.allowLookup {
			t.Errorf("%s: allow rules looked up: %v, want %v (%v)", c.command, got, c.allowLookup, counts.Calls)
		}
		if plain := eng.Decide(ctx, in); plain.Step != d.Step || plain.Behavior != d.Behavior {
			t.Errorf("%s: Decide %+v, DecideCounted %+v", c.command, plain, d)
		}
	}
}
