package rego

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/builtins"
)

// ParsedModules returns the default policy's modules (its .rego files but
// the tests), parsed once per process and sorted by file name; each module
// is parsed as the file "rego/<path in FS>". The engine compiles them
// (OPA's compiler works on a copy) and rego/tables reads its tables from
// them: a cold hook process (docs/hosts.md) parses the policy once, not
// once for each. The modules are shared: read them, never modify them.
func ParsedModules() ([]*ast.Module, error) { return parsed() }

// ParsedModule is the parsed module of the file at p in FS
// ("permopa/policy/call/call.rego"), from ParsedModules.
func ParsedModule(p string) (*ast.Module, error) {
	mods, err := parsed()
	if err != nil {
		return nil, err
	}
	for _, m := range mods {
		if m.Package.Location != nil && m.Package.Location.File == "rego/"+p {
			return m, nil
		}
	}
	return nil, fmt.Errorf("%s: no such module in the default policy", p)
}

var parsed = sync.OnceValues(func() ([]*ast.Module, error) {
	// The parser indexes the built-in names on first use
	// (ast.BuiltinNameFromRef): permopa's must be registered before.
	builtins.Register()
	mods, err := parseModules(FS)
	if err != nil {
		return nil, err
	}
	// OPA sorts an object's or a set's keys on first use (Keys, Slice),
	// which its Copy does not wait for: sorted here, before the modules are
	// shared, the engine's compile (a copy) and rego/tables' reads never
	// write them.
	for _, m := range mods {
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
	return mods, nil
})

// parseModules parses the modules on every CPU at once, as rego.Module
// would one after the other (the same parser options): parsing is about a
// third of compiling the policy, which a cold hook process does once
// before its answer (docs/hosts.md, "Speed").
func parseModules(fsys fs.FS) ([]*ast.Module, error) {
	type module struct{ name, src string }
	var srcs []module
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || path.Ext(p) != ".rego" || strings.HasSuffix(p, "_test.rego") {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		srcs = append(srcs, module{name: "rego/" + p, src: string(b)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].name < srcs[j].name })
	out := make([]*ast.Module, len(srcs))
	errs := make([]error, len(srcs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(srcs)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(srcs); i = int(next.Add(1) - 1) {
				out[i], errs[i] = ast.ParseModuleWithOpts(srcs[i].name, srcs[i].src, ast.ParserOptions{})
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("parsing policy: %w", err)
	}
	return out, nil
}
