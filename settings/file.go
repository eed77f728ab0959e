package settings

// file.go: fileDoc, one settings layer as written, typed, every key and value
// with its position; fileFrom reads it from a decoded tree and
// fileDoc.settings turns it into Settings, with a positioned Problem for each
// value it cannot read.

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/permopa/permopa/builtins/paths"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/rego/tables"
)

// fileDoc is one settings layer (a settings file, or the PERMOPA_* variables)
// as written: the keys permopa reads (docs/usage.md "Rules"), each value
// with where it is. Keys are read without case, a key with dots stands for
// the path it spells; the AgentScope sections (allow_rules, ...,
// working_directories) are keyed by tool names and paths, read as written.
type fileDoc struct {
	Name string // the file, or "environment (PERMOPA_*)"

	// permissions.allow, .ask, .deny: Claude Code rules or rule objects.
	Allow, Ask, Deny fileValue
	// permissions.defaultMode, else mode.
	DefaultMode           fileValue
	AdditionalDirectories fileValue
	// permissions.disableBypassPermissionsMode ("disable": Claude Code's
	// spelling of disable_bypass_mode).
	DisableBypassPermissionsMode fileValue
	// ContextRules[behavior] are an AgentScope PermissionContext's rules
	// (allow_rules, ask_rules, deny_rules), keyed by tool.
	ContextRules map[string][]toolRules
	// WorkingDirectories are the keys of working_directories.
	WorkingDirectories []fileValue

	BypassHonoursSafety, CaseInsensitivePaths, EnvironmentIsSecret fileValue
	NetworkReads                                                   fileValue
	AllowManagedRulesOnly, DisableBypassMode                       fileValue
	// DangerousPaths["files.add"], ["code_running.remove"], ...
	DangerousPaths map[string]fileValue

	tree *node
}

// fileValue is one value of a fileDoc and where it starts; node is nil when the
// key is absent (or null).
type fileValue struct {
	Key  string // as the messages name it: permissions.defaultMode, ...
	node *node
}

// Set says whether the key is given a value.
func (v fileValue) Set() bool {
	return v.node != nil && !(v.node.kind == scalarNode && v.node.value == nil)
}

// position is where the value starts (zero when not known).
func (v fileValue) position() position {
	if v.node == nil {
		return position{}
	}
	return v.node.position
}

// toolRules are the rules of one tool in an AgentScope section.
type toolRules struct {
	Tool  string
	Key   string // allow_rules.Bash
	Rules fileValue
}

// dangerousKeys are the lists of dangerous_paths, in Settings' order.
var dangerousKeys = []string{"files.add", "files.remove", "directories.add", "directories.remove", "code_running.add", "code_running.remove"}

