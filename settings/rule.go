package settings

// rule.go: rules: ParseRule and RuleFrom read one, ValidateRule checks it as the policy will use it.

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gobwas/glob"

	"github.com/permopa/permopa/builtins/bash"
	"github.com/permopa/permopa/builtins/paths"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/rego/tables"
)

// Behaviors of a rule (permission.Rule.Behavior), as the policy spells them.
const (
	allow = permission.Allow
	deny  = permission.Deny
	ask   = permission.Ask
)

// SameRule reports whether a and b are the same rule (tool, content and
// behavior), whatever their layer and expiry.
func SameRule(a, b permission.Rule) bool {
	return a.ToolName == b.ToolName && a.String() == b.String() && strings.EqualFold(a.Behavior, b.Behavior)
}

// ParseRule reads a rule in Claude Code form, "Tool" or "Tool(content)".
func ParseRule(s, behavior string) (permission.Rule, error) {
	s = strings.TrimSpace(s)
	r := permission.Rule{Behavior: strings.ToUpper(behavior)}
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if s == "" || strings.ContainsAny(s, ") \t") {
			return r, fmt.Errorf("rule %q: want Tool or Tool(content)", s)
		}
		r.ToolName = s
		return r, nil
	}
	if !strings.HasSuffix(s, ")") || open == 0 {
		return r, fmt.Errorf("rule %q: want Tool or Tool(content)", s)
	}
	r.ToolName = s[:open]
	if strings.ContainsAny(r.ToolName, " \t") {
		return r, fmt.Errorf("rule %q: tool name %q has spaces", s, r.ToolName)
	}
	content := s[open+1 : len(s)-1]
	if content != "" {
		r.RuleContent = &content
	}
	return r, nil
}

// RuleFrom reads one rule: a string in Claude Code form or an object in
// AgentScope PermissionRule form ({tool_name, rule_content, behavior,
// source}, plus permopa's expires). behavior is the list the rule sits in;
// an object's own behavior must agree with it. When behavior is "", the
// object's behavior is used (ALLOW for a string).
func RuleFrom(x any, behavior string) (permission.Rule, error) {
	switch v := x.(type) {
	case string:
		if behavior == "" {
			behavior = allow
		}
		r, err := ParseRule(v, behavior)
		if err != nil {
			return r, err
		}
		return r, ValidateRule(r)
	case map[string]any:
		b, _ := v["behavior"].(string)
		if behavior == "" {
			behavior = b
		}
		r := permission.Rule{Behavior: strings.ToUpper(behavior)}
		name, ok := v["tool_name"].(string)
		if !ok || strings.TrimSpace(name) == "" {
			return r, fmt.Errorf("rule %v: tool_name must be a non-empty string", v)
		}
		r.ToolName = strings.TrimSpace(name)
		switch c := v["rule_content"].(type) {
		case nil:
		case string:
			if c != "" {
				r.RuleContent = &c
			}
		default:
			return r, fmt.Errorf("rule %v: rule_content must be a string or null", v)
		}
		if b != "" && !strings.EqualFold(b, behavior) {
			return r, fmt.Errorf("rule %s: behavior %q listed under %s", r, b, strings.ToLower(behavior))
		}
		for k := range v {
			// A misspelt rule_content would make an allow rule cover every
			// call of its tool: such a rule is not read at all. A deny or
			// ask rule stays tool-wide (too strict, never too lenient), and
			// `permopa rules lint` reports the key.
			if strings.EqualFold(behavior, allow) && !ruleObjectKeys[k] && nearest(k, ruleObjectKeys) == "rule_content" {
				return r, fmt.Errorf("rule %s: unknown key %q (did you mean \"rule_content\"?); an allow rule without its content would allow every call of its tool", r, k)
			}
		}
		if src, ok := v["source"].(string); ok {
			r.Source = src
		}
		switch sx := v["syntax"].(type) {
		case nil:
		case string:
			switch strings.ToLower(sx) {
			case "", permission.SyntaxClaude:
				r.Syntax = permission.SyntaxClaude
			case permission.SyntaxAgentScope, "fnmatch":
				r.Syntax = permission.SyntaxAgentScope
			default:
				return r, fmt.Errorf("rule %s: syntax %q: want claude or agentscope", r, sx)
			}
		default:
			return r, fmt.Errorf("rule %s: syntax must be claude or agentscope", r)
		}
		switch e := v["expires"].(type) {
		case nil:
		case string:
			r.Expires = e
		case time.Time: // TOML and YAML timestamps
			r.Expires = e.UTC().Format(time.RFC3339)
		default:
			return r, fmt.Errorf("rule %s: expires must be an RFC 3339 time", r)
		}
		return r, ValidateRule(r)
	default:
		return permission.Rule{}, fmt.Errorf("rule %v: want a string or an object", x)
	}
}

