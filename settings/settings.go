package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gobwas/glob"
	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/permopa/permopa/builtins/bash"
	"github.com/permopa/permopa/builtins/paths"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/rego/tables"
)

// Sources name the kind of layer a rule came from (Rule.Source). The loader
// sets them itself, so a project file cannot pass its rules off as managed.
const (
	SourceManaged     = "managedSettings"
	SourceCommandLine = "cliSettings"
	SourceEnvironment = "envSettings"
	SourceLocal       = "localSettings"
	SourceProject     = "projectSettings"
	SourceUser        = "userSettings"
	SourceSession     = "session"
)

// Settings are the merged settings of every layer, with the session and
// project rules accepted at runtime, as Go code handles them. They are not
// the document the policy reads: DocumentAt builds that (Document, whose
// JSON is data.permopa.settings, docs/architecture.md); Settings carries
// no JSON tags.
type Settings struct {
	DefaultMode        string
	Rules              []permission.Rule
	WorkingDirectories []string
	// BypassHonoursSafety keeps safety ASKs in BYPASS (true in any layer wins: it only tightens).
	BypassHonoursSafety bool
	// NetworkReads is "ask" or "allow" (the default, ""): whether a command
	// that only talks to a service configured outside it (kubectl get, gh
	// pr view, npm view) counts as read-only. "ask" in any layer wins.
	NetworkReads string
	// DisableBypassMode runs BYPASS requests as DEFAULT (honoured from managed settings).
	DisableBypassMode bool
	// AllowManagedRulesOnly ignores every allow rule whose Source is not
	// SourceManaged, the input's permission_context and session rules
	// included. Deny and ask rules of every layer still apply: they only tighten.
	AllowManagedRulesOnly bool
	DangerousPaths        DangerousPaths
	// EnvironmentIsSecret: printing the environment (printenv, env,
	// export -p, jq env, ps e, ...) is a credential read (a safety ASK).
	// nil is the default, true; false relaxes it where the agent's
	// environment holds no secret. true in any layer wins: it only tightens.
	EnvironmentIsSecret *bool
	// CaseInsensitivePaths makes deny and ask path rules compare without
	// regard to case, as they always do on macOS and Windows (true in any
	// layer wins: it only tightens). Allow rules never fold case.
	CaseInsensitivePaths bool
	// Home expands ~ in paths and rules (default: the process's home).
	Home string
	// Cwd is used for calls whose input has no cwd (default: the process's).
	Cwd string
	// ProtectedPaths are the settings files and directories the engine
	// reads (managed, --settings, the project's .permopa, the user's):
	// writing them, or a directory holding them, is a safety ASK that
	// BYPASS does not skip (Layers fills it in).
	ProtectedPaths []string
	// SessionRules are rules accepted at runtime, keyed by session id. The
	// rules of session "" apply to every call; the others only to calls
	// whose input has that session_id.
	SessionRules map[string][]permission.Rule
	// SessionModes switch the mode at runtime, keyed by session id; session
	// "" is the mode of every call that names neither a mode nor a session
	// with its own. A mode named in the input still wins.
	SessionModes map[string]string
	// Projects are rules of project directories, keyed by the exact cwd
	// string of the calls they apply to (an OPA server's
	// settings.projects): the rules of that directory's
	// .permopa/settings.local and settings files, applied after the layers'
	// rules and before the session's to calls whose input has that cwd.
	// Only rules: a project's mode, directories and other knobs are not
	// taken. Under allow_managed_rules_only their allow rules are left out.
	Projects map[string][]permission.Rule
	// Unreadable lists, one message each, the settings problems that may
	// have left a deny or ask rule out (UnsafeProblems: a file that could
	// not be read with no last good settings, a deny or ask rule that
	// could not be read). While it is not empty every decision is DENY
	// with code settings_unreadable: permopa does not decide without the
	// user's deny rules. Layers fill it in; the messages name files, never
	// their content.
	Unreadable []string
	// Untrusted lists what untrusted project settings files set that would
	// loosen the decisions and was left out (trust.go, docs/rules.md "Trusted
	// projects"): reported by decide, doctor and rules lint, and named in the
	// reason of a decision it might have changed.
	Untrusted []Untrusted
	// ProjectUntrusted is Untrusted of the project directories of
	// Projects, by the same key: named in the decisions of calls made there.
	ProjectUntrusted map[string][]Untrusted

	// Of one file's settings as read (loadSettingsFile), for trust.go:
	// the key of each rule and working directory (keyLines form), the
	// line of each key, and the SHA-256 of the bytes parsed.
	ruleKeys, dirKeys []string
	lines             map[string]int
	digest            string
}

