package builtins

import (
	"fmt"
	"slices"

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
		"the rule lists a call meets. The documents, in source order: the organisation's, the settings " +
		"document, then the settings' `projects[key]` (key: the call's `project_dir` when it is a string, " +
		"else its `cwd`) and `session_rules[session_id]`. Returns `own[behavior]`, the lists of the call's " +
		"`tool_name` that hold any rule, in source order; `cross[behavior]` (deny and ask), `[what, list]` " +
		"for each guarding tool's list with contents (a guard `[tool, \"own\"]` makes that tool's lists, allow " +
		"included, part of `own`: Claude Code's MultiEdit meets Edit's rules as its own); `patterns`, whether any document holds tool-name " +
		"pattern rules; `none`, whether no list at all was met. One keyed lookup per document, behavior and " +
		"tool: no rule is visited. A document " +
		"that is not an object is skipped; a malformed index is an error, so a damaged deny list fails the " +
		"decision instead of vanishing.",
	Categories: []string{"permopa", "permopa.rules"},
	Decl: types.NewFunction(
		types.Args(
			types.Named("org", types.A).Description("the organisation's rules document (data.permopa.rules), or {}"),
			types.Named("settings", types.A).Description("the settings document (data.permopa.settings), or {}"),
			types.Named("call", types.A).Description("the call (the input): tool_name, session_id, project_dir, cwd"),
			types.Named("guards", types.NewArray(nil, types.NewArray(nil, types.S))).
				Description("`[tool, what]` pairs: tools whose deny and ask path rules also guard the call; `[tool, \"own\"]`: tools whose rules are the call's own"),
		),
		types.Named("lists", types.NewObject(nil, types.NewDynamicProperty(types.S, types.A))).
			Description("`{own: {deny, ask, allow}, cross: {deny, ask}, patterns, none}`"),
	),
}

var (
	behaviorTerms = []*ast.Term{ast.InternedTerm("deny"), ast.InternedTerm("ask"), ast.InternedTerm("allow")}
	keyRuleIndex  = ast.InternedTerm("index")
	keyWide       = ast.InternedTerm("wide")
	keyContents   = ast.InternedTerm("contents")
	keyPatterns   = ast.InternedTerm("tool_pattern_rules")
	ownGuard      = ast.String("own")
)

var (
	keyProjectDir   = ast.InternedTerm("project_dir")
	keyCwdTerm      = ast.InternedTerm("cwd")
	keyProjects     = ast.InternedTerm("projects")
	keySessionRules = ast.InternedTerm("session_rules")
	emptyString     = ast.InternedTerm("")
)