// fileFrom reads a fileDoc from a decoded tree.
func fileFrom(name string, t *node) fileDoc {
	val := func(key string, path ...string) fileValue { return fileValue{Key: key, node: t.find(path...)} }
	f := fileDoc{
		Name:                         name,
		Allow:                        val("permissions.allow", "permissions", "allow"),
		Ask:                          val("permissions.ask", "permissions", "ask"),
		Deny:                         val("permissions.deny", "permissions", "deny"),
		DefaultMode:                  val("permissions.defaultMode", "permissions", "defaultMode"),
		AdditionalDirectories:        val("permissions.additionalDirectories", "permissions", "additionalDirectories"),
		DisableBypassPermissionsMode: val("permissions.disableBypassPermissionsMode", "permissions", "disableBypassPermissionsMode"),
		BypassHonoursSafety:          val("bypass_honours_safety", "bypass_honours_safety"),
		CaseInsensitivePaths:         val("case_insensitive_paths", "case_insensitive_paths"),
		EnvironmentIsSecret:          val("environment_is_secret", "environment_is_secret"),
		NetworkReads:                 val("network_reads", "network_reads"),
		AllowManagedRulesOnly:        val("allow_managed_rules_only", "allow_managed_rules_only"),
		DisableBypassMode:            val("disable_bypass_mode", "disable_bypass_mode"),
		ContextRules:                 map[string][]toolRules{},
		DangerousPaths:               map[string]fileValue{},
		tree:                         t,
	}
	if t, ok := (&reader{}).text(f.DefaultMode); ok && t == "" {
		f.DefaultMode = val("mode", "mode") // AgentScope's key
	}
	for _, b := range behaviors {
		byTool := t.get(b + "_rules")
		if byTool == nil || byTool.kind != mapNode {
			continue
		}
		for _, i := range sortedIndex(byTool) {
			tool := byTool.key(i)
			f.ContextRules[b] = append(f.ContextRules[b], toolRules{Tool: tool, Key: b + "_rules." + tool, Rules: fileValue{Key: b + "_rules." + tool, node: byTool.values[i]}})
		}
	}
	if dirs := t.get("working_directories"); dirs != nil && dirs.kind == mapNode {
		for _, i := range sortedIndex(dirs) {
			f.WorkingDirectories = append(f.WorkingDirectories, fileValue{Key: "working_directories", node: dirs.keys[i]})
		}
	}
	for _, k := range dangerousKeys {
		f.DangerousPaths[k] = val("dangerous_paths."+k, append([]string{"dangerous_paths"}, strings.Split(k, ".")...)...)
	}
	return f
}

// sortedIndex are the indexes of a map's keys in key order.
func sortedIndex(m *node) []int {
	idx := make([]int, len(m.keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(m.key(a), m.key(b)) })
	return idx
}

// reader turns a fileDoc's values into Settings, collecting a positioned
// problem for each value it cannot read.
type reader struct {
	f        fileDoc
	problems []error
}

func (r *reader) invalid(v fileValue, format string, args ...any) {
	p := valueProblem(r.f.Name, v.Key, fmt.Errorf(format, args...))
	p.Line, p.Column = v.position().Line, v.position().Column
	r.problems = append(r.problems, p)
}

// text is a scalar value as text (numbers and booleans as written out);
// a map or list is not text.
func (r *reader) text(v fileValue) (string, bool) {
	if !v.Set() {
		return "", true
	}
	switch x := v.node.value.(type) {
	case string:
		return x, v.node.kind == scalarNode
	case nil:
		return "", v.node.kind == scalarNode
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	}
	if v.node.kind != scalarNode {
		return "", false
	}
	return fmt.Sprint(v.node.value), true
}

// flag is a switch that only tightens when true: true, false, a number
// (0 is false), or text strconv.ParseBool reads. Any other value is a
// problem and reads as true (fail closed: it only tightens).
func (r *reader) flag(v fileValue) bool {
	if !v.Set() {
		return false
	}
	if b, ok := boolOf(v.node); ok {
		return b
	}
	r.invalid(v, "want true or false, got %s; read as true (it only tightens)", v.node.kindName())
	return true
}

func boolOf(n *node) (bool, bool) {
	if n.kind != scalarNode {
		return false, false
	}
	switch x := n.value.(type) {
	case bool:
		return x, true
	case int:
		return x != 0, true
	case int64:
		return x != 0, true
	case uint64:
		return x != 0, true
	case float64:
		return x != 0, true
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		return b, err == nil
	}
	return false, false
}