// Values of Settings.NetworkReads.
const (
	NetworkReadsAsk   = "ask"
	NetworkReadsAllow = "allow"
)

// PathEdits adds names to a default list of dangerous paths and removes names from it.
type PathEdits struct {
	Add    []string `json:"add"`
	Remove []string `json:"remove"`
}

// DangerousPaths is the settings block dangerous_paths: edits to the
// default dangerous file and directory names (docs/decision.md), and to the
// files that make tools run code (code_running: .husky, .githooks,
// .vscode/tasks.json, ...). The permission settings of permopa and of the
// agent hosts are protected whatever the edits.
type DangerousPaths struct {
	// In the order of their keys (Document).
	CodeRunning PathEdits `json:"code_running"`
	Directories PathEdits `json:"directories"`
	Files       PathEdits `json:"files"`
}

// AllRules lists every rule: the layers' rules, then each session's
// (session "" first), expired ones included (see Rule.ExpiredAt). This is
// what `GET /v1/permission/rules` shows.
func (s Settings) AllRules() []permission.Rule {
	out := append([]permission.Rule(nil), s.Rules...)
	ids := slices.Collect(maps.Keys(s.SessionRules))
	slices.Sort(ids)
	for _, id := range ids {
		out = append(out, s.SessionRules[id]...)
	}
	return out
}

func (d DangerousPaths) empty() bool {
	return len(d.Files.Add)+len(d.Files.Remove)+len(d.Directories.Add)+len(d.Directories.Remove)+
		len(d.CodeRunning.Add)+len(d.CodeRunning.Remove) == 0
}

func (d DangerousPaths) document() DangerousPaths {
	edits := func(e PathEdits) PathEdits {
		return PathEdits{Add: nonNil(slices.Clone(e.Add)), Remove: nonNil(slices.Clone(e.Remove))}
	}
	return DangerousPaths{Files: edits(d.Files), Directories: edits(d.Directories), CodeRunning: edits(d.CodeRunning)}
}

func strings2any(xs []string) []any {
	out := make([]any, 0, len(xs))
	for _, x := range xs {
		out = append(out, x)
	}
	return out
}

// FillDefaults sets Home and Cwd, when empty, to the process's.
func (s *Settings) FillDefaults() {
	if s.Home == "" {
		s.Home, _ = os.UserHomeDir()
	}
	if s.Cwd == "" {
		s.Cwd = cwdOrRoot()
	}
}

// Document is the settings document (data.permopa.settings), with the
// rules in force now (see DocumentAt).
func (s Settings) Document() Document { return s.DocumentAt(time.Now()) }