func rulesLists(_ topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	guards, err := builtins.ArrayOperand(ops[3].Value, 4)
	if err != nil {
		return nil, err
	}
	var toolTerm *ast.Term
	call, _ := ops[2].Value.(ast.Object)
	if call != nil {
		if t := call.Get(keyToolName); t != nil {
			if _, ok := t.Value.(ast.String); ok {
				toolTerm = t
			}
		}
	}
	// The documents in source order: org, settings, the call's project and
	// session (missing ones are skipped).
	docs := ast.NewArray(ops[0], ops[1])
	if settings, ok := ops[1].Value.(ast.Object); ok && call != nil {
		key := call.Get(keyProjectDir)
		if key == nil || !isString(key) {
			key = call.Get(keyCwdTerm)
		}
		if key != nil {
			if projects := settings.Get(keyProjects); projects != nil {
				if po, ok := projects.Value.(ast.Object); ok {
					if d := po.Get(key); d != nil {
						docs = docs.Append(d)
					}
				}
			}
		}
		sid := call.Get(keySessionID)
		if sid == nil {
			sid = emptyString
		}
		if sessions := settings.Get(keySessionRules); sessions != nil {
			if so, ok := sessions.Value.(ast.Object); ok {
				if d := so.Get(sid); d != nil {
					docs = docs.Append(d)
				}
			}
		}
	}
	if toolTerm == nil {
		// Not a call the policy decides on its merits (invalid input is
		// denied before any rule is consulted): it meets no list.
		docs = ast.NewArray()
		toolTerm = emptyString
	}
	var own [3][]*ast.Term
	var cross [2][]*ast.Term
	// The tools whose rules the call meets: its own and the guards'.
	names := []string{}
	if s, ok := toolTerm.Value.(ast.String); ok && s != "" {
		names = append(names, string(s))
	}
	guards.Foreach(func(g *ast.Term) {
		if pair, ok := g.Value.(*ast.Array); ok && pair.Len() == 2 {
			if s, ok := pair.Elem(0).Value.(ast.String); ok && !slices.Contains(names, string(s)) {
				names = append(names, string(s))
			}
		}
	})
	patterns := map[string]*[3][]*ast.Term{}
	var ferr error
	j := -1
	docs.Foreach(func(d *ast.Term) {
		// Errors name the operand the document came from: the org's, or
		// the settings (with its project and session documents).
		j++
		pos := 2
		if j == 0 {
			pos = 1
		}
		doc, ok := d.Value.(ast.Object)
		if !ok || ferr != nil {
			return
		}
		if p := doc.Get(keyPatterns); p != nil {
			if err := patternRules(p, names, pos, patterns); err != nil {
				ferr = err
				return
			}
		}
		ixTerm := doc.Get(keyRuleIndex)
		if ixTerm == nil {
			return
		}
		index, ok := ixTerm.Value.(ast.Object)
		if !ok {
			ferr = builtins.NewOperandErr(pos, "index: not an object")
			return
		}
		for bi, b := range behaviorTerms {
			byTool, err := lookupObject(index, b, pos)
			if err != nil {
				ferr = err
				return
			}
			if byTool == nil {
				continue
			}
			if l, err := ruleList(byTool, b, toolTerm, pos); err != nil {
				ferr = err
				return
			} else if l != nil && (l.wide > 0 || l.contents > 0) {
				own[bi] = append(own[bi], l.term)
			}
			guards.Foreach(func(g *ast.Term) {
				pair, ok := g.Value.(*ast.Array)
				if ferr != nil || !ok || pair.Len() != 2 {
					return
				}
				l, err := ruleList(byTool, b, pair.Elem(0), pos)
				if err != nil {
					ferr = err
					return
				}
				switch {
				case l == nil:
				case pair.Elem(1).Value.Compare(ownGuard) == 0:
					// The call meets this tool's rules as its own.
					if l.wide > 0 || l.contents > 0 {
						own[bi] = append(own[bi], l.term)
					}
				case bi < 2 && l.contents > 0:
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
				gerr = builtins.NewOperandErr(4, "guards: want [tool, what] pairs")
			}
		})
		if gerr != nil {
			return nil, gerr
		}
	}
	none := len(own[0])+len(own[1])+len(own[2])+len(cross[0])+len(cross[1]) == 0
	if none && len(patterns) == 0 {
		// The common call meets no rule list at all: one answer, built once.
		return noRuleLists, nil
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
	patObj := ast.NewObject()
	for _, name := range names {
		if p := patterns[name]; p != nil {
			patObj.Insert(ast.StringTerm(name), ast.ObjectTerm(
				ast.Item(behaviorTerms[0], ast.ArrayTerm(p[0]...)),
				ast.Item(behaviorTerms[1], ast.ArrayTerm(p[1]...)),
				ast.Item(behaviorTerms[2], ast.ArrayTerm(p[2]...)),
			))
		}
	}
	return rulesListsResult(ownObj, crossObj, patObj, len(patterns) > 0, none), nil
}

var (
	keyOwn          = ast.StringTerm("own")
	keyCross        = ast.StringTerm("cross")
	keyPatternsSeen = ast.StringTerm("patterns")
	keyPatternRules = ast.StringTerm("pattern_rules")
	keyNone         = ast.StringTerm("none")

	// noRuleLists is permopa.rules.lists' answer for a call that meets no
	// rule list: every list empty, no pattern rule.
	noRuleLists = rulesListsResult(
		ast.NewObject(
			ast.Item(behaviorTerms[0], ast.InternedEmptyArray),
			ast.Item(behaviorTerms[1], ast.InternedEmptyArray),
			ast.Item(behaviorTerms[2], ast.InternedEmptyArray),
		),
		ast.NewObject(
			ast.Item(behaviorTerms[0], ast.InternedEmptyArray),
			ast.Item(behaviorTerms[1], ast.InternedEmptyArray),
		),
		ast.NewObject(), false, true,
	)
)

func rulesListsResult(own, cross, patternRules ast.Object, patterns, none bool) *ast.Term {
	return ast.ObjectTerm(
		ast.Item(keyOwn, ast.NewTerm(own)),
		ast.Item(keyCross, ast.NewTerm(cross)),
		ast.Item(keyPatternsSeen, ast.InternedTerm(patterns)),
		ast.Item(keyPatternRules, ast.NewTerm(patternRules)),
		ast.Item(keyNone, ast.InternedTerm(none)),
	)
}

// patternRules adds to out[name][behavior], for each of names, the rules of
// one document's tool_pattern_rules whose tool_name (a glob.match pattern,
// "." its delimiter as glob.match's default) matches name, in order. The
// tool names of a list are compiled and indexed once (cached with the list,
// which is stored per data revision), so no rule is visited per call. A
// malformed list is an error: a pattern deny rule must not vanish.
func patternRules(p *ast.Term, names []string, pos int, out map[string]*[3][]*ast.Term) error {
	po, ok := p.Value.(ast.Object)
	if !ok {
		return builtins.NewOperandErr(pos, "tool_pattern_rules: not an object")
	}
	for bi, b := range behaviorTerms {
		t := po.Get(b)
		if t == nil {
			continue
		}
		rules, ok := t.Value.(*ast.Array)
		if !ok {
			return builtins.NewOperandErr(pos, "tool_pattern_rules.%s: not an array", plain(b))
		}
		if rules.Len() == 0 {
			continue
		}
		set, err := globSets.get(rules, "\x00tool_names", "", func() (*globSet, error) {
			ns := make([]string, rules.Len())
			for i := range ns {
				r, ok := rules.Elem(i).Value.(ast.Object)
				var n *ast.Term
				if ok {
					n = r.Get(keyToolName)
				}
				if n == nil {
					return nil, builtins.NewOperandErr(pos, "tool_pattern_rules.%s[%d].tool_name: missing", plain(b), i)
				}
				s, ok := n.Value.(ast.String)
				if !ok {
					return nil, builtins.NewOperandErr(pos, "tool_pattern_rules.%s[%d].tool_name: not a string", plain(b), i)
				}
				ns[i] = string(s)
			}
			set, err := newGlobSet(ns, globSpec{delims: []rune{'.'}})
			if err != nil {
				return nil, builtins.NewOperandErr(pos, "tool_pattern_rules.%s: %v", plain(b), err)
			}
			return set, nil
		})
		if err != nil {
			return err
		}
		for _, name := range names {
			ids := set.all(name)
			if len(ids) == 0 {
				continue
			}
			o := out[name]
			if o == nil {
				o = &[3][]*ast.Term{}
				out[name] = o
			}
			for _, i := range ids {
				o[bi] = append(o[bi], rules.Elem(i))
			}
		}
	}
	return nil
}

func lookupObject(o ast.Object, key *ast.Term, pos int) (ast.Object, error) {
	t := o.Get(key)
	if t == nil {
		return nil, nil
	}
	v, ok := t.Value.(ast.Object)
	if !ok {
		return nil, builtins.NewOperandErr(pos, "index.%s: not an object", plain(key))
	}
	return v, nil
}

type list struct {
	term           *ast.Term
	wide, contents int
}

// ruleList is index[b][tool] with its counts; nil when absent.
func ruleList(byTool ast.Object, b, tool *ast.Term, pos int) (*list, error) {
	t := byTool.Get(tool)
	if t == nil {
		return nil, nil
	}
	where := func() string { return fmt.Sprintf("index.%s[%s]", plain(b), tool.Value) }
	o, ok := t.Value.(ast.Object)
	if !ok {
		return nil, builtins.NewOperandErr(pos, "%s: not an object", where())
	}
	l := &list{term: t}
	for _, k := range []*ast.Term{keyWide, keyContents} {
		v := o.Get(k)
		if v == nil {
			continue
		}
		a, ok := v.Value.(*ast.Array)
		if !ok {
			return nil, builtins.NewOperandErr(pos, "%s.%s: not an array", where(), plain(k))
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
