package builtins

import (
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
	"github.com/open-policy-agent/opa/v1/types"
)

// BashLeavesHit is permopa.bash.leaves_hit.
var BashLeavesHit = &ast.Builtin{
	Name: "permopa.bash.leaves_hit",
	Description: "For explanations: the indexes (0-based) of the leaves of a command that one Bash deny or ask " +
		"rule content hits, by the matching of permopa.bash.match_any (every wrapper, flag-aware). When the " +
		"rule hits only because permopa cannot tell what the command runs, the leaves that run something " +
		"unknown. A rule content that does not compile is an error.",
	Categories: categoriesBash,
	Decl: types.NewFunction(
		types.Args(
			types.Named("rule_content", types.S).Description("the content of the Bash rule"),
			types.Named("command", types.S).Description("the command line"),
			namedOpts(bashOptsDoc),
		),
		types.Named("leaves", types.NewArray(nil, types.N)).Description("indexes of the leaves hit"),
	),
	// The context records the script files an analysis read, for the
	// decision cache (scriptFiles).
	CanSkipBctx: false,
}

func bashLeavesHit(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	rc, err := builtins.StringOperand(ops[0].Value, 1)
	if err != nil {
		return nil, err
	}
	ps, err := compileOne(string(rc))
	if err != nil {
		return nil, err
	}
	a, err := analyze(bctx, ops[1], ops[2], 2, 3)
	if err != nil {
		return nil, err
	}
	hits := a.LeavesHit(ps[0])
	terms := make([]*ast.Term, len(hits))
	for i, h := range hits {
		terms[i] = ast.InternedTerm(h)
	}
	return ast.ArrayTerm(terms...), nil
}

// BashLeafCoverage is permopa.bash.leaf_coverage.
var BashLeafCoverage = &ast.Builtin{
	Name: "permopa.bash.leaf_coverage",
	Description: "For explanations: per leaf of a command, what covers it for lists of Bash allow-rule contents " +
		"taken together, by the matching of permopa.bash.covered_lists: `needs_rule` is false for a leaf that is " +
		"read-only, else `list` and `index` name the first rule that covers the leaf (list order, then index), " +
		"both -1 when none does (also for every leaf of a command no rule can cover). A rule content that does " +
		"not compile is an error.",
	Categories: categoriesBash,
	Decl: types.NewFunction(
		types.Args(
			types.Named("rule_lists", types.NewArray(nil, stringArray())).Description("lists of Bash allow-rule contents"),
			types.Named("command", types.S).Description("the command line"),
			namedOpts(bashOptsDoc),
		),
		types.Named("coverage", types.NewArray(nil, types.NewObject([]*types.StaticProperty{
			types.NewStaticProperty("needs_rule", types.B),
			types.NewStaticProperty("list", types.N),
			types.NewStaticProperty("index", types.N),
		}, nil))).Description("per leaf, `{\"needs_rule\": boolean, \"list\": number, \"index\": number}`"),
	),
	// The context records the script files an analysis read, for the
	// decision cache (scriptFiles).
	CanSkipBctx: false,
}

var keyNeedsRule = ast.StringTerm("needs_rule")

func bashLeafCoverage(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	lists, sets, err := compileLists(ops[0])
	if err != nil {
		return nil, err
	}
	a, err := analyze(bctx, ops[1], ops[2], 2, 3)
	if err != nil {
		return nil, err
	}
	cov := a.LeafCoverage(lists, sets)
	terms := make([]*ast.Term, len(cov))
	for i, c := range cov {
		terms[i] = ast.ObjectTerm(
			ast.Item(keyNeedsRule, boolTerm(c.NeedsRule)),
			ast.Item(keyList, indexTerm(c.List)),
			ast.Item(keyIndex, indexTerm(c.Index)),
		)
	}
	return ast.ArrayTerm(terms...), nil
}