// DocumentAt is the settings document as of now: expired rules are left out.
// Rules are keyed by behavior and tool name so the policy looks them up
// instead of scanning; rules whose tool name is a pattern (mcp__github__*)
// are kept apart in tool_pattern_rules. Rules of session "" join the layer
// rules; other sessions' rules are under session_rules[id], and a project
// directory's rules under projects[cwd], in the same shape.
func (s Settings) DocumentAt(now time.Time) Document {
	keep := func(r permission.Rule) bool {
		if s.AllowManagedRulesOnly && strings.EqualFold(r.Behavior, allow) && r.Source != SourceManaged {
			return false
		}
		return !r.ExpiredAt(now)
	}
	layers := ruleIndex(append(append([]permission.Rule(nil), s.Rules...), s.SessionRules[""]...), keep)
	doc := Document{
		Index:                 layers.Index,
		Rules:                 layers.Rules,
		ToolPatternRules:      layers.ToolPatternRules,
		SessionRules:          map[string]RuleSet{},
		SessionModes:          map[string]string{},
		Projects:              map[string]RuleSet{},
		WorkingDirectories:    nonNil(slices.Clone(s.WorkingDirectories)),
		BypassHonoursSafety:   s.BypassHonoursSafety,
		NetworkReads:          firstNonEmpty(s.NetworkReads, NetworkReadsAllow),
		DisableBypassMode:     s.DisableBypassMode,
		AllowManagedRulesOnly: s.AllowManagedRulesOnly,
		CaseInsensitivePaths:  s.CaseInsensitivePaths,
		Home:                  s.Home,
		Cwd:                   s.Cwd,
		DefaultMode:           firstNonEmpty(s.SessionModes[""], s.DefaultMode),
		EnvironmentIsSecret:   s.EnvironmentIsSecret,
	}
	for id, rs := range s.SessionRules {
		if id != "" {
			doc.SessionRules[id] = ruleIndex(rs, keep)
		}
	}
	for dir, rs := range s.Projects {
		doc.Projects[dir] = ruleIndex(rs, keep)
	}
	for id, m := range s.SessionModes {
		if id != "" && m != "" {
			doc.SessionModes[id] = m
		}
	}
	if !s.DangerousPaths.empty() {
		d := s.DangerousPaths.document()
		doc.DangerousPaths = &d
	}
	if len(s.Unreadable) > 0 {
		doc.Unreadable = slices.Clone(s.Unreadable)
	}
	if len(s.ProtectedPaths) > 0 {
		doc.ProtectedPaths = slices.Clone(s.ProtectedPaths)
	}
	return doc
}

// ruleIndex files the rules by behavior and tool. Besides the plain lists
// (rules[b][tool]) it builds what the policy matches against, so that no
// decision assembles a list per call: index[b][tool] holds "wide" (the first
// rule that covers every call of the tool, as a list of at most one),
// "rules" (the rules with content, in order) and "contents" (their contents,
// the same order), passed as is to one built-in call.
func ruleIndex(rs []permission.Rule, keep func(permission.Rule) bool) RuleSet {
	set := newRuleSet()
	for _, r := range rs {
		b := strings.ToLower(r.Behavior)
		if _, ok := set.Rules[b]; !ok || !keep(r) {
			continue
		}
		obj := ruleDoc(r)
		if isToolPattern(r.ToolName) {
			obj.PathContents = patternPathContents(r)
			set.ToolPatternRules[b] = append(set.ToolPatternRules[b], obj)
			continue
		}
		set.Rules[b][r.ToolName] = append(set.Rules[b][r.ToolName], obj)
		ix, ok := set.Index[b][r.ToolName]
		if !ok {
			ix = IndexEntry{Wide: []RuleEntry{}, Rules: []RuleEntry{}, Contents: []string{}}
		}
		if r.RuleContent == nil || *r.RuleContent == "" {
			if len(ix.Wide) == 0 {
				ix.Wide = []RuleEntry{obj}
			}
			set.Index[b][r.ToolName] = ix
			continue
		}
		// A path rule stands for one or more patterns (its readings, see
		// MatchContents); each is matched for the same rule, which is shown
		// as written.
		for _, c := range MatchContents(r) {
			ix.Rules = append(ix.Rules, obj)
			ix.Contents = append(ix.Contents, c)
		}
		set.Index[b][r.ToolName] = ix
	}
	return set
}

// PathRuleTools are the tools whose rule contents are paths: the policy's
// file tools (FileTools, read from rego/permopa/policy/tools/files, on
// first use rather than at start-up). The map is shared: never modify it.
func PathRuleTools() map[string]bool { return tables.FileTools() }

