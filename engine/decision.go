package engine

import (
	"encoding/json"
	"fmt"

	"github.com/permopa/permopa/settings"
)

// Behaviors of a Decision.
const (
	Allow = "ALLOW"
	Deny  = "DENY"
	Ask   = "ASK"
)

// Steps name the decision point that decided (docs/api.md).
const (
	StepDenyRule     = "deny_rule"
	StepAskRule      = "ask_rule"
	StepReadOnly     = "read_only"
	StepToolCheck    = "tool_check"
	StepAllowRule    = "allow_rule"
	StepModeFallback = "mode_fallback"
	StepError        = "error"
)

// Error codes, stable strings carried by DENY decisions with step "error".
const (
	CodeInputError        = "input_error"        // the input failed validation (the message names the field)
	CodeInvalidJSON       = "invalid_json"       // the input is not JSON
	CodeEvalError         = "eval_error"         // policy evaluation failed
	CodeTimeout           = "timeout"            // evaluation was cancelled or timed out
	CodeUndefinedDecision = "undefined_decision" // the policy produced no decision
	CodeBadDecision       = "bad_decision"       // the policy produced something that is not a decision
	// CodeSettingsUnreadable: a settings file's deny or ask rules could not
	// be read (settings.Settings.Unreadable); every call is denied until it is fixed.
	CodeSettingsUnreadable = "settings_unreadable"
)

// Rule is a permission rule (settings.Rule: rules belong to the settings).
type Rule = settings.Rule

// Rule syntaxes (Rule.Syntax).
const (
	SyntaxClaude     = settings.SyntaxClaude
	SyntaxAgentScope = settings.SyntaxAgentScope
)

// Decision is the answer for one tool call (docs/api.md).
type Decision struct {
	Behavior       string `json:"behavior"`
	Message        string `json:"message"`
	Reason         string `json:"reason"`
	Step           string `json:"step"`
	BypassImmune   bool   `json:"bypass_immune"`
	MatchedRule    *Rule  `json:"matched_rule"`
	SuggestedRules []Rule `json:"suggested_rules"`
	ToolUseID      any    `json:"tool_use_id"`
	// Code is set on step "error" decisions: one of the Code* constants.
	Code string `json:"code,omitempty"`
	// DecisionID names the decision in a server's answers and decision
	// logs; a confirmation of an ASK names it (docs/opa.md). The engine
	// leaves it empty.
	DecisionID string `json:"decision_id,omitempty"`
	// Line is the input line an error decision of `permopa decide` answers
	// (adapter.DecideStream), 0 elsewhere.
	Line int `json:"line,omitempty"`
}

// failClosed is the decision for any fault: DENY, step "error".
func failClosed(code, format string, args ...any) Decision {
	return Decision{
		Behavior:       Deny,
		Message:        fmt.Sprintf(format, args...),
		Reason:         code,
		Step:           StepError,
		SuggestedRules: []Rule{},
		Code:           code,
	}
}

// FailClosed builds the DENY decision hosts use for faults outside the
// engine (unreadable input, a dead server): step "error" and code.
func FailClosed(code, message string) Decision { return failClosed(code, "%s", message) }

// decode turns the policy's result into a Decision, failing closed on any
// shape it does not expect.
func decode(v any) Decision {
	obj, ok := v.(map[string]any)
	if !ok {
		return failClosed(CodeBadDecision, "policy result is not an object")
	}
	var d Decision
	d.Behavior, _ = obj["behavior"].(string)
	switch d.Behavior {
	case Allow, Deny, Ask:
	default:
		return failClosed(CodeBadDecision, "policy result has behavior %q", obj["behavior"])
	}
	d.Message, _ = obj["message"].(string)
	d.Reason, _ = obj["reason"].(string)
	d.Step, _ = obj["step"].(string)
	d.BypassImmune, _ = obj["bypass_immune"].(bool)
	d.ToolUseID = obj["tool_use_id"]
	if r, ok := obj["matched_rule"].(map[string]any); ok {
		rule := decodeRule(r)
		d.MatchedRule = &rule
	}
	d.SuggestedRules = []Rule{}
	if rs, ok := obj["suggested_rules"].([]any); ok {
		for _, x := range rs {
			if r, ok := x.(map[string]any); ok {
				d.SuggestedRules = append(d.SuggestedRules, decodeRule(r))
			}
		}
	}
	if d.Step == StepError {
		d.Code = d.Reason
	}
	return d
}

func decodeRule(m map[string]any) Rule {
	var r Rule
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

// MarshalJSON keeps suggested_rules an array even when empty.
func (d Decision) MarshalJSON() ([]byte, error) {
	type plain Decision
	if d.SuggestedRules == nil {
		d.SuggestedRules = []Rule{}
	}
	return json.Marshal(plain(d))
}
