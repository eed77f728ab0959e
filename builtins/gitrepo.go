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

type dirProbeKey struct{}

// dirProbe is the evaluation's paths.DirProbe, kept in the query's
// built-in cache: every built-in of one decision that walks up to a git
// repository (git_repositories, project_configs, the write checks) looks
// at each directory once.
func dirProbe(bctx topdown.BuiltinContext) *paths.DirProbe {
	if bctx.Cache == nil {
		return nil
	}
	if v, ok := bctx.Cache.Get(dirProbeKey{}); ok {
		return v.(*paths.DirProbe)
	}
	p := paths.NewDirProbe()
	bctx.Cache.Put(dirProbeKey{}, p)
	return p
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
	probe := dirProbe(bctx)
	var hits []*ast.Term
	for i := range ds.Len() {
		dt := ds.Elem(i)
		r := resolve(bctx, string(dt.Value.(ast.String)), cwd, home)
		for _, d := range []string{r.Real, r.Abs} {
			if repo, reason, found := paths.UnsafeRepository(d, probe); found {
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