// MatchContents are the patterns the policy matches for the rule's
// content: the content itself, except for path rules (PathRuleTools),
// whose content stands for the patterns of its readings, in the language
// of permopa.glob.match_any: an AgentScope rule (SyntaxAgentScope) is one
// fnmatch pattern; a Claude Code rule is read as Claude Code documents it
// (paths.ClaudeReadings, relative to r.Project), deny and ask rules under
// every reading the documentation leaves open, allow rules under the
// documented one only (docs/rules.md). A rule without content has none.
func MatchContents(r permission.Rule) []string {
	if r.RuleContent == nil || *r.RuleContent == "" {
		return nil
	}
	c := *r.RuleContent
	if !PathRuleTools()[r.ToolName] {
		return []string{c}
	}
	if r.Syntax == permission.SyntaxAgentScope {
		return []string{paths.FnmatchPrefix + c}
	}
	rd := paths.ClaudeReadings(c, r.Project, r.Source == SourceLocal || r.Source == SourceProject)
	if strings.EqualFold(r.Behavior, allow) {
		return rd.Narrow
	}
	return rd.Wide
}

func isToolPattern(name string) bool { return strings.ContainsAny(name, "*?[{") }

// patternPathContents are the patterns a rule whose tool name is a pattern
// stands for when it meets a path tool (its content read as a path rule,
// see MatchContents); nil when the pattern matches no path tool or the rule
// has no content.
func patternPathContents(r permission.Rule) []string {
	if r.RuleContent == nil || *r.RuleContent == "" {
		return nil
	}
	g, err := glob.Compile(r.ToolName)
	if err != nil {
		return nil
	}
	for name := range PathRuleTools() {
		if g.Match(name) {
			pr := r
			pr.ToolName = "Read"
			return nonNil(MatchContents(pr))
		}
	}
	return nil
}

// NextExpiry is the earliest expiry after now among the rules, or the zero
// time when no rule will expire.
func (s Settings) NextExpiry(now time.Time) time.Time {
	var next time.Time
	check := func(rs []permission.Rule) {
		for _, r := range rs {
			t, ok := r.ExpiresAt()
			if ok && t.After(now) && (next.IsZero() || t.Before(next)) {
				next = t
			}
		}
	}
	check(s.Rules)
	for _, rs := range s.SessionRules {
		check(rs)
	}
	for _, rs := range s.Projects {
		check(rs)
	}
	return next
}

func ruleDoc(r permission.Rule) RuleEntry {
	obj := RuleEntry{
		ToolName: r.ToolName,
		Behavior: strings.ToUpper(r.Behavior),
		Source:   r.Source,
		Layer:    r.Layer,
		Expires:  r.Expires,
	}
	if r.RuleContent != nil && *r.RuleContent != "" {
		c := *r.RuleContent
		obj.RuleContent = &c
	}
	// How a path rule reads (decisions and `permopa explain` show it).
	if PathRuleTools()[r.ToolName] && obj.RuleContent != nil {
		obj.Syntax, obj.Project = r.Syntax, r.Project
	}
	return obj
}

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

// LoadSettingsFile reads one settings file (YAML, JSON or TOML, by
// extension) in the shape docs/usage.md's "Rules" describes. source names the layer
// (SourceProject, ...; "" means "settings"); every rule gets it as Source
// and the file as Layer. Rules that cannot be read are returned as
// problems, each naming the rule and the file; the valid ones are kept.
// The error is for a file that cannot be read or parsed at all.
// allow_managed_rules_only and disable_bypass_mode are honoured only when
// source is SourceManaged.
//
// A deny or ask rule that cannot be read is also listed in the settings'
// Unreadable, so that an engine built on them denies every call until it
// is fixed (UnsafeProblems).
func LoadSettingsFile(file, source string) (Settings, []error, error) {
	s, problems, err := loadSettingsFile(file, source, filepath.Dir(file), ProjectOf(file, ""))
	for _, p := range UnsafeProblems(problems) {
		s.Unreadable = append(s.Unreadable, p.Error())
	}
	return s, problems, err
}

