package engine

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/permopa/permopa/permission"
)

// failClosed is the decision for any fault: DENY, step "error".
func failClosed(code, format string, args ...any) permission.Decision {
	return permission.FailClosed(code, fmt.Sprintf(format, args...))
}

// decode turns the policy's result into a Decision, failing closed on any
// shape it does not expect.
func decode(v any) permission.Decision {
	obj, ok := v.(map[string]any)
	if !ok {
		return failClosed(permission.CodeBadDecision, "policy result is not an object")
	}
	var d permission.Decision
	d.Behavior, _ = obj["behavior"].(string)
	switch d.Behavior {
	case permission.Allow, permission.Deny, permission.Ask:
	default:
		return failClosed(permission.CodeBadDecision, "policy result has behavior %q", obj["behavior"])
	}
	d.Message, _ = obj["message"].(string)
	d.Reason, _ = obj["reason"].(string)
	d.Step, _ = obj["step"].(string)
	d.Check, _ = obj["check"].(string)
	d.BypassImmune, _ = obj["bypass_immune"].(bool)
	d.ToolUseID = obj["tool_use_id"]
	if r, ok := obj["matched_rule"].(map[string]any); ok {
		rule := decodeRule(r)
		d.MatchedRule = &rule
	}
	d.SuggestedRules = []permission.Rule{}
	if rs, ok := obj["suggested_rules"].([]any); ok {
		for _, x := range rs {
			if r, ok := x.(map[string]any); ok {
				d.SuggestedRules = append(d.SuggestedRules, decodeRule(r))
			}
		}
	}
	if d.Step == permission.StepError {
		d.Code = d.Reason
	}
	return d
}

func decodeRule(m map[string]any) permission.Rule {
	var r permission.Rule
	r.ToolName, _ = m["tool_name"].(string)
	if c, ok := m["rule_content"].(string); ok && c != "" {
		r.RuleContent = &c
	}
	r.Behavior, _ = m["behavior"].(string)
	r.Source, _ = m["source"].(string)
	r.Layer, _ = m["layer"].(string)
	r.Expires, _ = m["expires"].(string)
	return r
}

// resultValue hands the query's result over as OPA's value
// (rego.EvalGenerateJSON) instead of converting it to Go values first:
// decodeValue reads the few fields a Decision has straight from it.
func resultValue(t *ast.Term, _ *rego.EvalContext) (any, error) { return t.Value, nil }

var (
	resultBehavior       = ast.InternedTerm("behavior")
	resultMessage        = ast.InternedTerm("message")
	resultReason         = ast.InternedTerm("reason")
	resultStep           = ast.InternedTerm("step")
	resultCheck          = ast.InternedTerm("check")
	resultBypassImmune   = ast.InternedTerm("bypass_immune")
	resultToolUseID      = ast.InternedTerm("tool_use_id")
	resultMatchedRule    = ast.InternedTerm("matched_rule")
	resultSuggestedRules = ast.InternedTerm("suggested_rules")
	resultToolName       = ast.InternedTerm("tool_name")
	resultRuleContent    = ast.InternedTerm("rule_content")
	resultSource         = ast.InternedTerm("source")
	resultLayer          = ast.InternedTerm("layer")
	resultExpires        = ast.InternedTerm("expires")
)

// decodeValue is decode of the result as OPA's value: the same Decision
// for the same result (TestDecodeValueAsDecode).
func decodeValue(v ast.Value) permission.Decision {
	obj, ok := v.(ast.Object)
	if !ok {
		return failClosed(permission.CodeBadDecision, "policy result is not an object")
	}
	var d permission.Decision
	d.Behavior = stringField(obj, resultBehavior)
	switch d.Behavior {
	case permission.Allow, permission.Deny, permission.Ask:
	default:
		return failClosed(permission.CodeBadDecision, "policy result has behavior %q", goField(obj, resultBehavior))
	}
	d.Message = stringField(obj, resultMessage)
	d.Reason = stringField(obj, resultReason)
	d.Step = stringField(obj, resultStep)
	d.Check = stringField(obj, resultCheck)
	if t := obj.Get(resultBypassImmune); t != nil {
		b, _ := t.Value.(ast.Boolean)
		d.BypassImmune = bool(b)
	}
	d.ToolUseID = goField(obj, resultToolUseID)
	if t := obj.Get(resultMatchedRule); t != nil {
		if r, ok := t.Value.(ast.Object); ok {
			rule := decodeRuleValue(r)
			d.MatchedRule = &rule
		}
	}
	d.SuggestedRules = []permission.Rule{}
	if t := obj.Get(resultSuggestedRules); t != nil {
		if rs, ok := t.Value.(*ast.Array); ok {
			for i := range rs.Len() {
				if r, ok := rs.Elem(i).Value.(ast.Object); ok {
					d.SuggestedRules = append(d.SuggestedRules, decodeRuleValue(r))
				}
			}
		}
	}
	if d.Step == permission.StepError {
		d.Code = d.Reason
	}
	return d
}

func decodeRuleValue(m ast.Object) permission.Rule {
	var r permission.Rule
	r.ToolName = stringField(m, resultToolName)
	if c := stringField(m, resultRuleContent); c != "" {
		r.RuleContent = &c
	}
	r.Behavior = stringField(m, resultBehavior)
	r.Source = stringField(m, resultSource)
	r.Layer = stringField(m, resultLayer)
	r.Expires = stringField(m, resultExpires)
	return r
}

// stringField is obj[key] when it is a string, else "".
func stringField(obj ast.Object, key *ast.Term) string {
	if t := obj.Get(key); t != nil {
		if s, ok := t.Value.(ast.String); ok {
			return string(s)
		}
	}
	return ""
}

// goField is obj[key] as the Go value rego's result conversion makes of
// it (nil when missing).
func goField(obj ast.Object, key *ast.Term) any {
	t := obj.Get(key)
	if t == nil {
		return nil
	}
	v, err := ast.JSONWithOpt(t.Value, ast.JSONOpt{})
	if err != nil {
		return nil
	}
	return v
}
