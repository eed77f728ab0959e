package settings

// document.go: the settings document the policy reads (Document) and how Settings file their rules into it.

import (
	"slices"
	"strings"
	"time"

	"github.com/gobwas/glob"

	"github.com/permopa/permopa/builtins/paths"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/rego/tables"
)

// The settings document: what the engine stores at data.permopa.settings
// and the policy reads (docs/architecture.md, "The data documents"). These
// types are its one definition: their JSON encoding is the document, the
// schema schemas/permopa/settings.json describes it (TestSchemaMatchesDocument
// holds the two together), and the policy's built-ins read the keys named
// here (builtins/rules.go: permopa.rules.lists; TestBuiltinsReadTheDocumentsKeys).

// Document is data.permopa.settings. Empty lists and maps encode as [] and
// {}, never null: the policy iterates them without checking. The fields
// are in the order of their keys, so that the encoding is byte for byte
// the sorted form OPA and `permopa rules export` print.
type Document struct {
	AllowManagedRulesOnly bool            `json:"allow_managed_rules_only"`
	BypassHonoursSafety   bool            `json:"bypass_honours_safety"`
	CaseInsensitivePaths  bool            `json:"case_insensitive_paths"`
	Cwd                   string          `json:"cwd"`
	DangerousPaths        *DangerousPaths `json:"dangerous_paths,omitempty"`
	// DefaultMode is absent when no layer and no session "" sets one.
	DefaultMode         string `json:"default_mode,omitempty"`
	DisableBypassMode   bool   `json:"disable_bypass_mode"`
	EnvironmentIsSecret *bool  `json:"environment_is_secret,omitempty"`
	Home                string `json:"home"`
	// Index, Rules and ToolPatternRules are the RuleSet of every layer
	// and of session "".
	Index        map[string]map[string]IndexEntry `json:"index"`
	NetworkReads string                           `json:"network_reads"`
	// Projects[dir] are the rules of the calls whose project_dir, else
	// cwd, is dir.
	Projects       map[string]RuleSet                `json:"projects"`
	ProtectedPaths []string                          `json:"protected_paths,omitempty"`
	Rules          map[string]map[string][]RuleEntry `json:"rules"`
	// SessionModes[id] is the mode of the calls of session id that name none.
	SessionModes map[string]string `json:"session_modes"`
	// SessionRules[id] are the rules of the calls whose session_id is id.
	SessionRules       map[string]RuleSet     `json:"session_rules"`
	ToolPatternRules   map[string][]RuleEntry `json:"tool_pattern_rules"`
	Unreadable         []string               `json:"unreadable,omitempty"`
	WorkingDirectories []string               `json:"working_directories"`
}

// RuleSet is the rules of one source of rules, filed for the policy:
// the layers (inline in Document), a session, a project, or an
// organisation's rules bundle at data.permopa.rules (RulesDocument).
type RuleSet struct {
	// Index[behavior][tool]: the rules filed for matching.
	Index map[string]map[string]IndexEntry `json:"index"`
	// Rules[behavior][tool]: every rule, as written (deny, ask, allow).
	Rules map[string]map[string][]RuleEntry `json:"rules"`
	// ToolPatternRules[behavior]: the rules whose tool name is a glob.
	ToolPatternRules map[string][]RuleEntry `json:"tool_pattern_rules"`
}

// IndexEntry is what permopa.rules.lists matches for one behavior and tool.
type IndexEntry struct {
	// Contents and Rules are parallel: Contents[i] is a pattern of
	// Rules[i] (a path rule stands for one pattern per reading).
	Contents []string    `json:"contents"`
	Rules    []RuleEntry `json:"rules"`
	// Wide is the first rule without content (it covers every call of
	// the tool), as a list of at most one.
	Wide []RuleEntry `json:"wide"`
}

// RuleEntry is one rule as the policy sees it (and shows it in a
// decision's matched_rule).
type RuleEntry struct {
	Behavior string `json:"behavior"` // ALLOW, ASK or DENY
	Expires  string `json:"expires,omitempty"`
	Layer    string `json:"layer"`
	// PathContents, on a rule whose tool name is a pattern that matches a
	// path tool: the patterns its content stands for as a path rule.
	PathContents []string `json:"path_contents,omitempty"`
	// Project and Syntax are set on path rules only.
	Project string `json:"project,omitempty"`
	// RuleContent is null for a rule without content.
	RuleContent *string `json:"rule_content"`
	Source      string  `json:"source"`
	Syntax      string  `json:"syntax,omitempty"`
	ToolName    string  `json:"tool_name"`
}

// behaviors are the keys of RuleSet's maps, as the policy reads them.
var behaviors = []string{"deny", "ask", "allow"}

func newRuleSet() RuleSet {
	rs := RuleSet{
		Rules:            map[string]map[string][]RuleEntry{},
		Index:            map[string]map[string]IndexEntry{},
		ToolPatternRules: map[string][]RuleEntry{},
	}
	for _, b := range behaviors {
		rs.Rules[b] = map[string][]RuleEntry{}
		rs.Index[b] = map[string]IndexEntry{}
		rs.ToolPatternRules[b] = []RuleEntry{}
	}
	return rs
}

// nonNil is xs, or an empty list: a document's lists encode as [].
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// RuleSet is the rules of every layer and of session "" (the document's
// index, rules and tool_pattern_rules).
func (d Document) RuleSet() RuleSet {
	return RuleSet{Index: d.Index, Rules: d.Rules, ToolPatternRules: d.ToolPatternRules}
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