// ProjectOf is the project a settings file belongs to, for its path rules'
// "/path": the directory holding its .permopa/ or .claude/ directory (but
// not the home directory: ~/.claude/settings.json is the user's), else
// fallback.
func ProjectOf(file, fallback string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return fallback
	}
	dir := filepath.Dir(abs)
	if b := filepath.Base(dir); b != ".permopa" && b != ".claude" {
		return fallback
	}
	project := filepath.Dir(dir)
	if home, err := os.UserHomeDir(); err == nil && filepath.Clean(home) == project && filepath.Base(dir) == ".claude" {
		return fallback
	}
	return project
}

// loadSettingsFile is LoadSettingsFile with relative additionalDirectories
// resolved against base and "/path" in path rules against project.
func loadSettingsFile(file, source, base, project string) (Settings, []error, error) {
	data, _, err := readSettingsBytes(file)
	if err != nil {
		return Settings{}, nil, fmt.Errorf("settings %s: %w", file, err)
	}
	return parseSettings(file, data, source, base, project)
}

// parseSettings is loadSettingsFile of data, the content of file.
func parseSettings(file string, data []byte, source, base, project string) (Settings, []error, error) {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(file)), ".")
	// The file is decoded once, with its format's own decoder, whose
	// errors name the line (settings_pos.go); viper then reads the keys
	// from a copy of that document (it lower-cases map keys in place; the
	// PermissionContext sections are keyed by tool names and paths, so they
	// are read from the document as written). viper's ReadConfig would
	// decode the same bytes with the same decoder again; it is kept only
	// where its answer differs: an empty file (an error for JSON) and a
	// format viper does not know.
	raw, err := rawDocument(data, format)
	if err != nil {
		return Settings{}, nil, syntaxError(file, format, data, err)
	}
	v := viper.New()
	v.SetConfigType(format)
	if len(bytes.TrimSpace(data)) == 0 || !slices.Contains([]string{"yaml", "yml", "json", "toml"}, format) {
		if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
			return Settings{}, nil, fmt.Errorf("settings %s: %w", file, parseError(format, err))
		}
	} else if err := v.MergeConfigMap(deepCopy(raw).(map[string]any)); err != nil {
		return Settings{}, nil, fmt.Errorf("settings %s: %w", file, parseError(format, err))
	}
	if source == "" {
		source = "settings"
	}
	s, problems := settingsFrom(v, raw, source, file, base, project)
	s.lines = keyLines(format, data)
	s.digest = Digest(data)
	if len(problems) > 0 {
		placeProblems(problems, file, s.lines)
	}
	return s, problems, nil
}

// deepCopy copies a decoded document's maps and lists.
func deepCopy(x any) any {
	switch v := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	case []map[string]any: // TOML arrays of tables
		out := make([]map[string]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e).(map[string]any)
		}
		return out
	}
	return x
}

// rawDocument decodes a settings file with its format's own decoder, keys
// as written.
func rawDocument(data []byte, format string) (map[string]any, error) {
	doc := map[string]any{}
	if len(bytes.TrimSpace(data)) == 0 {
		return doc, nil
	}
	var err error
	switch format {
	case "json":
		err = json.Unmarshal(data, &doc)
	case "toml":
		err = toml.Unmarshal(data, &doc)
	default:
		err = yaml.Unmarshal(data, &doc)
	}
	return doc, err
}

