package settings

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"

	"github.com/permopa/permopa/builtins/paths"
	"github.com/permopa/permopa/internal/safefile"
	"github.com/permopa/permopa/permission"
)

// AddRules accepts rules into a destination (session, local, project or
// user), optionally for ttl only, and applies them to the attached engines
// before returning: the next Decide sees them. File destinations are edited
// in place (a YAML file keeps its comments), written to a temporary file
// and renamed over the old one, under a lock file so that concurrent
// writers, in this process or others, never lose each other's rules. A
// rule already there is not duplicated; the longer lifetime wins. Session
// rules go to sessionID's session in every attached engine. It returns the
// rules as written (with Source, Layer and Expires).
func (l *Layers) AddRules(ctx context.Context, dest, sessionID string, rules []permission.Rule, ttl time.Duration) ([]permission.Rule, error) {
	if len(rules) == 0 {
		return nil, nil
	}
	written, err := WithExpiry(rules, ttl)
	if err != nil {
		return nil, err
	}
	if dest == DestinationSession {
		l.mu.Lock()
		engines := append([]Target(nil), l.engines...)
		l.mu.Unlock()
		if len(engines) == 0 {
			return nil, errors.New("destination session: no engine attached to hold session rules")
		}
		for _, eng := range engines {
			err := eng.UpdateSettings(ctx, func(s *Settings) error { return s.AddSessionRules(sessionID, written...) })
			if err != nil {
				return nil, err
			}
		}
		for i := range written {
			written[i].Source, written[i].Layer = SourceSession, sessionLayer(sessionID)
		}
		return written, nil
	}
	file, err := l.DestinationFile(dest)
	if err != nil {
		return nil, err
	}
	if err := l.checkDestinationDir(dest); err != nil {
		return nil, err
	}
	if l.Settings().AllowManagedRulesOnly {
		for _, r := range written {
			if r.Behavior == allow {
				return nil, fmt.Errorf("rule %s: managed settings allow only managed allow rules; writing it to %s would have no effect", r, file)
			}
		}
	}
	source := map[string]string{DestinationLocal: SourceLocal, DestinationProject: SourceProject, DestinationUser: SourceUser}[dest]
	err = editSettingsFile(file, func(lists *ruleLists) error {
		for _, r := range written {
			lists.add(r)
		}
		return nil
	}, l.retrustAfterWrite(dest, file, written))
	if err != nil {
		return nil, err
	}
	for i := range written {
		written[i].Source, written[i].Layer = source, file
	}
	return written, l.reloadAfterWrite(ctx, file)
}

// retrustAfterWrite keeps what the user trusted trusted after the user's
// own write to a project file (AddRules, RevokeRules: `permopa rules add
// --destination project|local`, a confirmation), the user being the
// author of the change: the file's new digest when it loosened nothing
// untrusted before, else the user's allow rules one by one (retrustFile,
// docs/rules.md "Trusted projects").
func (l *Layers) retrustAfterWrite(dest, file string, written []permission.Rule) func(before, after []byte) error {
	return func(before, after []byte) error {
		if dest != DestinationLocal && dest != DestinationProject {
			return nil
		}
		return retrustFile(l.opts.UserDir, l.opts.ProjectDir, file, before, after, written)
	}
}

// RevokeRules removes rules (matched with SameRule: tool, content and
// behavior) from a destination; it returns how many it removed.
func (l *Layers) RevokeRules(ctx context.Context, dest, sessionID string, rules []permission.Rule) (int, error) {
	if dest == DestinationSession {
		l.mu.Lock()
		engines := append([]Target(nil), l.engines...)
		l.mu.Unlock()
		most := 0
		for _, eng := range engines {
			n := 0
			err := eng.UpdateSettings(ctx, func(s *Settings) error {
				n = s.RevokeSessionRules(sessionID, rules...)
				return nil
			})
			if err != nil {
				return 0, err
			}
			most = max(most, n)
		}
		return most, nil
	}
	file, err := l.DestinationFile(dest)
	if err != nil {
		return 0, err
	}
	if err := l.checkDestinationDir(dest); err != nil {
		return 0, err
	}
	removed := 0
	err = editSettingsFile(file, func(lists *ruleLists) error {
		removed = lists.remove(rules)
		return nil
	}, l.retrustAfterWrite(dest, file, nil))
	if err != nil {
		return 0, err
	}
	return removed, l.reloadAfterWrite(ctx, file)
}