// list is a list of text: a list, or text separated by the path list
// separator (the environment's form). An item that is a map or list is a
// problem and left out.
func (r *reader) list(v fileValue) []string {
	if !v.Set() {
		return nil
	}
	if s, ok := v.node.value.(string); ok && v.node.kind == scalarNode {
		var out []string
		for _, p := range filepath.SplitList(s) {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	items := v.node.items
	if v.node.kind != listNode {
		items = []*node{v.node}
	}
	var out []string
	for i, it := range items {
		if it.kind != scalarNode || it.value == nil {
			r.invalid(fileValue{Key: join(v.Key, strconv.Itoa(i)), node: it}, "want a name, got %s; left out", it.kindName())
			continue
		}
		out = append(out, fmt.Sprint(it.value))
	}
	return out
}

// rules are the items of a rule list, each with where it is: a list, or
// (from the environment) a JSON array or rules separated by commas
// outside parentheses. The keys of rule objects are read without case
// (Tool_Name), as the permissions lists have always been read; an
// AgentScope section (allow_rules) is read as written, one item per
// string (context).
func rules(v fileValue, context bool) []ruleItem {
	if !v.Set() {
		return nil
	}
	if s, ok := v.node.value.(string); ok && v.node.kind == scalarNode && !context {
		var out []ruleItem
		for _, x := range splitRules(s) {
			out = append(out, ruleItem{x, v.node.position})
		}
		return out
	}
	items := v.node.items
	if v.node.kind != listNode {
		items = []*node{v.node}
	}
	out := make([]ruleItem, len(items))
	for i, it := range items {
		x := it.plain()
		if m, ok := x.(map[string]any); ok && !context {
			x = lowerKeys(m)
		}
		out[i] = ruleItem{x, it.position}
	}
	return out
}

// lowerKeys is m with its keys, and its maps' keys, in lower case.
func lowerKeys(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			v = lowerKeys(sub)
		}
		out[strings.ToLower(k)] = v
	}
	return out
}

type ruleItem struct {
	x   any
	pos position
}