// settingsFrom reads the settings keys from a viper instance (a file or the
// environment). Problems name where: the file, or the variable.
func settingsFrom(v *viper.Viper, raw map[string]any, source, where, base, project string) (Settings, []error) {
	var s Settings
	var problems []error
	for _, b := range []string{"deny", "ask", "allow"} {
		for i, x := range ruleList(v.Get("permissions." + b)) {
			r, err := RuleFrom(x, b)
			if err != nil {
				problems = append(problems, ruleProblem(where, "permissions."+b, i, b, err))
				continue
			}
			r.Source, r.Layer, r.Project = source, where, project
			s.Rules = append(s.Rules, r)
			s.ruleKeys = append(s.ruleKeys, join("permissions."+b, strconv.Itoa(i)))
		}
	}
	// An AgentScope PermissionContext document reads as settings too: rules
	// keyed by tool (the key, not the rule's tool_name, names the tool, as in
	// AgentScope), its mode and its working directories.
	for _, b := range []string{"deny", "ask", "allow"} {
		byTool, _ := raw[b+"_rules"].(map[string]any)
		for _, tool := range sortedKeys(byTool) {
			for i, x := range toList(byTool[tool]) {
				if obj, ok := x.(map[string]any); ok {
					obj = maps.Clone(obj)
					obj["tool_name"] = tool
					if _, set := obj["syntax"]; !set {
						// AgentScope's objects match as AgentScope matches them.
						obj["syntax"] = permission.SyntaxAgentScope
					}
					x = obj
				}
				r, err := RuleFrom(x, b)
				if err != nil {
					problems = append(problems, ruleProblem(where, b+"_rules."+tool, i, b, err))
					continue
				}
				r.Source, r.Layer, r.Project = source, where, project
				s.Rules = append(s.Rules, r)
				s.ruleKeys = append(s.ruleKeys, join(join(b+"_rules", tool), strconv.Itoa(i)))
			}
		}
	}
	if dirs, ok := raw["working_directories"].(map[string]any); ok {
		for _, d := range sortedKeys(dirs) {
			key := join("working_directories", d)
			if !filepath.IsAbs(d) && !strings.HasPrefix(d, "~") {
				d = filepath.Join(base, d)
			}
			s.WorkingDirectories = append(s.WorkingDirectories, d)
			s.dirKeys = append(s.dirKeys, key)
		}
	}
	s.DefaultMode = firstNonEmpty(v.GetString("permissions.defaultmode"), v.GetString("mode"))
	if s.DefaultMode != "" && !tables.ValidMode(s.DefaultMode) {
		problems = append(problems, valueProblem(where, "permissions.defaultMode", fmt.Errorf("unknown mode %q", s.DefaultMode)))
		s.DefaultMode = ""
	}
	for i, d := range stringList(v.Get("permissions.additionaldirectories")) {
		if !filepath.IsAbs(d) && !strings.HasPrefix(d, "~") {
			d = filepath.Join(base, d)
		}
		s.WorkingDirectories = append(s.WorkingDirectories, d)
		s.dirKeys = append(s.dirKeys, join("permissions.additionaldirectories", strconv.Itoa(i)))
	}
	s.BypassHonoursSafety = v.GetBool("bypass_honours_safety")
	if v.IsSet("environment_is_secret") {
		switch x := v.Get("environment_is_secret").(type) {
		case bool:
			s.EnvironmentIsSecret = &x
		case string:
			if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
				s.EnvironmentIsSecret = &b
			} else {
				problems = append(problems, valueProblem(where, "environment_is_secret", fmt.Errorf("want true or false, got %q; ignored", x)))
			}
		default:
			problems = append(problems, valueProblem(where, "environment_is_secret", fmt.Errorf("want true or false, got %v; ignored", x)))
		}
	}
	if v.IsSet("network_reads") {
		switch nr := strings.ToLower(strings.TrimSpace(v.GetString("network_reads"))); nr {
		case NetworkReadsAsk, NetworkReadsAllow:
			s.NetworkReads = nr
		default:
			// Fail closed: a value that cannot be read tightens.
			problems = append(problems, valueProblem(where, "network_reads", fmt.Errorf("must be \"ask\" or \"allow\", not %q; ask is used", v.GetString("network_reads"))))
			s.NetworkReads = NetworkReadsAsk
		}
	}
	s.CaseInsensitivePaths = v.GetBool("case_insensitive_paths")
	if strings.EqualFold(v.GetString("permissions.disablebypasspermissionsmode"), "disable") {
		// Claude Code's spelling of the same lock.
		v.Set("disable_bypass_mode", true)
	}
	for _, lock := range []string{"allow_managed_rules_only", "disable_bypass_mode"} {
		if !v.IsSet(lock) {
			continue
		}
		if source != SourceManaged {
			if v.GetBool(lock) {
				problems = append(problems, valueProblem(where, lock, errors.New("honoured in managed settings only; ignored")))
			}
			continue
		}
		if lock == "disable_bypass_mode" {
			s.DisableBypassMode = v.GetBool(lock)
		} else {
			s.AllowManagedRulesOnly = v.GetBool(lock)
		}
	}
	for _, e := range []struct {
		key string
		dst *[]string
	}{
		{"dangerous_paths.files.add", &s.DangerousPaths.Files.Add},
		{"dangerous_paths.files.remove", &s.DangerousPaths.Files.Remove},
		{"dangerous_paths.directories.add", &s.DangerousPaths.Directories.Add},
		{"dangerous_paths.directories.remove", &s.DangerousPaths.Directories.Remove},
		{"dangerous_paths.code_running.add", &s.DangerousPaths.CodeRunning.Add},
		{"dangerous_paths.code_running.remove", &s.DangerousPaths.CodeRunning.Remove},
	} {
		*e.dst = stringList(v.Get(e.key))
	}
	if !s.DangerousPaths.empty() {
		cfg := paths.Config{
			Files:       paths.Edits{Add: s.DangerousPaths.Files.Add, Remove: s.DangerousPaths.Files.Remove},
			Directories: paths.Edits{Add: s.DangerousPaths.Directories.Add, Remove: s.DangerousPaths.Directories.Remove},
			CodeRunning: paths.Edits{Add: s.DangerousPaths.CodeRunning.Add, Remove: s.DangerousPaths.CodeRunning.Remove},
		}
		if _, err := cfg.Compile(); err != nil {
			problems = append(problems, valueProblem(where, "dangerous_paths", fmt.Errorf("%w; dangerous_paths of this file ignored", err)))
			s.DangerousPaths = DangerousPaths{}
		}
	}
	return s, problems
}

