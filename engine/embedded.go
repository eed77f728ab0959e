package engine

import (
	"context"
	"fmt"
	"io/fs"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// embeddedKey is what the compile of the embedded policy depends on: the
// modules (the file system they are read from, fixed for the process), the
// built-ins the compiler knows (OPA's capabilities for this version plus
// every built-in registered so far: a registration appends to ast.Builtins,
// so their number changes with each one) and whether the check-only stages
// are skipped (WithCheckedPolicy), and whether the explanation is left out
// (WithDecisionOnly).
type embeddedKey struct {
	fsys         fs.FS
	builtins     int
	checked      bool
	decisionOnly bool
}

// embeddedCompiled holds one compile of the embedded policy; done is
// closed once compiler or err is set.
type embeddedCompiled struct {
	done     chan struct{}
	compiler *ast.Compiler
	err      error
}

var embedded struct {
	mu       sync.Mutex
	compiled map[embeddedKey]*embeddedCompiled
}

// embeddedCompiler is the embedded policy compiled once per process and
// key, shared by every engine New builds over it alone or beside bundles of
// data alone (whose data needs no compile): compiling the whole
// policy is most of an engine's construction, and a process (a server that
// reconfigures, a test binary running permopa's commands) builds many. A
// compiled ast.Compiler is read-only to evaluation (OPA's own server
// evaluates concurrent queries against one; a query is compiled on a copy,
// QueryCompiler), and New's engines only ever prepare queries against it
// with rego.Compiler and no modules, which does not compile into it. A
// failed compile is not kept: the next New tries again.
func embeddedCompiler(ctx context.Context, fsys fs.FS, checked, decisionOnly bool) (*ast.Compiler, error) {
	key := embeddedKey{fsys: fsys, builtins: len(ast.Builtins), checked: checked, decisionOnly: decisionOnly}
	embedded.mu.Lock()
	if embedded.compiled == nil {
		embedded.compiled = map[embeddedKey]*embeddedCompiled{}
	}
	c, ok := embedded.compiled[key]
	if !ok {
		c = &embeddedCompiled{done: make(chan struct{})}
		embedded.compiled[key] = c
	}
	embedded.mu.Unlock()
	if ok {
		// Not bounded by ctx: New compiles whatever ctx says (OPA's
		// compile does not look at it), and a caller whose deadline has
		// passed gets its engine as before and fails closed deciding.
		<-c.done
		if c.err == nil {
			return c.compiler, nil
		}
		// The compile this caller waited for failed (and was dropped):
		// compile again, as the caller would have without the cache.
		return compileEmbedded(ctx, fsys, checked, decisionOnly)
	}
	c.compiler, c.err = compileEmbedded(ctx, fsys, checked, decisionOnly)
	if c.err != nil {
		embedded.mu.Lock()
		delete(embedded.compiled, key)
		embedded.mu.Unlock()
	}
	close(c.done)
	return c.compiler, c.err
}

// compileEmbedded compiles the embedded policy as New compiled it for each
// engine before the compile was shared: the same modules and rego options,
// against a store of the same shape (OPA's compile refuses rules at paths
// where the store holds data; New's store holds only the settings).
func compileEmbedded(ctx context.Context, fsys fs.FS, checked, decisionOnly bool) (*ast.Compiler, error) {
	mods, err := parseModules(fsys)
	if err != nil {
		return nil, err
	}
	opts := make([]func(*rego.Rego), 0, len(mods)+4)
	opts = append(opts, rego.Query(DefaultQuery), rego.StrictBuiltinErrors(true))
	for _, m := range mods {
		if decisionOnly && explanationModules[m.Package.Location.File] {
			continue
		}
		opts = append(opts, rego.ParsedModule(m))
	}
	store := inmem.NewFromObjectWithOpts(map[string]any{"permopa": map[string]any{"settings": map[string]any{}}}, inmem.OptReturnASTValuesOnRead(true))
	var compiler *ast.Compiler
	opts = append(opts, rego.Store(store), rego.CompilerHook(func(c *ast.Compiler) {
		if checked {
			c.WithSkipStages(checkOnlyStages...)
		}
		compiler = c
	}))
	if _, err := rego.New(opts...).PrepareForEval(ctx); err != nil {
		return nil, fmt.Errorf("compiling policy: %w", err)
	}
	return compiler, nil
}
