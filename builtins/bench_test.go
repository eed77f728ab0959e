package builtins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// The benchmarks call each implementation directly with OPA operands (the
// cost the built-in adds to a decision), and BenchmarkGlobMatchAnyRego goes
// through a prepared query over rules in the store (what a decision pays).

func call(b *testing.B, f impl, ops ...*ast.Term) *ast.Term {
	t, err := f(topdown.BuiltinContext{}, ops)
	if err != nil {
		b.Fatal(err)
	}
	return t
}

func benchTree(b *testing.B) (root string) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "home/.ssh"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "proj/src/pkg"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "home/.ssh"), filepath.Join(root, "proj/keys")); err != nil {
		b.Fatal(err)
	}
	return root
}

func BenchmarkPathResolve(b *testing.B) {
	root := benchTree(b)
	p, o := ast.StringTerm("src/pkg/main.go"), ast.MustParseTerm(fmt.Sprintf(`{"cwd": %q}`, root+"/proj"))
	b.ReportAllocs()
	for b.Loop() {
		call(b, pathResolve, p, o)
	}
}

func BenchmarkPathCheck(b *testing.B) {
	root := benchTree(b)
	o := ast.MustParseTerm(fmt.Sprintf(`{"cwd": %q, "home": %q}`, root+"/proj", root+"/home"))
	for _, c := range []struct{ name, paths string }{
		{"1-clean", `["src/pkg/main.go"]`},
		{"3-mixed", `["src/pkg/main.go", ".env", "keys/id_rsa"]`},
		{"1-configured", `["src/pkg/main.go"]`},
	} {
		ps := ast.MustParseTerm(c.paths)
		opts := o
		if c.name == "1-configured" {
			opts = ast.MustParseTerm(fmt.Sprintf(`{"cwd": %q, "dangerous_paths": {"files": {"add": ["*.pem"]}, "directories": {"remove": [".idea"]}}}`, root+"/proj"))
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				call(b, pathCheck, ps, opts)
			}
		})
	}
}

func BenchmarkPathInside(b *testing.B) {
	root := benchTree(b)
	ps, ds := ast.MustParseTerm(`["src/pkg/main.go", "src/other.go"]`), ast.MustParseTerm(fmt.Sprintf(`[%q]`, root+"/proj"))
	o := ast.MustParseTerm(fmt.Sprintf(`{"cwd": %q}`, root+"/proj"))
	b.ReportAllocs()
	for b.Loop() {
		call(b, pathInside, ps, ds, o)
	}
}

func globPatterns(n int) *ast.Term {
	ts := make([]*ast.Term, 0, n)
	for i := 0; len(ts) < n; i++ {
		for _, p := range []string{"/srv/app%d/**", "src/module%d/*.go", "**/secret%d.txt", "~/notes/n%d/**", "**/*.ext%d"} {
			ts = append(ts, ast.StringTerm(fmt.Sprintf(p, i)))
		}
	}
	return ast.ArrayTerm(ts[:n]...)
}

func BenchmarkGlobMatchAny(b *testing.B) {
	root := benchTree(b)
	ps := ast.MustParseTerm(`["src/pkg/main.go"]`)
	o := ast.MustParseTerm(fmt.Sprintf(`{"cwd": %q, "home": %q}`, root+"/proj", root+"/home"))
	for _, n := range []int{10, 10000} {
		pats := globPatterns(n)
		b.Run(fmt.Sprintf("patterns=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if r := call(b, globMatchAny, pats, ps, o); !r.Equal(termMinusOne) {
					b.Fatalf("unexpected match %v", r)
				}
			}
		})
		// The same rules in another, equal array on every call, as a store
		// that converts data on each read, or a comprehension, hands them
		// over: the cache hit costs one comparison of the arrays.
		b.Run(fmt.Sprintf("patterns=%d/equal-array", n), func(b *testing.B) {
			fresh := make([]*ast.Term, 16)
			for j := range fresh {
				fresh[j] = globPatterns(n)
			}
			call(b, globMatchAny, fresh[0], ps, o)
			b.ReportAllocs()
			j := 0
			for b.Loop() {
				call(b, globMatchAny, fresh[j%len(fresh)], ps, o)
				j++
			}
		})
	}
}

// BenchmarkGlobMatchAnyRego evaluates a prepared query over rules in an
// AST-optimised store, per tool, as the default policy does.
func BenchmarkGlobMatchAnyRego(b *testing.B) {
	Register()
	root := benchTree(b)
	for _, n := range []int{10, 10000} {
		pats := make([]any, n)
		arr := globPatterns(n).Value.(*ast.Array)
		for i := range pats {
			pats[i] = string(arr.Elem(i).Value.(ast.String))
		}
		store := inmem.NewFromObjectWithOpts(map[string]any{"rules": map[string]any{"deny": map[string]any{"Read": pats}}},
			inmem.OptReturnASTValuesOnRead(true))
		pq, err := rego.New(
			rego.Query(`x := permopa.glob.match_any(data.rules.deny[input.tool_name], [input.path], {"cwd": input.cwd, "home": input.home})`),
			rego.Store(store),
		).PrepareForEval(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		input := ast.MustParseTerm(fmt.Sprintf(`{"tool_name": "Read", "path": "src/pkg/main.go", "cwd": %q, "home": %q}`, root+"/proj", root+"/home")).Value
		b.Run(fmt.Sprintf("patterns=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rs, err := pq.Eval(context.Background(), rego.EvalParsedInput(input))
				if err != nil || len(rs) != 1 {
					b.Fatal(rs, err)
				}
			}
		})
	}
}

func BenchmarkBashAnalyze(b *testing.B) {
	c, o := ast.StringTerm("git status && npm run build | tee out.log"), ast.MustParseTerm(`{"cwd": "/repo", "home": "/home/u"}`)
	b.ReportAllocs()
	for b.Loop() {
		call(b, bashAnalyze, c, o)
	}
}

func BenchmarkBashMatchAny(b *testing.B) {
	rules := ast.MustParseTerm(`["git push:*", "rm -rf:*", "curl:*", "npm publish:*"]`)
	c, o := ast.StringTerm("git status && npm run build | tee out.log"), ast.MustParseTerm(`{"cwd": "/repo"}`)
	b.ReportAllocs()
	for b.Loop() {
		call(b, bashMatchAny, rules, c, o)
	}
}

func BenchmarkBashCovered(b *testing.B) {
	rules := ast.MustParseTerm(`["npm run:*", "npm test:*", "make:*"]`)
	c, o := ast.StringTerm("git status && npm run build | tee out.log"), ast.MustParseTerm(`{"cwd": "/repo"}`)
	b.ReportAllocs()
	for b.Loop() {
		call(b, bashCovered, rules, c, o)
	}
}

func BenchmarkBashMatch(b *testing.B) {
	r, c := ast.StringTerm("rm:*"), ast.StringTerm("cd /tmp && rm x")
	b.ReportAllocs()
	for b.Loop() {
		call(b, bashMatch, r, c)
	}
}

func BenchmarkBashSuggest(b *testing.B) {
	c, o := ast.StringTerm("npm install left-pad && make"), ast.MustParseTerm(`{"cwd": "/repo"}`)
	b.ReportAllocs()
	for b.Loop() {
		call(b, bashSuggest, c, o)
	}
}
