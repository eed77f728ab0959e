package engine_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/permopa/permopa/builtins"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	defaultpolicy "github.com/permopa/permopa/rego"
)

// A damaged rules document (an org bundle whose index is not what the
// policy reads) must not make its deny rules vanish: the decision fails
// closed.
func TestMalformedRulesIndexFailsClosed(t *testing.T) {
	t.Parallel()
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
	if d.Behavior != permission.Deny || d.Step != permission.StepError {
		t.Fatalf("decision %+v, want DENY with step error", d)
	}
	if d.Code != permission.CodeEvalError {
		t.Errorf("code %q, want %q", d.Code, permission.CodeEvalError)
	}
}

// Where built-in errors do not stop the query (OPA's data API, a vanilla
// `opa eval`), the same damaged document must still not let a call through
// without its rules: the decision denies with step error.
func TestMalformedRulesIndexDeniesWithoutStrictErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	builtins.Register()
	opts := []func(*rego.Rego){
		rego.Query(engine.DefaultQuery),
		rego.Store(inmem.NewFromObject(map[string]any{"permopa": map[string]any{"rules": map[string]any{"index": []any{}}}})),
	}
	err := fs.WalkDir(defaultpolicy.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") {
			return err
		}
		src, err := fs.ReadFile(defaultpolicy.FS, p)
		opts = append(opts, rego.Module(p, string(src)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	pq, err := rego.New(opts...).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A read-only call that would otherwise be allowed.
	rs, err := pq.Eval(ctx, rego.EvalInput(map[string]any{
		"tool_name": "Read", "tool_input": map[string]any{"file_path": "/w/a"}, "cwd": "/w",
	}))
	if err != nil || len(rs) != 1 {
		t.Fatalf("eval: %v %v", rs, err)
	}
	d := rs[0].Expressions[0].Value.(map[string]any)
	if d["behavior"] != "DENY" || d["step"] != "error" || d["reason"] != "rules_unreadable" {
		t.Fatalf("decision %v, want DENY step error reason rules_unreadable", d)
	}
}