// ValidateRule checks a rule the way the policy will use it, so that a rule
// the built-ins would reject is reported (naming it) when it is loaded
// instead of failing every decision of its tool.
func ValidateRule(r permission.Rule) error {
	switch strings.ToUpper(r.Behavior) {
	case allow, deny, ask:
	default:
		return fmt.Errorf("rule %s: behavior must be allow, deny or ask, not %q", r, r.Behavior)
	}
	if strings.TrimSpace(r.ToolName) == "" {
		return fmt.Errorf("rule %s: tool name is empty", r)
	}
	if isToolPattern(r.ToolName) {
		if _, err := glob.Compile(r.ToolName); err != nil {
			return fmt.Errorf("rule %s: tool name pattern: %v", r, err)
		}
	}
	if r.Expires != "" {
		if _, err := time.Parse(time.RFC3339Nano, r.Expires); err != nil {
			return fmt.Errorf("rule %s: expires %q is not an RFC 3339 time", r, r.Expires)
		}
	}
	if r.RuleContent == nil || *r.RuleContent == "" {
		return nil
	}
	c := *r.RuleContent
	var err error
	switch {
	case r.ToolName == "Bash":
		_, err = bash.CompilePattern(c)
	case PathRuleTools()[r.ToolName]:
		for _, m := range MatchContents(r) {
			if _, err = paths.CompileRule(m, "/", "/"); err != nil {
				break
			}
		}
	case tables.WebTools()[r.ToolName]:
		if !strings.HasPrefix(c, "domain:") || len(c) == len("domain:") {
			err = fmt.Errorf("%s rules name a domain: domain:example.com or domain:*.example.com", r.ToolName)
		} else {
			_, err = glob.Compile(strings.ToLower(strings.TrimPrefix(c, "domain:")), '.')
		}
	default:
		if strings.Contains(c, "*") {
			_, err = glob.Compile(c)
		}
	}
	if err != nil {
		return fmt.Errorf("rule %s: %v", r, err)
	}
	return nil
}

// splitRules splits "Bash(a, b),Read(x)" at the commas outside parentheses;
// a value starting with "[" is read as a JSON array.
func splitRules(s string) []any {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if strings.HasPrefix(s, "[") {
		var xs []any
		if err := json.Unmarshal([]byte(s), &xs); err == nil {
			return xs
		}
	}
	var out []any
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				if part := strings.TrimSpace(s[start:i]); part != "" {
					out = append(out, part)
				}
				start = i + 1
			}
		}
	}
	if part := strings.TrimSpace(s[start:]); part != "" {
		out = append(out, part)
	}
	return out
}

// RuleColumn is where (from 1, counting characters) in rule, written in
// Claude Code form, ParseRule or ValidateRule finds the mistake: the "("
// never closed, a ")" without its "(", a space in the tool name, the
// content that does not read; 1 when the rule is empty or starts wrong.
func RuleColumn(rule string) int {
	col := func(i int) int { return utf8.RuneCountInString(rule[:i]) + 1 }
	s := strings.TrimSpace(rule)
	lead := strings.Index(rule, s)
	if s == "" || s[0] == '(' {
		return col(lead)
	}
	open := strings.IndexByte(s, '(')
	name := s
	if open >= 0 {
		name = s[:open]
	}
	if i := strings.IndexAny(name, ") \t"); i >= 0 {
		return col(lead + i)
	}
	switch {
	case open < 0:
		return col(lead)
	case !strings.HasSuffix(s, ")"):
		return col(lead + open) // the "(" never closed
	}
	return col(lead + open + 1) // the content
}