// checkDestinationDir refuses to write a project's rules through a
// .permopa directory that is a symbolic link: it could lead to another
// project's or the user's own settings (a repository shipping
// `.permopa -> ~/.config/permopa` would turn a local approval into a
// global one).
func (l *Layers) checkDestinationDir(dest string) error {
	if dest != DestinationLocal && dest != DestinationProject {
		return nil
	}
	dir := filepath.Join(l.opts.ProjectDir, ".permopa")
	if info, err := os.Lstat(dir); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(dir)
		return fmt.Errorf("settings directory %s is a symbolic link (to %s): permopa does not write a project's rules through links; replace it with a directory", dir, target)
	}
	return nil
}

// reloadAfterWrite applies a file just written. Problems of the files
// (another file broken, an old invalid rule) are not this write's failure
// and stay in Problems; a failure to apply the settings is.
//
// The reload holds file's in-process lock: another writer's file and the
// trust it records for it (retrustAfterWrite) are then both in place or
// both not yet.
func (l *Layers) reloadAfterWrite(ctx context.Context, file string) error {
	if abs, err := filepath.Abs(file); err == nil {
		mu, _ := fileLocks.LoadOrStore(abs, &sync.Mutex{})
		mu.(*sync.Mutex).Lock()
		defer mu.(*sync.Mutex).Unlock()
	}
	_, err := l.reload(ctx)
	return err
}

// ruleLists are the permissions.{allow,ask,deny} lists of one settings
// file, as decoded values, with the edits to make.
type ruleLists struct {
	lists   map[string][]any // lower-case behavior → entries
	now     time.Time
	changed bool
}

// add adds r to its list, or extends the lifetime of the same rule.
func (rl *ruleLists) add(r permission.Rule) {
	r = fileForm(r)
	b := strings.ToLower(r.Behavior)
	for i, x := range rl.lists[b] {
		have, err := RuleFrom(x, b)
		if err != nil || !SameRule(have, r) {
			continue
		}
		if have.Expires != "" && (r.Expires == "" || laterExpiry(r, have)) {
			rl.lists[b][i] = ruleEntry(r)
			rl.changed = true
		}
		return
	}
	rl.lists[b] = append(rl.lists[b], ruleEntry(r))
	rl.changed = true
}

// remove drops the entries equal to any of rules.
func (rl *ruleLists) remove(rules []permission.Rule) int {
	n := 0
	for b, list := range rl.lists {
		kept := list[:0:0]
		for _, x := range list {
			have, err := RuleFrom(x, b)
			hit := false
			if err == nil {
				for _, r := range rules {
					if SameRule(have, r) || SameRule(have, fileForm(r)) {
						hit = true
						break
					}
				}
			}
			if hit {
				n++
				continue
			}
			kept = append(kept, x)
		}
		if len(kept) != len(list) {
			rl.lists[b] = kept
			rl.changed = true
		}
	}
	return n
}

// pruneExpired drops entries that have expired: they match nothing.
func (rl *ruleLists) pruneExpired() {
	for b, list := range rl.lists {
		kept := list[:0:0]
		for _, x := range list {
			if r, err := RuleFrom(x, b); err == nil && r.ExpiredAt(rl.now) {
				rl.changed = true
				continue
			}
			kept = append(kept, x)
		}
		rl.lists[b] = kept
	}
}

// fileForm is r as a settings file's permissions lists hold it: an
// AgentScope path rule (an accepted suggestion, "/repo/src/**") is
// rewritten as the Claude Code pattern that covers the same files
// ("//repo/src/**"), when there is one; else it keeps its syntax, which
// ruleEntry writes down.
func fileForm(r permission.Rule) permission.Rule {
	if r.Syntax != permission.SyntaxAgentScope || r.RuleContent == nil || *r.RuleContent == "" {
		return r
	}
	if !PathRuleTools()[r.ToolName] {
		r.Syntax = ""
		return r
	}
	if c, ok := paths.FnmatchToClaude(*r.RuleContent); ok {
		r.RuleContent, r.Syntax = &c, ""
	}
	return r
}

