package builtins

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	tdbuiltins "github.com/open-policy-agent/opa/v1/topdown/builtins"

	"github.com/permopa/permopa/builtins/paths"
)

// Within one evaluation a path is resolved once, and every path built-in sees
// that answer.
func TestResolveMemo(t *testing.T) {
	bctx := topdown.BuiltinContext{Cache: tdbuiltins.Cache{}}
	o := ast.MustParseTerm(`{"cwd": "/w", "home": "/h"}`)
	ps := ast.MustParseTerm(`["a/b", "~/c"]`)
	if _, err := pathCheck(bctx, []*ast.Term{ps, o}); err != nil {
		t.Fatal(err)
	}
	if _, err := pathInside(bctx, []*ast.Term{ps, ast.MustParseTerm(`["/w"]`), o}); err != nil {
		t.Fatal(err)
	}
	if len(bctx.Cache) != 3 { // a/b, ~/c, /w
		t.Errorf("memo holds %d entries, want 3: %v", len(bctx.Cache), bctx.Cache)
	}
	// A planted answer is what the next built-in sees.
	bctx.Cache.Put(resolveKey{"x", "/w", "/h"}, paths.Resolved{Abs: "/w/x", Real: "/h/.ssh/id_rsa"})
	r, err := pathCheck(bctx, []*ast.Term{ast.MustParseTerm(`["x"]`), o})
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Get(ast.StringTerm("credential")).Value.(*ast.Array).Len(); n != 1 {
		t.Errorf("memoised symlink target not classified: %v", r)
	}
}

func TestSame(t *testing.T) {
	a := ast.MustParseTerm(`["a", "b", "c"]`).Value
	for _, c := range []struct {
		y    string
		want bool
	}{
		{`["a", "b", "c"]`, true},
		{`["a", "c", "b"]`, false}, // same hash (sum of elements), other order
		{`["a", "b"]`, false},
		{`["a", "b", 1]`, false},
		{`{"a": 1}`, false},
	} {
		if got := same(a, ast.MustParseTerm(c.y).Value); got != c.want {
			t.Errorf("same(%v, %s) = %v", a, c.y, got)
		}
	}
	if !same(a, a) {
		t.Error("not same as itself")
	}
	o := ast.MustParseTerm(`{"files": {"add": ["x"]}}`).Value
	if !same(o, ast.MustParseTerm(`{"files": {"add": ["x"]}}`).Value) || same(o, ast.MustParseTerm(`{"files": {"add": ["y"]}}`).Value) {
		t.Error("objects")
	}
}
