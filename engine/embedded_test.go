package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// TestEmbeddedCompileIsShared holds the process-wide reuse of the embedded
// policy's compile in engine.New: engines over the embedded policy alone
// share one compiler and decide, field for field, as an engine that
// compiled the same policy files on its own, for every case of the
// decision matrix; deciding and evaluating do not change the shared
// compiler's rules; an engine with policy files or bundles compiles its
// own, and its modules never reach the shared compile; a bundle of data
// alone takes the shared compile.
func TestEmbeddedCompileIsShared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := settings.Settings{Home: "/root", Cwd: "/tmp/permopa-ws"}
	mustNew := func(opts ...engine.Option) *engine.Engine {
		t.Helper()
		e, err := engine.New(ctx, append([]engine.Option{engine.WithSettings(s)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	a, b := mustNew(), mustNew()
	shared := a.Compiler()
	if shared == nil || b.Compiler() != shared {
		t.Fatalf("two engines over the embedded policy compiled it twice (%p, %p)", shared, b.Compiler())
	}
	if mustNew(engine.WithCheckedPolicy()).Compiler() == shared {
		t.Error("WithCheckedPolicy reused the fully checked compile: the key must tell them apart")
	}
	before := moduleTexts(shared)

	// The same policy files compiled by an engine of its own.
	own := mustNew(engine.WithoutDefaultPolicy(), engine.WithPolicyPaths("../rego/permopa"))
	if own.Compiler() == shared {
		t.Fatal("an engine with policy files got the shared compile")
	}
	quick := quickFirst{}
	for _, c := range loadMatrix(t) {
		if !quick.take(matrixKind(c)) {
			continue // the first case of each kind in the quick suite; every one with -tags slow (.ci/run)
		}
		da, db, do := a.Decide(ctx, c.raw), b.Decide(ctx, c.raw), own.Decide(ctx, c.raw)
		if !reflect.DeepEqual(da, db) || !reflect.DeepEqual(da, do) {
			t.Errorf("%s: the engines sharing the compile decided\n%+v\n%+v\nthe engine with its own compile\n%+v", c.ID, da, db, do)
		}
	}
	if _, err := a.Evaluate(ctx, "x := data.permopa.policy.decision", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": "/tmp/permopa-ws/a"}}); err != nil {
		t.Fatal(err)
	}

	// A custom policy beside the embedded one, as files and as a bundle:
	// compiled apart, and nothing of it in the shared compile.
	dir := t.TempDir()
	custom := "package permopa.custom\n\nmarker := true\n"
	if err := os.WriteFile(filepath.Join(dir, "custom.rego"), []byte(custom), 0o644); err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "bundle")
	if err := os.MkdirAll(bundle, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bundle, "custom.rego"), []byte(custom), 0o644); err != nil {
		t.Fatal(err)
	}
	ways := map[string][]engine.Option{
		"policy files":                   {engine.WithPolicyPaths(dir)},
		"policy files without the embed": {engine.WithoutDefaultPolicy(), engine.WithPolicyPaths(dir)},
	}
	if slowTests {
		// Each is one more compile of the whole policy; the quick
		// suite's "policy files" above proves the key tells a custom
		// policy apart, these the other two ways of giving one (.ci/run).
		ways["policy files, checked"] = []engine.Option{engine.WithPolicyPaths(dir), engine.WithCheckedPolicy()}
		ways["a bundle"] = []engine.Option{engine.WithBundles(bundle)}
	}
	for what, opts := range ways {
		e := mustNew(opts...)
		if e.Compiler() == shared {
			t.Errorf("%s: the engine got the shared compile", what)
		}
		if got, err := e.Evaluate(ctx, "data.permopa.custom.marker", nil); err != nil || got != true {
			t.Errorf("%s: data.permopa.custom.marker = %v, %v; want true", what, got, err)
		}
	}
	// A bundle of data alone (an organisation's rules) needs no compile:
	// the engine gets the shared one and reads the bundle's data; the
	// checked compile too, as a hook builds it. Data where the policy has
	// rules is refused, as the compile against the store refused it.
	dataBundle := func(doc string) string {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "permopa", "extra"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "permopa", "extra", "data.json"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	withData := mustNew(engine.WithBundles(dataBundle(`{"marker": true}`)))
	if withData.Compiler() != shared {
		t.Error("an engine with a bundle of data alone compiled the embedded policy again")
	}
	if got, err := withData.Evaluate(ctx, "data.permopa.extra.marker", nil); err != nil || got != true {
		t.Errorf("the data-only bundle's data.permopa.extra.marker = %v, %v; want true", got, err)
	}
	checkedShared := mustNew(engine.WithCheckedPolicy()).Compiler()
	if got := mustNew(engine.WithCheckedPolicy(), engine.WithBundles(dataBundle(`{}`))).Compiler(); got != checkedShared {
		t.Error("a checked engine with a bundle of data alone did not get the checked shared compile")
	}
	conflict := filepath.Join(t.TempDir(), "b")
	if err := os.MkdirAll(filepath.Join(conflict, "permopa", "policy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(conflict, "permopa", "policy", "data.json"), []byte(`{"decision": {"behavior": "allow"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if e, err := engine.New(ctx, engine.WithSettings(s), engine.WithBundles(conflict)); err == nil {
		t.Errorf("a bundle with data at data.permopa.policy.decision was taken: %+v", e.Decide(ctx, map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": "/etc/shadow"}}))
	} else if !strings.Contains(err.Error(), "permopa/policy/decision") {
		t.Errorf("the conflict's error does not name the path: %v", err)
	}
	later := mustNew()
	if later.Compiler() != shared {
		t.Error("an engine built after the custom ones did not get the shared compile")
	}
	if got, err := later.Evaluate(ctx, "data.permopa.custom.marker", nil); err != nil || got != nil {
		t.Errorf("the shared compile has the custom policy's rule: %v, %v", got, err)
	}
	if after := moduleTexts(shared); !reflect.DeepEqual(before, after) {
		t.Errorf("deciding and evaluating changed the shared compile's modules: %d before, %d after", len(before), len(after))
	}
}

// moduleTexts is the text of every module a compiler holds, by name.
func moduleTexts(c *ast.Compiler) map[string]string {
	out := make(map[string]string, len(c.Modules))
	for name, m := range c.Modules {
		out[name] = m.String()
	}
	return out
}
