package engine_test

import (
	"context"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/engineops"
)

// shared are the shared engine's operations, as the OPA plugin takes them.
var shared = engineops.SharedOf[*engine.Engine, engine.Option]()

// embedded is the embedded policy as engine.New compiles it, compiled once
// for the package's tests.
var embedded struct {
	once     sync.Once
	compiler *ast.Compiler
	err      error
}

// newEngine is engine.New with the embedded policy for the tests whose
// engines differ only in their settings and options, not in the policy: a
// shared engine (shared.New, as the server builds them) over a store
// of its own and the policy compiled once, instead of compiling the whole
// policy again for every test and case. The tests of engine.New itself,
// and of policy files and bundles (which shared.New refuses), call
// engine.New.
func newEngine(ctx context.Context, opts ...engine.Option) (*engine.Engine, error) {
	embedded.once.Do(func() {
		e, err := engine.New(context.Background())
		if err != nil {
			embedded.err = err
			return
		}
		embedded.compiler = e.Compiler()
	})
	if embedded.err != nil {
		return nil, embedded.err
	}
	return shared.New(ctx, inmem.NewWithOpts(inmem.OptReturnASTValuesOnRead(true)), embedded.compiler, opts...)
}
