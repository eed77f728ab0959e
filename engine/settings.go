package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/viper"
)

// Settings is what the policy reads from data.permopa.settings: the merged
// rules of every layer and the knobs of contract §3.
type Settings struct {
	DefaultMode         string         `json:"default_mode"`
	Rules               []Rule         `json:"rules"`
	WorkingDirectories  []string       `json:"working_directories"`
	BypassHonoursSafety bool           `json:"bypass_honours_safety"`
	DisableBypassMode   bool           `json:"disable_bypass_mode"`
	DangerousPaths      map[string]any `json:"dangerous_paths"`
	// Home expands ~ in paths and rules (default: the process's home).
	Home string `json:"home"`
	// Cwd is used for calls whose input has no cwd (default: the process's).
	Cwd string `json:"cwd"`
}

func (s *Settings) fillDefaults() {
	if s.Home == "" {
		s.Home, _ = os.UserHomeDir()
	}
	if s.Cwd == "" {
		s.Cwd = cwdOrRoot()
	}
}

// Document is the JSON document stored at data.permopa.settings. Rules are
// keyed by behavior and tool name so the policy looks them up instead of
// scanning; rules whose tool name is a pattern (mcp__github__*) are kept
// apart in tool_pattern_rules.
func (s Settings) Document() map[string]any {
	rules := map[string]any{"deny": map[string]any{}, "ask": map[string]any{}, "allow": map[string]any{}}
	patterns := map[string]any{"deny": []any{}, "ask": []any{}, "allow": []any{}}
	for _, r := range s.Rules {
		b := strings.ToLower(r.Behavior)
		if _, ok := rules[b]; !ok {
			continue
		}
		obj := ruleDoc(r)
		if strings.ContainsAny(r.ToolName, "*?[") {
			patterns[b] = append(patterns[b].([]any), obj)
			continue
		}
		byTool := rules[b].(map[string]any)
		list, _ := byTool[r.ToolName].([]any)
		byTool[r.ToolName] = append(list, obj)
	}
	dirs := make([]any, 0, len(s.WorkingDirectories))
	for _, d := range s.WorkingDirectories {
		dirs = append(dirs, d)
	}
	doc := map[string]any{
		"rules":                 rules,
		"tool_pattern_rules":    patterns,
		"working_directories":   dirs,
		"bypass_honours_safety": s.BypassHonoursSafety,
		"disable_bypass_mode":   s.DisableBypassMode,
		"home":                  s.Home,
		"cwd":                   s.Cwd,
	}
	if s.DefaultMode != "" {
		doc["default_mode"] = s.DefaultMode
	}
	if s.DangerousPaths != nil {
		doc["dangerous_paths"] = s.DangerousPaths
	}
	return doc
}

func ruleDoc(r Rule) map[string]any {
	obj := map[string]any{
		"tool_name":    r.ToolName,
		"rule_content": nil,
		"behavior":     strings.ToUpper(r.Behavior),
		"source":       r.Source,
		"layer":        r.Layer,
	}
	if r.RuleContent != nil && *r.RuleContent != "" {
		obj["rule_content"] = *r.RuleContent
	}
	return obj
}

// ParseRule reads a rule in Claude Code form, "Tool" or "Tool(content)".
func ParseRule(s, behavior string) (Rule, error) {
	s = strings.TrimSpace(s)
	r := Rule{Behavior: strings.ToUpper(behavior)}
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

// ruleFrom reads one rule from a settings list entry: a string in Claude
// Code form or an AgentScope PermissionRule object.
func ruleFrom(x any, behavior string) (Rule, error) {
	switch v := x.(type) {
	case string:
		return ParseRule(v, behavior)
	case map[string]any:
		r := Rule{Behavior: strings.ToUpper(behavior)}
		name, ok := v["tool_name"].(string)
		if !ok || name == "" {
			return r, fmt.Errorf("rule %v: tool_name must be a non-empty string", v)
		}
		r.ToolName = name
		switch c := v["rule_content"].(type) {
		case nil:
		case string:
			if c != "" {
				r.RuleContent = &c
			}
		default:
			return r, fmt.Errorf("rule %v: rule_content must be a string or null", v)
		}
		if b, ok := v["behavior"].(string); ok && b != "" && !strings.EqualFold(b, behavior) {
			return r, fmt.Errorf("rule %v: behavior %q listed under %s", v, b, behavior)
		}
		if src, ok := v["source"].(string); ok {
			r.Source = src
		}
		return r, nil
	default:
		return Rule{}, fmt.Errorf("rule %v: want a string or an object", x)
	}
}

// LoadSettingsFile reads one settings file (YAML, JSON or TOML, by
// extension) in the shape of contract §3. Rules that cannot be read are
// returned as problems, each naming the rule and the file; the valid ones
// are kept. The error is for a file that cannot be read at all.
func LoadSettingsFile(file, layer string) (Settings, []error, error) {
	v := viper.New()
	v.SetConfigFile(file)
	if err := v.ReadInConfig(); err != nil {
		return Settings{}, nil, fmt.Errorf("settings %s: %w", file, err)
	}
	var s Settings
	var problems []error
	source := layer
	if layer == "" {
		layer = file
		source = "settings"
	}
	for _, b := range []string{"deny", "ask", "allow"} {
		for _, x := range toList(v.Get("permissions." + b)) {
			r, err := ruleFrom(x, b)
			if err != nil {
				problems = append(problems, fmt.Errorf("%s: permissions.%s: %w", file, b, err))
				continue
			}
			if r.Source == "" {
				r.Source = source
			}
			r.Layer = layer
			s.Rules = append(s.Rules, r)
		}
	}
	s.DefaultMode = v.GetString("permissions.defaultmode")
	base := filepath.Dir(file)
	for _, d := range v.GetStringSlice("permissions.additionaldirectories") {
		if !filepath.IsAbs(d) && !strings.HasPrefix(d, "~") {
			d = filepath.Join(base, d)
		}
		s.WorkingDirectories = append(s.WorkingDirectories, d)
	}
	s.BypassHonoursSafety = v.GetBool("bypass_honours_safety")
	s.DisableBypassMode = v.GetBool("disable_bypass_mode")
	if dp, ok := v.Get("dangerous_paths").(map[string]any); ok {
		s.DangerousPaths = dp
	}
	return s, problems, nil
}

func toList(x any) []any {
	switch v := x.(type) {
	case []any:
		return v
	case []string:
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out
	case nil:
		return nil
	default:
		return []any{v}
	}
}

// Merge layers settings: rules from every layer are kept (deny anywhere
// wins in the policy), lists concatenate, and scalar knobs come from the
// first layer that sets them (layers are given highest first).
func Merge(layers ...Settings) Settings {
	var out Settings
	for _, s := range layers {
		out.Rules = append(out.Rules, s.Rules...)
		out.WorkingDirectories = append(out.WorkingDirectories, s.WorkingDirectories...)
		if out.DefaultMode == "" {
			out.DefaultMode = s.DefaultMode
		}
		out.BypassHonoursSafety = out.BypassHonoursSafety || s.BypassHonoursSafety
		out.DisableBypassMode = out.DisableBypassMode || s.DisableBypassMode
		if out.DangerousPaths == nil {
			out.DangerousPaths = s.DangerousPaths
		}
		if out.Home == "" {
			out.Home = s.Home
		}
		if out.Cwd == "" {
			out.Cwd = s.Cwd
		}
	}
	return out
}
