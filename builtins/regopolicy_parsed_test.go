package builtins_test

import (
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	defaultpolicy "github.com/permopa/permopa/rego"
)

// TestParsedModulesShared (here, not in package rego, so that the suite
// links one test binary less) reads and copies the shared modules from several
// goroutines at once, as engines compiling and rego/tables reading do in
// one process (run with -race): nothing a reader does writes them.
func TestParsedModulesShared(t *testing.T) {
	t.Parallel()
	mods, err := defaultpolicy.ParsedModules()
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) < 5 {
		t.Fatalf("%d modules", len(mods))
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for _, m := range mods {
				if w%2 == 0 {
					m.Copy()
					continue
				}
				ast.WalkTerms(m, func(t *ast.Term) bool {
					switch v := t.Value.(type) {
					case ast.Object:
						v.Keys()
					case ast.Set:
						v.Slice()
					}
					return false
				})
			}
		})
	}
	wg.Wait()
	if m, err := defaultpolicy.ParsedModule("permopa/policy/call/call.rego"); err != nil || m.Package.Path.String() != "data.permopa.policy.call" {
		t.Errorf("ParsedModule(call.rego) = %v, %v", m, err)
	}
}
