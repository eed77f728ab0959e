package engine_test

import (
	"context"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

func TestEvaluateExtraQueries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: "/root", Cwd: "/tmp"}))
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls && rm x"}, "permission_mode": "plan"}
	v, err := eng.Evaluate(ctx, "mode := data.permopa.policy.call.mode; a := data.permopa.policy.tools.bash.analysis", in)
	if err != nil {
		t.Fatal(err)
	}
	b := v.(map[string]any)
	if b["mode"] != "EXPLORE" {
		t.Fatalf("mode %v", b["mode"])
	}
	if leaves := b["a"].(map[string]any)["leaves"].([]any); len(leaves) != 2 {
		t.Fatalf("leaves %v", leaves)
	}
	// Same query again (prepared once), a plain expression, and an undefined one.
	if _, err := eng.Evaluate(ctx, "mode := data.permopa.policy.call.mode; a := data.permopa.policy.tools.bash.analysis", in); err != nil {
		t.Fatal(err)
	}
	if v, err := eng.Evaluate(ctx, "data.permopa.policy.call.tool", in); err != nil || v != "Bash" {
		t.Fatalf("%v %v", v, err)
	}
	if v, err := eng.Evaluate(ctx, "data.permopa.policy.rules.match.deny", in); err != nil || v != nil {
		t.Fatalf("undefined: %v %v", v, err)
	}
	if _, err := eng.Evaluate(ctx, "x := ", in); err == nil {
		t.Fatal("a query that does not parse was accepted")
	}
	// Evaluate does not disturb decisions.
	if d := eng.Decide(ctx, in); d.Behavior != "DENY" || d.Step != "mode_fallback" {
		t.Fatalf("%+v", d)
	}
}