// ruleEntry is how a rule is written: Claude Code's string form when it
// has no expiry and reads as Claude Code reads it, else an object with its
// expiry and syntax.
func ruleEntry(r permission.Rule) any {
	r = fileForm(r)
	agentscope := r.Syntax == permission.SyntaxAgentScope && PathRuleTools()[r.ToolName] && r.RuleContent != nil && *r.RuleContent != ""
	if r.Expires == "" && !agentscope {
		return r.String()
	}
	obj := map[string]any{"tool_name": r.ToolName, "rule_content": nil, "behavior": strings.ToLower(r.Behavior)}
	if r.Expires != "" {
		obj["expires"] = r.Expires
	}
	if agentscope {
		obj["syntax"] = permission.SyntaxAgentScope
	}
	if r.RuleContent != nil && *r.RuleContent != "" {
		obj["rule_content"] = *r.RuleContent
	}
	return obj
}

// fileLocks serialises writers of one file inside this process; a lock on
// its directory serialises processes.
var fileLocks sync.Map // path → *sync.Mutex

// editSettingsFile reads file (missing: empty), lets edit change its rule
// lists, and writes it back atomically if anything changed. then, if
// given, is called with the content before (nil: missing) and after,
// while the file is still locked.
func editSettingsFile(file string, edit func(*ruleLists) error, then ...func(before, after []byte) error) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	mu, _ := fileLocks.LoadOrStore(abs, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fmt.Errorf("settings %s: %w", file, err)
	}
	unlock, err := lockDir(filepath.Dir(abs))
	if err != nil {
		return fmt.Errorf("settings %s: locking: %w", file, err)
	}
	defer unlock()

	// A link is never written through nor replaced: rewriting it would
	// copy its target's content (a key, another project's settings) into
	// this file, and writing through would change a file elsewhere.
	if info, err := os.Lstat(abs); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(abs)
		return fmt.Errorf("settings %s is a symbolic link (to %s): permopa does not write rules through links; edit the file it points to yourself, or replace the link with a regular file", file, target)
	}
	data, _, err := readSettingsBytes(abs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("settings %s: %w", file, err)
	}
	mode := fs.FileMode(0o644)
	if info, err := os.Stat(abs); err == nil {
		mode = info.Mode().Perm()
	}
	if len(bytes.TrimSpace(data)) > 0 {
		// A file that does not parse is named at its mistake, as a load
		// names it, and left as it is.
		format := strings.TrimPrefix(strings.ToLower(filepath.Ext(abs)), ".")
		if _, err := decodeTree(file, format, data); err != nil {
			return fmt.Errorf("%w; not edited", err)
		}
	}
	var out []byte
	switch strings.ToLower(filepath.Ext(abs)) {
	case ".yaml", ".yml":
		out, err = editYAML(data, edit)
	case ".json":
		out, err = editMap(data, json.Unmarshal, func(v any) ([]byte, error) {
			b, err := json.MarshalIndent(v, "", "  ")
			return append(b, '\n'), err
		}, edit)
	case ".toml":
		out, err = editMap(data, toml.Unmarshal, toml.Marshal, edit)
	default:
		err = fmt.Errorf("unknown settings format (want .yaml, .yml, .json or .toml)")
	}
	if err != nil {
		return fmt.Errorf("settings %s: %w", file, err)
	}
	if out == nil {
		return nil // nothing changed
	}
	if err := writeAtomic(abs, out, mode); err != nil {
		return err
	}
	for _, f := range then {
		if err := f(data, out); err != nil {
			return err
		}
	}
	return nil
}

// writeAtomic writes data to path through internal/safefile: a temporary
// file created exclusively next to it, synced and renamed over it, so
// that readers see the old file or the new, never half, and the write
// never goes through a link planted at path or at a temporary name
// (SECURITY.md).
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	if err := safefile.Write(path, data, safefile.Options{Mode: mode}); err != nil {
		return fmt.Errorf("settings %s: writing: %w", path, err)
	}
	return nil
}

