package permission

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Behaviors of a Decision and a Rule.
const (
	Allow = "ALLOW"
	Deny  = "DENY"
	Ask   = "ASK"
)

// Steps name the decision point that decided (docs/decision.md).
const (
	StepDenyRule = "deny_rule"
	// StepDenyRuleUncertain: a deny rule could match, because permopa
	// cannot read what the command runs (a safety ASK, or DENY where
	// nobody can answer).
	StepDenyRuleUncertain = "deny_rule_uncertain"
	StepAskRule           = "ask_rule"
	StepReadOnly          = "read_only"
	StepToolCheck         = "tool_check"
	StepAllowRule         = "allow_rule"
	StepModeFallback      = "mode_fallback"
	// StepError is a fault: the decision is a DENY and Code says which.
	StepError = "error"
)

// Rule syntaxes (Rule.Syntax).
const (
	SyntaxClaude     = "claude"
	SyntaxAgentScope = "agentscope"
)

// Rule is a permission rule: Claude Code's Tool(content) or AgentScope's
// PermissionRule, with the settings layer it came from (docs/rules.md).
type Rule struct {
	ToolName string `json:"tool_name"`
	// RuleContent is nil for a rule that covers every call of the tool.
	RuleContent *string `json:"rule_content"`
	Behavior    string  `json:"behavior"`
	Source      string  `json:"source,omitempty"`
	Layer       string  `json:"layer,omitempty"`
	// Expires is an RFC 3339 time after which the rule stops matching ("" never).
	Expires string `json:"expires,omitempty"`
	// Syntax says how the content of a path rule (Read, Write, Edit, ...)
	// reads: SyntaxClaude ("" too), Claude Code's gitignore patterns, or
	// SyntaxAgentScope, AgentScope's fnmatch on the path as written. Rules
	// that arrive as AgentScope objects (permission_context, *_rules
	// documents, ConfirmResult objects) are SyntaxAgentScope; docs/rules.md.
	Syntax string `json:"syntax,omitempty"`
	// Project is the directory a Claude Code path rule's "/path" is
	// relative to: the project whose settings the rule came from ("": not
	// known, the call's cwd stands in).
	Project string `json:"project,omitempty"`
}

// String renders the rule in Claude Code form: Tool or Tool(content).
func (r Rule) String() string {
	if r.RuleContent == nil || *r.RuleContent == "" {
		return r.ToolName
	}
	return r.ToolName + "(" + *r.RuleContent + ")"
}

// ExpiresAt is the rule's expiry, if it has one. An expiry that does not
// parse counts as already past for an allow rule and as never for a deny or
// ask rule: a damaged expiry must not widen what is allowed.
func (r Rule) ExpiresAt() (time.Time, bool) {
	if r.Expires == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, r.Expires)
	if err != nil {
		if strings.EqualFold(r.Behavior, Allow) {
			return time.Time{}, true
		}
		return time.Time{}, false
	}
	return t, true
}

// ExpiredAt reports whether the rule has stopped matching at now.
func (r Rule) ExpiredAt(now time.Time) bool {
	t, ok := r.ExpiresAt()
	return ok && !now.Before(t)
}

// Decision is the answer for one tool call (docs/api.md): what
// `permopa decide` prints, /v1/permission/check answers and the engine
// returns.
type Decision struct {
	Behavior string `json:"behavior"`
	Message  string `json:"message"`
	Reason   string `json:"reason"`
	Step     string `json:"step"`
	// Check is the id of the check that decided at step "tool_check" or
	// "deny_rule_uncertain": one of the Check* constants ("" elsewhere,
	// and for a check of an extended policy that names none).
	Check          string `json:"check,omitempty"`
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
	// Line is the input line an error decision of `permopa decide` answers,
	// 0 elsewhere.
	Line int `json:"line,omitempty"`
}

// MarshalJSON keeps suggested_rules an array even when empty.
func (d Decision) MarshalJSON() ([]byte, error) {
	type plain Decision
	if d.SuggestedRules == nil {
		d.SuggestedRules = []Rule{}
	}
	return json.Marshal(plain(d))
}

// FailClosed is the decision for a fault: DENY, step "error", with code
// (one of the Code* constants) as its code and reason.
func FailClosed(code, message string) Decision {
	return Decision{
		Behavior:       Deny,
		Message:        message,
		Reason:         code,
		Step:           StepError,
		SuggestedRules: []Rule{},
		Code:           code,
	}
}

// ValidBehavior reports whether b is ALLOW, DENY or ASK.
func ValidBehavior(b string) bool { return b == Allow || b == Deny || b == Ask }

// ParseDecision reads a Decision from its JSON (a line of `permopa decide`,
// a server's check answer) and checks that it is one: an object with a
// known behavior. Anything else is an error, so that a caller blocks
// instead of guessing.
func ParseDecision(data []byte) (Decision, error) {
	var d Decision
	if err := json.Unmarshal(data, &d); err != nil {
		return Decision{}, fmt.Errorf("the decision is not JSON: %v", err)
	}
	if !ValidBehavior(d.Behavior) {
		return Decision{}, fmt.Errorf("the decision has behavior %q (want ALLOW, DENY or ASK)", d.Behavior)
	}
	if d.Step == StepError && d.Code == "" {
		d.Code = d.Reason
	}
	return d, nil
}
