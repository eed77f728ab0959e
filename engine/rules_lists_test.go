package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/permopa/permopa/engine"
)

// A damaged rules document (an org bundle whose index is not what the
// policy reads) must not make its deny rules vanish: the decision fails
// closed.
func TestMalformedRulesIndexFailsClosed(t *testing.T) {
	dir := t.TempDir()
	data := `{"permopa": {"rules": {"index": {"deny": {"Bash": {"wide": [], "rules": [], "contents": "rm:*"}}}}}}`
	if err := os.WriteFile(filepath.Join(dir, "data.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(context.Background(), engine.WithPolicyPaths(dir))
	if err != nil {
		t.Fatal(err)
	}
	d := eng.Decide(context.Background(), map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf build"}, "permission_mode": "bypassPermissions",
	})
	if d.Behavior != engine.Deny || d.Step != engine.StepError {
		t.Fatalf("decision %+v, want DENY with step error", d)
	}
	if d.Code != engine.CodeEvalError {
		t.Errorf("code %q, want %q", d.Code, engine.CodeEvalError)
	}
}
