package builtins

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
	"github.com/open-policy-agent/opa/v1/types"
)

// RulesLists is permopa.rules.lists.
var RulesLists = &ast.Builtin{
	Name: "permopa.rules.lists",
	Description: "Looks up, in rule documents indexed per behavior and tool (`index[behavior][tool]` = " +
		"`{wide, rules, contents}`, as permopa's settings document and `permopa rules export` write them), " +
		"the rule lists a call meets: `own[behavior]`, the call's tool's lists that hold any rule, in source " +
		"order; `cross[behavior]` (deny and ask), `[what, list]` for each guarding tool's list with contents; " +
		"`patterns`, whether any document holds tool-name pattern rules. One keyed lookup per document, " +
		"behavior and tool: no rule is visited. A document that is not an object is skipped; a malformed " +
		"index is an error, so a damaged deny list fails the decision instead of vanishing.",
	Categories: []string{"permopa", "permopa.rules"},
	Decl: types.NewFunction(
		types.Args(
			types.Named("documents", types.NewArray(nil, types.A)).Description("rule documents, in source order"),
			types.Named("tool", types.S).Description("the call's tool name"),
			types.Named("guards", types.NewArray(nil, types.NewArray(nil, types.S))).
				Description("`[tool, what]` pairs: tools whose deny and ask path rules also guard the call"),
		),
		types.Named("lists", types.NewObject(nil, types.NewDynamicProperty(types.S, types.A))).
			Description("`{own: {deny, ask, allow}, cross: {deny, ask}, patterns}`"),
	),
}

var (
	behaviorTerms = []*ast.Term{ast.InternedTerm("deny"), ast.InternedTerm("ask"), ast.InternedTerm("allow")}
	keyRuleIndex  = ast.InternedTerm("index")
	keyWide       = ast.InternedTerm("wide")
	keyContents   = ast.InternedTerm("contents")
	keyPatterns   = ast.InternedTerm("tool_pattern_rules")
)

func rulesLists(_ topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	docs, err := builtins.ArrayOperand(ops[0].Value, 1)
	if err != nil {
		return nil, err
	}
	tool, err := builtins.StringOperand(ops[1].Value, 2)
	if err != nil {
		return nil, err
	}
	guards, err := builtins.ArrayOperand(ops[2].Value, 3)
	if err != nil {
		return nil, err
	}
	toolTerm := ast.StringTerm(string(tool))
	var own [3][]*ast.Term
	var cross [2][]*ast.Term
	patterns := false
	var ferr error
	docs.Foreach(func(d *ast.Term) {
		doc, ok := d.Value.(ast.Object)
		if !ok || ferr != nil {
			return
		}
		if p := doc.Get(keyPatterns); p != nil {
			if po, ok := p.Value.(ast.Object); ok {
				po.Foreach(func(_, v *ast.Term) {
					if a, ok := v.Value.(*ast.Array); ok && a.Len() > 0 {
						patterns = true
					}
				})
			}
		}
		ixTerm := doc.Get(keyRuleIndex)
		if ixTerm == nil {
			return
		}
		index, ok := ixTerm.Value.(ast.Object)
		if !ok {
			ferr = builtins.NewOperandErr(1, "index: not an object")
			return
		}
		for bi, b := range behaviorTerms {
			byTool, err := lookupObject(index, b)
			if err != nil {
				ferr = err
				return
			}
			if byTool == nil {
				continue
			}
			if l, err := ruleList(byTool, b, toolTerm); err != nil {
				ferr = err
				return
			} else if l != nil && (l.wide > 0 || l.contents > 0) {
				own[bi] = append(own[bi], l.term)
			}
			if bi == 2 {
				continue
			}
			guards.Foreach(func(g *ast.Term) {
				pair, ok := g.Value.(*ast.Array)
				if ferr != nil || !ok || pair.Len() != 2 {
					return
				}
				l, err := ruleList(byTool, b, pair.Elem(0))
				if err != nil {
					ferr = err
					return
				}
				if l != nil && l.contents > 0 {
					cross[bi] = append(cross[bi], ast.ArrayTerm(pair.Elem(1), l.term))
				}
			})
		}
	})
	if ferr != nil {
		return nil, ferr
	}
	if guards.Len() > 0 {
		// Guards must be well formed: a pair that is not [tool, what] would
		// drop deny rules silently.
		var gerr error
		guards.Foreach(func(g *ast.Term) {
			if pair, ok := g.Value.(*ast.Array); !ok || pair.Len() != 2 {
				gerr = builtins.NewOperandErr(3, "guards: want [tool, what] pairs")
			}
		})
		if gerr != nil {
			return nil, gerr
		}
	}
	ownObj := ast.NewObject(
		ast.Item(behaviorTerms[0], ast.ArrayTerm(own[0]...)),
		ast.Item(behaviorTerms[1], ast.ArrayTerm(own[1]...)),
		ast.Item(behaviorTerms[2], ast.ArrayTerm(own[2]...)),
	)
	crossObj := ast.NewObject(
		ast.Item(behaviorTerms[0], ast.ArrayTerm(cross[0]...)),
		ast.Item(behaviorTerms[1], ast.ArrayTerm(cross[1]...)),
	)
	return ast.ObjectTerm(
		ast.Item(ast.InternedTerm("own"), ast.NewTerm(ownObj)),
		ast.Item(ast.InternedTerm("cross"), ast.NewTerm(crossObj)),
		ast.Item(ast.InternedTerm("patterns"), ast.InternedTerm(patterns)),
	), nil
}

func lookupObject(o ast.Object, key *ast.Term) (ast.Object, error) {
	t := o.Get(key)
	if t == nil {
		return nil, nil
	}
	v, ok := t.Value.(ast.Object)
	if !ok {
		return nil, builtins.NewOperandErr(1, "index.%s: not an object", plain(key))
	}
	return v, nil
}

type list struct {
	term           *ast.Term
	wide, contents int
}

// ruleList is index[b][tool] with its counts; nil when absent.
func ruleList(byTool ast.Object, b, tool *ast.Term) (*list, error) {
	t := byTool.Get(tool)
	if t == nil {
		return nil, nil
	}
	where := func() string { return fmt.Sprintf("index.%s[%s]", plain(b), tool.Value) }
	o, ok := t.Value.(ast.Object)
	if !ok {
		return nil, builtins.NewOperandErr(1, "%s: not an object", where())
	}
	l := &list{term: t}
	for _, k := range []*ast.Term{keyWide, keyContents} {
		v := o.Get(k)
		if v == nil {
			continue
		}
		a, ok := v.Value.(*ast.Array)
		if !ok {
			return nil, builtins.NewOperandErr(1, "%s.%s: not an array", where(), plain(k))
		}
		if k == keyWide {
			l.wide = a.Len()
		} else {
			l.contents = a.Len()
		}
	}
	return l, nil
}

func plain(t *ast.Term) string {
	if s, ok := t.Value.(ast.String); ok {
		return string(s)
	}
	return t.Value.String()
}
