package builtins

import (
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/permopa/permopa/builtins/paths"
)

// Recursive reads in the path built-ins: an element of the paths operand
// of permopa.path.check and permopa.glob.match_any may be a tree object
// (an entry of the bash analysis's recursive_reads, or the policy's Grep
// and Glob targets) instead of a string: the directory tree below "path"
// is read. See paths.CheckTree and paths.RuleSet.MatchTrees.

var (
	keyHidden      = ast.StringTerm("hidden")
	keyNamesOnly   = ast.StringTerm("names_only")
	keyIgnores     = ast.StringTerm("ignores")
	keyExcludeDirs = ast.StringTerm("exclude_dirs")
	keyInclude     = ast.StringTerm("include")
	keyExclude     = ast.StringTerm("exclude")
	keyIncludeFst  = ast.StringTerm("include_first")
	keyMaxDepth    = ast.StringTerm("max_depth")
	keyUnknown     = ast.StringTerm("unknown")
	keySkipsLinks  = ast.StringTerm("skips_links")
)

const treeDoc = "an element may also be a tree read recursively, " +
	"`{\"path\": string, \"hidden\": bool, \"names_only\": bool, \"ignores\": bool, \"exclude_dirs\": [string], " +
	"\"include\": [string], \"exclude\": [string], \"include_first\": bool, \"max_depth\": number, \"skips_links\": bool}` " +
	"(an entry of the bash analysis's `recursive_reads`): every path below `path` that the program reads counts"

// pathOrTreeArray is the declared type of a paths operand that may hold trees.
func pathOrTreeArray() types.Type {
	return types.NewArray(nil, types.NewAny(types.S, types.NewObject(nil, types.NewDynamicProperty(types.S, types.A))))
}

// pathArg is one element of a paths operand: a path, or a tree.
type pathArg struct {
	term *ast.Term // the element as given (a hit reports it)
	p    string    // the path, or the tree's root
	tree *paths.Tree
}

// pathArgs reads a paths operand whose elements are strings or tree objects.
func pathArgs(t *ast.Term, pos int) ([]pathArg, error) {
	a, err := builtins.ArrayOperand(t.Value, pos)
	if err != nil {
		return nil, err
	}
	out := make([]pathArg, 0, a.Len())
	for i := range a.Len() {
		e := a.Elem(i)
		switch v := e.Value.(type) {
		case ast.String:
			out = append(out, pathArg{term: e, p: string(v)})
		case ast.Object:
			pa, err := treeArg(e, v, pos)
			if err != nil {
				return nil, err
			}
			out = append(out, pa)
		default:
			return nil, builtins.NewOperandElementErr(pos, a, e.Value, "string", "object")
		}
	}
	return out, nil
}

func treeArg(e *ast.Term, v ast.Object, pos int) (pathArg, error) {
	bad := func(key, want string) error {
		return builtins.NewOperandErr(pos, "tree %v: %s must be %s", e, key, want)
	}
	pt := v.Get(keyPath)
	if pt == nil {
		return pathArg{}, bad("path", "a string")
	}
	p, ok := pt.Value.(ast.String)
	if !ok {
		return pathArg{}, bad("path", "a string")
	}
	t := &paths.Tree{}
	for _, f := range []struct {
		key *ast.Term
		dst *bool
	}{{keyHidden, &t.Hidden}, {keyNamesOnly, &t.NamesOnly}, {keyIgnores, &t.Ignores}, {keyIncludeFst, &t.IncludeFirst}, {keySkipsLinks, &t.SkipsLinks}} {
		x := v.Get(f.key)
		if x == nil {
			continue
		}
		b, ok := x.Value.(ast.Boolean)
		if !ok {
			return pathArg{}, bad(string(f.key.Value.(ast.String)), "a boolean")
		}
		*f.dst = bool(b)
	}
	if x := v.Get(keyMaxDepth); x != nil {
		n, ok := x.Value.(ast.Number)
		d, isInt := n.Int()
		if !ok || !isInt || d < 0 {
			return pathArg{}, bad("max_depth", "a non-negative integer")
		}
		t.MaxDepth = d
	}
	for _, f := range []struct {
		key  *ast.Term
		name string
		dst  *[]string
	}{{keyExcludeDirs, "exclude_dirs", &t.ExcludeDirs}, {keyInclude, "include", &t.Include}, {keyExclude, "exclude", &t.Exclude}} {
		x := v.Get(f.key)
		if x == nil {
			continue
		}
		ss, err := stringsOf(x.Value, func() error { return bad(f.name, "an array of strings") })
		if err != nil {
			return pathArg{}, err
		}
		*f.dst = ss
	}
	return pathArg{term: e, p: string(p), tree: t}, nil
}