// settings reads the fileDoc's settings; source names the layer, base is
// what relative directories resolve against, project what "/path" in path
// rules is relative to. Each rule or value it cannot read is a problem,
// positioned, and left out (or read the way that only tightens).
func (f fileDoc) settings(source, base, project string) (Settings, []error) {
	r := &reader{f: f}
	var s Settings
	s.pos = map[string]position{}
	if f.tree != nil {
		treePositions(f.tree, "", s.pos)
	}
	add := func(x ruleItem, b, key string, i int, object func(map[string]any)) {
		if obj, ok := x.x.(map[string]any); ok && object != nil {
			object(obj)
		}
		rule, err := RuleFrom(x.x, b)
		if err != nil {
			p := ruleProblem(f.Name, key, i, b, err)
			p.Line, p.Column = x.pos.Line, x.pos.Column
			r.problems = append(r.problems, p)
			return
		}
		rule.Source, rule.Layer, rule.Project = source, f.Name, project
		s.Rules = append(s.Rules, rule)
		s.ruleKeys = append(s.ruleKeys, join(key, strconv.Itoa(i)))
	}
	for _, b := range behaviors {
		v := map[string]fileValue{deny: f.Deny, ask: f.Ask, allow: f.Allow}[strings.ToUpper(b)]
		for i, x := range rules(v, false) {
			add(x, b, "permissions."+b, i, nil)
		}
	}
	// An AgentScope PermissionContext document reads as settings too: rules
	// keyed by tool (the key, not the rule's tool_name, names the tool, as in
	// AgentScope), its mode and its working directories.
	for _, b := range behaviors {
		for _, tr := range f.ContextRules[b] {
			for i, x := range rules(tr.Rules, true) {
				add(x, b, tr.Key, i, func(obj map[string]any) {
					obj["tool_name"] = tr.Tool
					if _, set := obj["syntax"]; !set {
						// AgentScope's objects match as AgentScope matches them.
						obj["syntax"] = permission.SyntaxAgentScope
					}
				})
			}
		}
	}
	for _, w := range f.WorkingDirectories {
		d, _ := w.node.value.(string)
		key := join("working_directories", d)
		if !filepath.IsAbs(d) && !strings.HasPrefix(d, "~") {
			d = filepath.Join(base, d)
		}
		s.WorkingDirectories = append(s.WorkingDirectories, d)
		s.dirKeys = append(s.dirKeys, key)
	}
	if mode, ok := r.text(f.DefaultMode); !ok {
		r.invalid(f.DefaultMode, "want a mode name, got %s", f.DefaultMode.node.kindName())
	} else if mode != "" && !tables.ValidMode(mode) {
		r.invalid(f.DefaultMode, "unknown mode %q", mode)
	} else {
		s.DefaultMode = mode
	}
	for i, d := range r.list(f.AdditionalDirectories) {
		if !filepath.IsAbs(d) && !strings.HasPrefix(d, "~") {
			d = filepath.Join(base, d)
		}
		s.WorkingDirectories = append(s.WorkingDirectories, d)
		s.dirKeys = append(s.dirKeys, join("permissions.additionaldirectories", strconv.Itoa(i)))
	}
	s.BypassHonoursSafety = r.flag(f.BypassHonoursSafety)
	if v := f.EnvironmentIsSecret; v.Set() {
		b, ok := boolOf(v.node)
		switch x := v.node.value.(type) {
		case bool:
		case string:
			if !ok {
				r.invalid(v, "want true or false, got %q; ignored", x)
			}
		default:
			ok = false
			r.invalid(v, "want true or false, got %s; ignored", v.node.kindName())
		}
		if ok {
			s.EnvironmentIsSecret = &b
		}
	}
	if v := f.NetworkReads; v.Set() {
		t, _ := r.text(v)
		switch nr := strings.ToLower(strings.TrimSpace(t)); nr {
		case NetworkReadsAsk, NetworkReadsAllow:
			s.NetworkReads = nr
		default:
			// Fail closed: a value that cannot be read tightens.
			r.invalid(v, "must be \"ask\" or \"allow\", not %q; ask is used", t)
			s.NetworkReads = NetworkReadsAsk
		}
	}
	s.CaseInsensitivePaths = r.flag(f.CaseInsensitivePaths)
	claudeLock := false
	if t, _ := r.text(f.DisableBypassPermissionsMode); strings.EqualFold(t, "disable") {
		claudeLock = true // Claude Code's spelling of the same lock
	}
	for _, lock := range []struct {
		v   fileValue
		dst *bool
	}{{f.AllowManagedRulesOnly, &s.AllowManagedRulesOnly}, {f.DisableBypassMode, &s.DisableBypassMode}} {
		on := lock.v.Set() && r.flag(lock.v)
		if lock.dst == &s.DisableBypassMode && claudeLock {
			on, lock.v = true, f.DisableBypassPermissionsMode
		}
		if !on {
			continue
		}
		if source != SourceManaged {
			r.invalid(lock.v, "honoured in managed settings only; ignored")
			continue
		}
		*lock.dst = true
	}
	dp := []*[]string{&s.DangerousPaths.Files.Add, &s.DangerousPaths.Files.Remove, &s.DangerousPaths.Directories.Add,
		&s.DangerousPaths.Directories.Remove, &s.DangerousPaths.CodeRunning.Add, &s.DangerousPaths.CodeRunning.Remove}
	for i, k := range dangerousKeys {
		*dp[i] = r.list(f.DangerousPaths[k])
	}
	if !s.DangerousPaths.empty() {
		cfg := paths.Config{
			Files:       paths.Edits{Add: s.DangerousPaths.Files.Add, Remove: s.DangerousPaths.Files.Remove},
			Directories: paths.Edits{Add: s.DangerousPaths.Directories.Add, Remove: s.DangerousPaths.Directories.Remove},
			CodeRunning: paths.Edits{Add: s.DangerousPaths.CodeRunning.Add, Remove: s.DangerousPaths.CodeRunning.Remove},
		}
		if _, err := cfg.Compile(); err != nil {
			p := valueProblem(f.Name, "dangerous_paths", fmt.Errorf("%w; dangerous_paths of this file ignored", err))
			if n := f.tree.find("dangerous_paths"); n != nil {
				p.Line, p.Column = n.Line, n.Column
			}
			r.problems = append(r.problems, p)
			s.DangerousPaths = DangerousPaths{}
		}
	}
	return s, r.problems
}
