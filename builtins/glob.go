package builtins

import (
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/permopa/permopa/builtins/paths"
)

// GlobMatchAny is permopa.glob.match_any.
var GlobMatchAny = &ast.Builtin{
	Name: "permopa.glob.match_any",
	Description: "Matches file-rule patterns (doublestar: `*` within a segment, `**` across; `/abs/**` and " +
		"`//abs/**` absolute, `~/x` home, `./x` or `x/**` relative to the cwd, `**/x` anywhere, `\"\"` every path; " +
		"`fnmatch:p` AgentScope's fnmatch, `*` crossing `/`, on the path as written) " +
		"against paths, which are resolved first: lexically, through symlinks and through other roads to the " +
		"same file (`/proc/<pid>/root/x`, `~user/x`). Mode `any` (deny and ask rules): a pattern hits when it " +
		"matches any form of any path; with `case_insensitive` (or on macOS and Windows) without regard to case. " +
		"Mode `all` (allow rules): a pattern covers when it matches every form of every path, case as spelled. " +
		"A path with shell glob syntax (`cat .e*`) brings " +
		"along what it expands to now. A tree read recursively also hits (mode `any`) a pattern that names a path " +
		"below its root, or whose wildcards match a path a bounded walk of the tree finds (or cannot rule out: " +
		"a walk that cannot finish hits every such pattern, and for a program that follows links every pattern, " +
		"unless `certain`); in mode `all` a tree counts as its root. Returns the index of the first such pattern, or -1. " +
		"Patterns are compiled once and indexed, so long rule lists stay cheap. A malformed pattern is an error. " +
		"Reads the file system, so it is non-deterministic.",
	Categories: []string{"permopa", "permopa.glob"},
	Decl: types.NewFunction(
		types.Args(
			types.Named("patterns", stringArray()).Description("file-rule patterns (the rule contents of Read/Write/Edit rules)"),
			types.Named("paths", pathOrTreeArray()).Description("the paths of the tool call; "+treeDoc),
			namedOpts("options: "+cwdHomeDoc+", `mode` (`\"any\"`, the default, or `\"all\"`), "+
				"`case_insensitive` (boolean: mode `any` ignores case; default: true on macOS and Windows), "+
				"`certain` (boolean: a tree whose walk cannot finish hits only the patterns what the walk found hits)"+unknownKeys),
		),
		types.Named("index", types.N).Description("index of the first pattern that hits (any) or covers (all), or -1"),
	),
	Nondeterministic: true,
}

var ruleSets = newValueCache[*paths.RuleSet](1 << 18)

func globMatchAny(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	// The patterns are checked element by element only when compiled: a
	// cache hit is an array equal to one that was checked.
	pats, err := builtins.ArrayOperand(ops[0].Value, 1)
	if err != nil {
		return nil, err
	}
	ps, err := pathArgs(ops[1], 2)
	if err != nil {
		return nil, err
	}
	o, err := optsOperand(ops[2], 3)
	if err != nil {
		return nil, err
	}
	cwd, home, err := cwdHome(o)
	if err != nil {
		return nil, err
	}
	m, err := o.str(keyMode)
	if err != nil {
		return nil, err
	}
	mode, err := paths.ParseMode(m)
	if err != nil {
		return nil, builtins.NewOperandErr(3, "option %v", err)
	}
	fold, err := o.bool(keyCaseInsensitive)
	if err != nil {
		return nil, err
	}
	certain, err := o.bool(keyCertain)
	if err != nil {
		return nil, err
	}
	// Allow rules cover a path only as spelled; deny and ask rules fold
	// case where the file system does (docs/rules.md).
	fold = (fold || paths.FoldByDefault) && mode == paths.ModeAny
	key := cwd
	if fold {
		key = "\x00fold\x00" + cwd
	}
	rs, err := ruleSets.get(pats, key, home, func() (*paths.RuleSet, error) {
		ss, err := stringsOf(pats, func() error {
			_, err := stringArrayOperand(ops[0], 1)
			return err
		})
		if err != nil {
			return nil, err
		}
		if fold {
			return paths.CompileRulesFolded(ss, cwd, home)
		}
		return paths.CompileRules(ss, cwd, home)
	})
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 || rs.Len() == 0 {
		return termMinusOne, nil
	}
	var buf [4]paths.Target
	ts := buf[:0]
	var globs []string // literal globs whose expansion was cut short
	var trees []paths.TreeMatch
	for _, pa := range ps {
		r := resolve(bctx, pa.p, cwd, home)
		t := paths.Target{Raw: pa.p, Forms: append([]paths.Resolved{r}, otherRoads(bctx, pa.p, cwd, home, r)...)}
		if pa.tree != nil && mode == paths.ModeAny {
			for _, root := range treeRoots(bctx, r) {
				tr := *pa.tree
				tr.Root = root
				trees = append(trees, paths.TreeMatch{Tree: tr, List: listTree(bctx, tr), Cwd: cwd, Certain: certain})
			}
		}
		if paths.HasGlob(r.Abs) {
			// The shell expands the glob: rules see what it names now.
			x := expand(bctx, r.Abs)
			t.Forms = append(t.Forms, x.paths...)
			if !x.complete {
				if mode == paths.ModeAll {
					return termMinusOne, nil // coverage cannot be shown
				}
				globs = append(globs, r.Abs)
			}
		}
		ts = append(ts, t)
	}
	best := rs.MatchTargets(ts, cwd, mode)
	for _, g := range globs {
		if i := rs.MatchLiteralByGlob(g); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	if len(trees) > 0 {
		if i := rs.MatchTrees(trees); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return indexTerm(best), nil
}
