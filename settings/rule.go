package settings

// Behaviors of a rule, as the policy and engine.Decision spell them.
const (
	allow = "ALLOW"
	deny  = "DENY"
	ask   = "ASK"
)

// Rule is a permission rule: Claude Code's Tool(content) or AgentScope's
// PermissionRule, with the settings layer it came from.
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

// Rule syntaxes (Rule.Syntax).
const (
	SyntaxClaude     = "claude"
	SyntaxAgentScope = "agentscope"
)

// String renders the rule in Claude Code form: Tool or Tool(content).
func (r Rule) String() string {
	if r.RuleContent == nil || *r.RuleContent == "" {
		return r.ToolName
	}
	return r.ToolName + "(" + *r.RuleContent + ")"
}