type listKey struct {
	real, abs       string
	hidden, ignores bool
	includeFirst    bool
	skipsLinks      bool
	depth           int
	exclude         string
}

// maxEvalEntries bounds the directory entries all the tree walks of one
// evaluation read together (a command may name many trees).
const maxEvalEntries = 4 * paths.MaxTreeEntries

// walkBudget is the entries left to the walks of one evaluation.
type walkBudget struct{ left int }

type walkBudgetKey struct{}

// listTree walks a tree at most once per evaluation (the credential check
// and every deny or ask rule list share the walk), within the evaluation's
// budget of entries.
func listTree(bctx topdown.BuiltinContext, t paths.Tree) func() paths.Listing {
	return func() paths.Listing {
		k := listKey{real: t.Root.Real, abs: t.Root.Abs, hidden: t.Hidden, ignores: t.Ignores, depth: t.MaxDepth,
			includeFirst: t.IncludeFirst, skipsLinks: t.SkipsLinks, exclude: strings.Join(t.ExcludeDirs, "\x00") + "\x01" +
				strings.Join(t.Include, "\x00") + "\x01" + strings.Join(t.Exclude, "\x00")}
		if bctx.Cache != nil {
			if v, ok := bctx.Cache.Get(k); ok {
				return v.(paths.Listing)
			}
		}
		if bctx.Cache == nil {
			return paths.ListTree(t)
		}
		b, _ := bctx.Cache.Get(walkBudgetKey{})
		budget, _ := b.(*walkBudget)
		if budget == nil {
			budget = &walkBudget{left: maxEvalEntries}
			bctx.Cache.Put(walkBudgetKey{}, budget)
		}
		l := paths.ListTreeWithin(t, budget.left)
		budget.left = max(budget.left-l.Read, 0)
		bctx.Cache.Put(k, l)
		return l
	}
}

// checkTrees checks the tree t below r, and when r is a shell glob
// (grep -r x ~/.*) below everything it expands to now; a glob that cannot
// be expanded in full is unknown unless a credential is found. It returns
// the verdict and the root it is about.
func checkTrees(bctx topdown.BuiltinContext, cl *paths.Classifier, t paths.Tree, r paths.Resolved, home string) (paths.TreeVerdict, paths.Resolved) {
	t.Root = r
	v := cl.CheckTree(t, home, listTree(bctx, t))
	if v.Credential || !paths.HasGlob(r.Abs) {
		return v, r
	}
	x := expand(bctx, r.Abs)
	for _, e := range x.paths {
		t.Root = e
		ev := cl.CheckTree(t, home, listTree(bctx, t))
		if ev.Credential {
			return ev, e
		}
		if ev.Unknown && !v.Unknown {
			v = ev
		}
	}
	if !x.complete {
		// What the glob could name, by name alone.
		if _, cred, why := cl.ClassifyGlob(r.Abs); cred {
			return paths.TreeVerdict{Credential: true, Path: r.Abs, Reason: why + " (glob too large to expand)"}, r
		}
		if !v.Unknown {
			v = paths.TreeVerdict{Unknown: true, Path: r.Abs, Reason: "the glob names too many paths to check"}
		}
	}
	return v, r
}

// treeRoots returns the roots a tree at r stands for: r, and when r is a
// shell glob what it expands to now, or when that cannot be known in full
// the directory before its first wildcard (a superset).
func treeRoots(bctx topdown.BuiltinContext, r paths.Resolved) []paths.Resolved {
	if !paths.HasGlob(r.Abs) {
		return []paths.Resolved{r}
	}
	x := expand(bctx, r.Abs)
	out := append([]paths.Resolved{r}, x.paths...)
	if !x.complete {
		lit := r.Abs[:strings.IndexAny(r.Abs, "*?[{")]
		lit = lit[:max(strings.LastIndexByte(lit, '/'), 1)]
		out = append(out, paths.Resolved{Abs: lit, Real: lit})
	}
	return out
}

// treeHit is a tree's credential verdict as a hit: the tree as given, and
// what it reaches.
func treeHit(pa pathArg, root paths.Resolved, v paths.TreeVerdict) *ast.Term {
	var reason string
	switch {
	case v.Unknown:
		reason = "recursive read that cannot be checked for credential files: " + v.Reason
	case v.Path == root.Abs || v.Path == root.Real:
		reason = "recursive read of " + v.Reason
	default:
		reason = "recursive read reaches " + v.Path + " (" + v.Reason + ")"
	}
	return ast.ObjectTerm(ast.Item(keyPath, ast.StringTerm(pa.p)), ast.Item(keyReason, ast.StringTerm(reason)))
}
