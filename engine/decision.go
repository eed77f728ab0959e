package engine

import (
	"fmt"

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
