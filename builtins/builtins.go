// Package builtins declares and implements permopa's custom Rego built-ins
// and registers them with OPA:
//
//	permopa.bash.analyze(command, opts)                 object   the bash analysis
//	permopa.bash.match(rule_content, command)           boolean  one Bash rule, deny semantics
//	permopa.bash.match_any(rule_contents, command, opts) number  first deny/ask rule hit, or -1
//	permopa.bash.match_certain(rule_contents, command, opts) number first rule a leaf shows, or -1
//	permopa.bash.uncertain(command, opts)               string   why the command runs what permopa cannot read
//	permopa.bash.covered(rule_contents, command, opts)  object   allow-rule coverage
//	permopa.bash.covered_lists(rule_lists, command, opts) object allow-rule coverage by several lists
//	permopa.bash.leaves_hit(rule_content, command, opts) array  leaves one deny/ask rule hits (explanations)
//	permopa.bash.leaf_coverage(rule_lists, command, opts) array allow-rule coverage per leaf (explanations)
//	permopa.bash.suggest(command, opts)                 array    suggested allow rules
//	permopa.bash.env_read(names)                        array    environment variable names programs may read
//	permopa.path.resolve(path, opts)                    object   {abs, real}
//	permopa.path.check(paths, opts)                     object   dangerous and credential paths
//	permopa.path.inside(paths, dirs, opts)              boolean  every path inside some dir
//	permopa.path.git_repositories(dirs, opts)           array    git repositories that are not a .git directory
//	permopa.path.project_configs(uses, opts)            array    project configuration that runs code, programs PATH finds in the project
//	permopa.glob.match_any(patterns, paths, opts)       number   first file rule hit/covering, or -1
//	permopa.glob.first(patterns, subject, opts)         number   first glob matching a string, or -1
//	permopa.call.context(input, settings, schema)       object   validated input and derived options
//	permopa.rules.lists(documents, tool, guards)        object   the indexed rule lists a call meets
//
// The bash built-ins wrap package builtins/bash, the path and glob ones
// package builtins/paths. The path and glob built-ins read the file system
// (symlinks), so they are declared non-deterministic: partial evaluation
// keeps them in the residual policy and decision logs can record their
// results.
//
// Errors follow OPA's conventions: a contract violation (an operand or an
// option of the wrong type, a rule that does not compile) is a built-in
// error naming what is wrong, which fails the query under
// StrictBuiltinErrors and is undefined otherwise; a domain outcome is data.
// No built-in answers "no match" by being undefined: it returns -1 or false.
//
// Call Register once before compiling policies (the permopa binary does so
// in main); embedders who want no global state use Options instead.
package builtins

//go:generate go test -run TestCapabilitiesFile -update .

import (
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// impl is the shape of every implementation: operands in, one result out.
type impl func(bctx topdown.BuiltinContext, operands []*ast.Term) (*ast.Term, error)

type builtin struct {
	decl *ast.Builtin
	impl impl
}

// all lists every built-in of the package, in the order of the package doc.
func all() []builtin {
	return []builtin{
		{BashAnalyze, bashAnalyze},
		{BashMatch, bashMatch},
		{BashMatchAny, bashMatchAny},
		{BashMatchCertain, bashMatchCertain},
		{BashUncertain, bashUncertain},
		{BashMatchReason, bashMatchReason},
		{BashCovered, bashCovered},
		{BashCoveredLists, bashCoveredLists},
		{BashLeavesHit, bashLeavesHit},
		{BashLeafCoverage, bashLeafCoverage},
		{BashSuggest, bashSuggest},
		{BashEnvRead, bashEnvRead},
		{PathResolve, pathResolve},
		{PathCheck, pathCheck},
		{PathInside, pathInside},
		{PathGitRepositories, pathGitRepositories},
		{PathProjectConfigs, pathProjectConfigs},
		{GlobMatchAny, globMatchAny},
		{GlobFirst, globFirst},
		{CallContext, callContext},
		{RulesLists, rulesLists},
	}
}

// Declarations returns the declarations of every permopa built-in.
func Declarations() []*ast.Builtin {
	bs := all()
	out := make([]*ast.Builtin, len(bs))
	for i, b := range bs {
		out[i] = b.decl
	}
	return out
}

var registerOnce sync.Once

// Register registers every permopa built-in with OPA, process-wide
// (ast.RegisterBuiltin and topdown.RegisterBuiltinFunc). It is idempotent.
// Everything compiled afterwards sees the built-ins: rego.New, the SDK,
// plugins.Manager and every OPA command.
func Register() {
	registerOnce.Do(func() {
		for _, b := range all() {
			ast.RegisterBuiltin(b.decl)
			topdown.RegisterBuiltinFunc(b.decl.Name, b.builtinFunc())
		}
	})
}

func (b builtin) builtinFunc() topdown.BuiltinFunc {
	f, name, nd, arity := b.impl, b.decl.Name, b.decl.Nondeterministic, b.decl.Decl.Arity()
	return func(bctx topdown.BuiltinContext, operands []*ast.Term, iter func(*ast.Term) error) error {
		t, err := f(bctx, operands)
		if err != nil {
			return err
		}
		if nd {
			record(bctx, name, operands[:min(arity, len(operands))], t) // record.go
		}
		return iter(t)
	}
}

// Options returns rego options that add every permopa built-in to one query
// only, for embedders who call rego.New themselves and want no global
// registration. It also works after Register (the per-query declarations
// shadow the global ones). Per-query functions carry no categories, as
// rego.Function has none.
func Options() []func(*rego.Rego) {
	bs := all()
	opts := make([]func(*rego.Rego), len(bs))
	for i, b := range bs {
		f := b.builtinFunc()
		opts[i] = rego.FunctionDyn(&rego.Function{
			Name:             b.decl.Name,
			Description:      b.decl.Description,
			Decl:             b.decl.Decl,
			Nondeterministic: b.decl.Nondeterministic,
		}, func(bctx rego.BuiltinContext, ops []*ast.Term) (t *ast.Term, err error) {
			err = f(bctx, ops, func(out *ast.Term) error { t = out; return nil })
			return t, err
		})
	}
	return opts
}
