package settings

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
