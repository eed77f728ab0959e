// Package hookproto speaks the agent hosts' hook protocols (Claude Code,
// OpenAI Codex, Gemini CLI): it turns a host's hook payload into permopa
// inputs (docs/api.md), a permopa decision into the host's answer, and any
// fault into a blocking answer. It also asks a running `permopa run
// --server` for decisions (Client).
//
// It imports no OPA package, on purpose: cmd/permopa-hook links only this
// package, so that a hook answered by a running server does not pay OPA's
// process start (tens of milliseconds of package initialisation). The
// adapter package decides locally with the engine and answers through the
// same code.
package hookproto

import (
	"encoding/json"
	"fmt"
)

// Behaviors of a Decision (the engine's, docs/api.md).
const (
	Allow = "ALLOW"
	Deny  = "DENY"
	Ask   = "ASK"
)

// Steps of a Decision that the answers look at.
const (
	StepAskRule      = "ask_rule"
	StepAllowRule    = "allow_rule"
	StepModeFallback = "mode_fallback"
	StepError        = "error"
)

// Codes of step "error" decisions that the answers look at.
const (
	CodeTimeout     = "timeout"
	CodeBadDecision = "bad_decision"
	CodeInputError  = "input_error"
)

// Rule is a permission rule as a Decision carries it (docs/api.md).
type Rule struct {
	ToolName    string  `json:"tool_name"`
	RuleContent *string `json:"rule_content"`
	Behavior    string  `json:"behavior"`
	Source      string  `json:"source,omitempty"`
	Layer       string  `json:"layer,omitempty"`
	Expires     string  `json:"expires,omitempty"`
}

// String renders the rule in Claude Code form: Tool or Tool(content).
func (r Rule) String() string {
	if r.RuleContent == nil || *r.RuleContent == "" {
		return r.ToolName
	}
	return r.ToolName + "(" + *r.RuleContent + ")"
}

// Decision is permopa's answer for one call, in the JSON of docs/api.md
// (what `permopa decide` prints and /v1/permission/check answers).
type Decision struct {
	Behavior       string `json:"behavior"`
	Message        string `json:"message"`
	Reason         string `json:"reason"`
	Step           string `json:"step"`
	BypassImmune   bool   `json:"bypass_immune"`
	MatchedRule    *Rule  `json:"matched_rule"`
	SuggestedRules []Rule `json:"suggested_rules"`
	ToolUseID      any    `json:"tool_use_id"`
	// Code is set on step "error" decisions.
	Code string `json:"code,omitempty"`
}

// failClosed is the DENY decision for a fault outside the engine.
func failClosed(code, message string) Decision {
	return Decision{Behavior: Deny, Message: message, Reason: code, Step: StepError, Code: code}
}

// validBehavior reports whether b is one of the three behaviors.
func validBehavior(b string) bool { return b == Allow || b == Deny || b == Ask }

// decodeDecision reads a Decision from JSON and checks that it is one: an
// object with a known behavior. Anything else is an error, so that a caller
// blocks instead of guessing.
func decodeDecision(data []byte) (Decision, error) {
	var d Decision
	if err := json.Unmarshal(data, &d); err != nil {
		return Decision{}, fmt.Errorf("the decision is not JSON: %v", err)
	}
	if !validBehavior(d.Behavior) {
		return Decision{}, fmt.Errorf("the decision has behavior %q (want ALLOW, DENY or ASK)", d.Behavior)
	}
	if d.Step == StepError && d.Code == "" {
		d.Code = d.Reason
	}
	return d, nil
}