// ruleProblem is the rule at index of the list key that could not be read
// and was left out; b is its behavior. Hosts that must not decide without a
// user's deny or ask rules (hooks) find these with UnsafeProblems.
func ruleProblem(where, key string, index int, b string, err error) *Problem {
	p := &Problem{Level: LevelError, Kind: CheckInvalidRule, File: where, Key: key, Behavior: strings.ToUpper(b), Err: err, index: index}
	if p.Behavior == allow {
		p.Level = LevelWarning // deciding without it only asks more
	}
	return p
}

// valueProblem is a settings value that could not be read (an unknown
// mode, a lock outside managed settings, a bad dangerous_paths entry) and
// was left out; the other settings of the file are kept.
func valueProblem(where, key string, err error) *Problem {
	return &Problem{Level: LevelError, Kind: CheckInvalidValue, File: where, Key: key, Err: err}
}

// ruleList reads a rule list: a list, or (from the environment) a JSON
// array or rules separated by commas outside parentheses.
func ruleList(x any) []any {
	if str, ok := x.(string); ok {
		return splitRules(str)
	}
	return toList(x)
}

func stringList(x any) []string {
	var out []string
	switch v := x.(type) {
	case string:
		for _, p := range filepath.SplitList(v) {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	for _, e := range toList(x) {
		out = append(out, fmt.Sprint(e))
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
	return keys
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
	case []map[string]any: // TOML arrays of tables
		out := make([]any, len(v))
		for i, m := range v {
			out[i] = m
		}
		return out
	case nil:
		return nil
	default:
		return []any{v}
	}
}

// Merge layers settings, given highest first: rules from every layer are
// kept (deny anywhere wins in the policy), lists concatenate, the default
// mode, home and cwd come from the first layer that sets them, and the
// switches that only tighten (bypass_honours_safety, the managed locks) hold
// when any layer sets them. A dangerous name added by any layer stays
// dangerous even if another layer removes it.
func Merge(layers ...Settings) Settings {
	var out Settings
	for _, s := range layers {
		out.Rules = append(out.Rules, s.Rules...)
		out.WorkingDirectories = append(out.WorkingDirectories, s.WorkingDirectories...)
		if out.DefaultMode == "" {
			out.DefaultMode = s.DefaultMode
		}
		out.BypassHonoursSafety = out.BypassHonoursSafety || s.BypassHonoursSafety
		if e := s.EnvironmentIsSecret; e != nil && (out.EnvironmentIsSecret == nil || *e) {
			out.EnvironmentIsSecret = e
		}
		if s.NetworkReads == NetworkReadsAsk || out.NetworkReads == "" {
			out.NetworkReads = firstNonEmpty(s.NetworkReads, out.NetworkReads)
		}
		out.CaseInsensitivePaths = out.CaseInsensitivePaths || s.CaseInsensitivePaths
		out.DisableBypassMode = out.DisableBypassMode || s.DisableBypassMode
		out.AllowManagedRulesOnly = out.AllowManagedRulesOnly || s.AllowManagedRulesOnly
		out.DangerousPaths.Files.Add = append(out.DangerousPaths.Files.Add, s.DangerousPaths.Files.Add...)
		out.DangerousPaths.Files.Remove = append(out.DangerousPaths.Files.Remove, s.DangerousPaths.Files.Remove...)
		out.DangerousPaths.Directories.Add = append(out.DangerousPaths.Directories.Add, s.DangerousPaths.Directories.Add...)
		out.DangerousPaths.Directories.Remove = append(out.DangerousPaths.Directories.Remove, s.DangerousPaths.Directories.Remove...)
		out.DangerousPaths.CodeRunning.Add = append(out.DangerousPaths.CodeRunning.Add, s.DangerousPaths.CodeRunning.Add...)
		out.DangerousPaths.CodeRunning.Remove = append(out.DangerousPaths.CodeRunning.Remove, s.DangerousPaths.CodeRunning.Remove...)
		out.ProtectedPaths = append(out.ProtectedPaths, s.ProtectedPaths...)
		if out.Home == "" {
			out.Home = s.Home
		}
		if out.Cwd == "" {
			out.Cwd = s.Cwd
		}
		out.Unreadable = append(out.Unreadable, s.Unreadable...)
		out.Untrusted = append(out.Untrusted, s.Untrusted...)
		for id, rs := range s.SessionRules {
			if out.SessionRules == nil {
				out.SessionRules = map[string][]permission.Rule{}
			}
			out.SessionRules[id] = append(out.SessionRules[id], rs...)
		}
		for dir, rs := range s.Projects {
			if out.Projects == nil {
				out.Projects = map[string][]permission.Rule{}
			}
			out.Projects[dir] = append(out.Projects[dir], rs...)
		}
		for id, m := range s.SessionModes {
			if out.SessionModes == nil {
				out.SessionModes = map[string]string{}
			}
			if _, set := out.SessionModes[id]; !set {
				out.SessionModes[id] = m
			}
		}
	}
	out.DangerousPaths.Files.Remove = withoutNames(out.DangerousPaths.Files.Remove, out.DangerousPaths.Files.Add)
	out.DangerousPaths.Directories.Remove = withoutNames(out.DangerousPaths.Directories.Remove, out.DangerousPaths.Directories.Add)
	out.DangerousPaths.CodeRunning.Remove = withoutNames(out.DangerousPaths.CodeRunning.Remove, out.DangerousPaths.CodeRunning.Add)
	return out
}

func withoutNames(names, drop []string) []string {
	var out []string
	for _, n := range names {
		dropped := false
		for _, d := range drop {
			if strings.EqualFold(n, d) {
				dropped = true
				break
			}
		}
		if !dropped {
			out = append(out, n)
		}
	}
	return out
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

func cwdOrRoot() string {
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return "/"
}