// editMap edits a JSON or TOML settings file through a generic map (key
// order and comments are not kept by these formats' encoders).
func editMap(data []byte, unmarshal func([]byte, any) error, marshal func(any) ([]byte, error), edit func(*ruleLists) error) ([]byte, error) {
	doc := map[string]any{}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("cannot edit, the file does not parse: %w", parseError("settings", err))
		}
	}
	// Keys in the case the file writes them (the settings are read
	// without case): no second "permissions" in another case.
	pk := foldKey(doc, "permissions")
	perms, ok := doc[pk].(map[string]any)
	if !ok {
		if doc[pk] != nil {
			return nil, errors.New("permissions is not an object")
		}
		perms = map[string]any{}
	}
	rl := &ruleLists{lists: map[string][]any{}, now: time.Now()}
	for _, b := range []string{"allow", "ask", "deny"} {
		rl.lists[b] = toList(perms[foldKey(perms, b)])
	}
	rl.pruneExpired()
	if err := edit(rl); err != nil {
		return nil, err
	}
	if !rl.changed {
		return nil, nil
	}
	for _, b := range []string{"allow", "ask", "deny"} {
		if k := foldKey(perms, b); len(rl.lists[b]) > 0 || perms[k] != nil {
			perms[k] = rl.lists[b]
		}
	}
	doc[pk] = perms
	return marshal(doc)
}

// foldKey is the key of m that spells key in any case, else key.
func foldKey(m map[string]any, key string) string {
	for k := range m {
		if strings.EqualFold(k, key) {
			return k
		}
	}
	return key
}

// editYAML edits a YAML settings file at the node level, so comments and
// the order of everything else are kept.
func editYAML(data []byte, edit func(*ruleLists) error) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("cannot edit, the file does not parse: %w", parseError("yaml", err))
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("the document is not a mapping")
	}
	perms := yamlChild(root, "permissions", yaml.MappingNode)
	if perms == nil {
		return nil, errors.New("permissions is not a mapping")
	}
	rl := &ruleLists{lists: map[string][]any{}, now: time.Now()}
	nodes := map[string]*yaml.Node{}
	for _, b := range []string{"allow", "ask", "deny"} {
		n := yamlLookup(perms, b)
		if n == nil {
			continue
		}
		var xs []any
		if err := n.Decode(&xs); err != nil {
			return nil, fmt.Errorf("permissions.%s is not a list", b)
		}
		nodes[b], rl.lists[b] = n, xs
	}
	rl.pruneExpired()
	if err := edit(rl); err != nil {
		return nil, err
	}
	if !rl.changed {
		return nil, nil
	}
	for _, b := range []string{"allow", "ask", "deny"} {
		list := rl.lists[b]
		n := nodes[b]
		if n == nil && len(list) == 0 {
			continue
		}
		if n == nil {
			n = yamlChild(perms, b, yaml.SequenceNode)
		}
		if err := setYAMLList(n, list); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

// setYAMLList rewrites a sequence node's items, reusing the nodes of
// entries that were kept (and so their comments).
func setYAMLList(n *yaml.Node, list []any) error {
	old := map[string]*yaml.Node{}
	for _, item := range n.Content {
		var x any
		if item.Decode(&x) == nil {
			old[canonicalEntry(x)] = item
		}
	}
	n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
	n.Content = n.Content[:0]
	for _, x := range list {
		if item, ok := old[canonicalEntry(x)]; ok {
			n.Content = append(n.Content, item)
			continue
		}
		var item yaml.Node
		if err := item.Encode(x); err != nil {
			return err
		}
		if item.Kind == yaml.MappingNode {
			item.Style = yaml.FlowStyle
		}
		n.Content = append(n.Content, &item)
	}
	return nil
}

func canonicalEntry(x any) string {
	b, _ := json.Marshal(x)
	return string(b)
}

// yamlLookup is m[key], the key in any case (the settings are read
// without case).
func yamlLookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if strings.EqualFold(m.Content[i].Value, key) {
			return m.Content[i+1]
		}
	}
	return nil
}

// yamlChild returns m[key], adding it with the given kind when missing;
// nil when it is there with another kind (null counts as missing).
func yamlChild(m *yaml.Node, key string, kind yaml.Kind) *yaml.Node {
	if n := yamlLookup(m, key); n != nil {
		if n.Kind == kind {
			return n
		}
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			n.Kind, n.Tag, n.Value = kind, "", ""
			return n
		}
		return nil
	}
	n := &yaml.Node{Kind: kind}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, n)
	return n
}
