package builtins

import (
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/permopa/permopa/builtins/paths"
)

// PathProjectConfigs is permopa.path.project_configs.
var PathProjectConfigs = &ast.Builtin{
	Name: "permopa.path.project_configs",
	Description: "For each program and directory it starts in, reads (bounded) the configuration the program " +
		"would load from the project, the directories above it and the repository (git: the repository's config, " +
		"config.worktree and their includes, hooks run on reads, submodule repositories; yarn: .yarnrc.yml, " +
		".yarnrc, package.json packageManager; npm and pnpm: .npmrc, pnpm also .pnpmfile.cjs and " +
		"pnpm-workspace.yaml; go: git's and other version-control systems' markers, and unless GOTOOLCHAIN is local " +
		"the go.work and go.mod whose go or toolchain line may make go switch toolchains; cargo and rustc: " +
		"rustup's toolchain file, cargo also .cargo/config.toml; info: the working directory's dir menu and " +
		"Info files) and reports every entry that makes the program run code, write or read other files; a " +
		"file that cannot be read or parsed is reported too; for every program, the file PATH finds when it " +
		"is inside the directory or its repository, or PATH has a relative entry, and when it is a version " +
		"manager's shim the files that manager chooses the program from (docs/shell.md). The " +
		"directory is resolved (symlinks followed) first; \"\" is one not known statically. Reads the file " +
		"system and the process's PATH, so it is non-deterministic.",
	Categories: categoriesPath,
	Decl: types.NewFunction(
		types.Args(
			types.Named("uses", types.NewArray(nil, types.NewObject([]*types.StaticProperty{
				types.NewStaticProperty("program", types.S),
				types.NewStaticProperty("dir", types.S),
			}, nil))).Description("`[{\"program\", \"dir\"}]` (permopa.bash.analyze's project_configs)"),
			namedOpts("options: "+cwdHomeDoc+unknownKeys),
		),
		types.Named("result", types.NewArray(nil, types.NewObject([]*types.StaticProperty{
			types.NewStaticProperty("program", types.S),
			types.NewStaticProperty("path", types.S),
			types.NewStaticProperty("file", types.S),
			types.NewStaticProperty("line", types.N),
			types.NewStaticProperty("key", types.S),
			types.NewStaticProperty("reason", types.S),
		}, nil))).Description("`[{\"program\", \"path\", \"file\", \"line\", \"key\", \"reason\"}]`: every finding, in order"),
	),
	Nondeterministic: true,
}

var (
	keyProgram = ast.StringTerm("program")
	keyDir     = ast.StringTerm("dir")
	keyFile    = ast.StringTerm("file")
	keyLine    = ast.StringTerm("line")
	keyKey     = ast.StringTerm("key")
)

func pathProjectConfigs(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	a, err := builtins.ArrayOperand(ops[0].Value, 1)
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
	cwdReal, cwdAbs := "", ""
	if cwd != "" {
		rc := resolve(bctx, cwd, cwd, home)
		cwdReal, cwdAbs = rc.Real, rc.Abs
	}
	var hits []*ast.Term
	for i := range a.Len() {
		obj, ok := a.Elem(i).Value.(ast.Object)
		if !ok {
			return nil, builtins.NewOperandElementErr(1, a, a.Elem(i).Value, "object")
		}
		prog, ok1 := get(obj, keyProgram).(ast.String)
		dir, ok2 := get(obj, keyDir).(ast.String)
		if !ok1 || !ok2 {
			return nil, builtins.NewOperandElementErr(1, a, a.Elem(i).Value, `object with string "program" and "dir"`)
		}
		if prog == "" || strings.Contains(string(prog), "/") {
			return nil, builtins.NewOperandErr(1, "program %q is not a command name", string(prog))
		}
		real, abs := "", "" // a directory not known statically
		if dir != "" {
			rd := resolve(bctx, string(dir), cwd, home)
			real, abs = rd.Real, rd.Abs
		}
		for _, f := range paths.ConfigFindingsCall(probe, string(prog), real, cwdReal, home, abs, cwdAbs) {
			hits = append(hits, ast.ObjectTerm(
				ast.Item(keyProgram, ast.StringTerm(string(prog))),
				ast.Item(keyPath, ast.StringTerm(shownDir(string(dir)))),
				ast.Item(keyFile, ast.StringTerm(f.File)),
				ast.Item(keyLine, ast.IntNumberTerm(f.Line)),
				ast.Item(keyKey, ast.StringTerm(f.Key)),
				ast.Item(keyReason, ast.StringTerm(f.Reason)),
			))
		}
	}
	return termsArray(hits), nil
}

// shownDir is a directory as a finding names it.
func shownDir(dir string) string {
	if dir == "" {
		return "a directory not known statically"
	}
	return dir
}
