package builtins

import (
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/permopa/permopa/builtins/paths"
)

// PathGitRepositories is permopa.path.git_repositories.
var PathGitRepositories = &ast.Builtin{
	Name: "permopa.path.git_repositories",
	Description: "For each directory a git command runs in, walks up the way git discovers its repository " +
		"(a .git entry first, then the directory itself when it holds HEAD, objects/ and refs/) and reports " +
		"the directories whose repository is not a `.git` directory: a bare repository (its config can make " +
		"`git status` run programs; git's `safe.bareRepository=explicit` refuses it), or a `.git` file naming " +
		"a repository outside every `.git` directory. Each directory is resolved (symlinks followed) first. " +
		"Reads the file system, so it is non-deterministic.",
	Categories: categoriesPath,
	Decl: types.NewFunction(
		types.Args(
			types.Named("dirs", stringArray()).Description("the directories git runs in (permopa.bash.analyze's git_dirs)"),
			namedOpts("options: "+cwdHomeDoc+unknownKeys),
		),
		types.Named("result", types.NewArray(nil, types.NewObject([]*types.StaticProperty{
			types.NewStaticProperty("path", types.S),
			types.NewStaticProperty("repository", types.S),
			types.NewStaticProperty("reason", types.S),
		}, nil))).Description("`[{\"path\", \"repository\", \"reason\"}]`: each directory whose repository is not a `.git` directory"),
	),
	Nondeterministic: true,
}

var keyRepository = ast.StringTerm("repository")

// gitShapeKey keys the memo of directory shapes.
type gitShapeKey struct {
	dir  string
	full bool
}

// gitShapes is the per-evaluation memo of directory shapes, kept in the
// query's built-in cache under one key (one lookup per built-in call).
type gitShapes map[gitShapeKey]paths.GitShape

type gitShapesKey struct{}

// gitShape is paths.ShapeOf once per directory and evaluation.
func gitShape(bctx topdown.BuiltinContext) func(string, bool) paths.GitShape {
	if bctx.Cache == nil {
		return paths.ShapeOf
	}
	var memo gitShapes
	if v, ok := bctx.Cache.Get(gitShapesKey{}); ok {
		memo = v.(gitShapes)
	} else {
		memo = gitShapes{}
		bctx.Cache.Put(gitShapesKey{}, memo)
	}
	return func(dir string, full bool) paths.GitShape {
		if s, ok := memo[gitShapeKey{dir, full}]; ok {
			return s
		}
		s := paths.ShapeOf(dir, full)
		memo[gitShapeKey{dir, full}] = s
		if s&paths.GitHead == 0 {
			// Without HEAD the short look is the whole answer.
			memo[gitShapeKey{dir, false}] = 0
		}
		return s
	}
}

func pathGitRepositories(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	ds, err := stringArrayOperand(ops[0], 1)
	if err != nil {
		return nil, err
	}
	o, err := optsOperand(ops[1], 2)
	if err != nil {
		return nil, err
	}
	cwd, home, err := cwdHome(o)
	if err != nil {
		return nil, err
	}
	shape := gitShape(bctx)
	var hits []*ast.Term
	for i := range ds.Len() {
		dt := ds.Elem(i)
		r := resolve(bctx, string(dt.Value.(ast.String)), cwd, home)
		for _, d := range []string{r.Real, r.Abs} {
			if repo, reason, found := paths.UnsafeRepository(d, shape); found {
				hits = append(hits, ast.ObjectTerm(
					ast.Item(keyPath, dt),
					ast.Item(keyRepository, ast.StringTerm(repo)),
					ast.Item(keyReason, ast.StringTerm(reason)),
				))
				break
			}
			if r.Real == r.Abs {
				break
			}
		}
	}
	return termsArray(hits), nil
}
