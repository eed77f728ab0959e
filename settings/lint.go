package settings

// lint.go: `permopa rules lint`: keys permopa does not read (LintFile) and rules that do not mean what they look like (LintRules).

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/permopa/permopa/builtins/bash"
	"github.com/permopa/permopa/builtins/paths"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/rego/tables"
)

// Lint levels, most severe first.
const (
	LevelError   = "error"   // a rule or key that silently does nothing, or a deny/ask rule that can never match
	LevelWarning = "warning" // a rule that likely does not mean what its author meant
	LevelInfo    = "info"    // worth knowing; nothing to fix
)

// LevelRank orders the levels: error 3, warning 2, info 1; 0 for anything else.
func LevelRank(level string) int {
	switch level {
	case LevelError:
		return 3
	case LevelWarning:
		return 2
	case LevelInfo:
		return 1
	}
	return 0
}

// The kinds of lint findings (Problem.Kind; docs/rules.md).
const (
	CheckUnknownKey    = "unknown-key"    // a key permopa does not read
	CheckUnknownTool   = "unknown-tool"   // a tool name that is a near miss of a built-in tool
	CheckShadowed      = "shadowed"       // an allow rule a deny or ask rule always beats
	CheckAmbiguousPath = "ambiguous-path" // a "/path" that may have been meant as absolute
	CheckClaudeDiffers = "claude-differs" // Claude Code would read the rule or key differently
	CheckWide          = "wide"           // an allow rule that covers more than it looks
	CheckNeverDecides  = "never-decides"  // a rule that can never decide a call
)

// Keys a settings file may hold. Claude Code's own settings keys are known
// too (a Claude Code settings.json reads as is): permopa ignores them.
var (
	topKeys = map[string]bool{
		"permissions": true, "allow_rules": true, "ask_rules": true, "deny_rules": true,
		"working_directories": true, "mode": true, "bypass_honours_safety": true,
		"allow_managed_rules_only": true, "disable_bypass_mode": true, "dangerous_paths": true,
		"case_insensitive_paths": true, "environment_is_secret": true, "network_reads": true,
	}
	claudeTopKeys = map[string]bool{
		"$schema": true, "apiKeyHelper": true, "awsAuthRefresh": true, "awsCredentialExport": true,
		"cleanupPeriodDays": true, "companyAnnouncements": true, "env": true, "forceLoginMethod": true,
		"forceLoginOrgUUID": true, "hooks": true, "disableAllHooks": true, "includeCoAuthoredBy": true,
		"model": true, "otelHeadersHelper": true, "outputStyle": true, "statusLine": true,
		"enableAllProjectMcpServers": true, "enabledMcpjsonServers": true, "disabledMcpjsonServers": true,
		"allowedMcpServers": true, "deniedMcpServers": true, "sandbox": true, "spinnerTipsEnabled": true,
		"alwaysThinkingEnabled": true, "enabledPlugins": true, "extraKnownMarketplaces": true,
		"attribution": true, "fileSuggestion": true, "respectGitignore": true, "language": true,
		"autoUpdatesChannel": true, "allowManagedHooksOnly": true, "allowManagedPermissionRulesOnly": true,
		"strictKnownMarketplaces": true, "plansDirectory": true, "showTurnDuration": true,
		"subagentStatusLine": true, "feedbackSurveyState": true, "theme": true, "verbose": true,
	}
	permissionsKeys = map[string]bool{
		"allow": true, "ask": true, "deny": true, "defaultMode": true, "additionalDirectories": true,
		"disableBypassPermissionsMode": true, "disableAutoMode": true,
	}
	ruleObjectKeys = map[string]bool{
		"tool_name": true, "rule_content": true, "behavior": true, "source": true, "expires": true, "syntax": true,
	}
	pathEditKeys = map[string]bool{"add": true, "remove": true}
)

// builtinTools are the tool names of Claude Code, AgentScope and permopa
// whose near misses ("bash", "Reed") are typos: a rule for them matches
// nothing. MCP and custom tools are open-ended and never reported.
var builtinTools = []string{
	"Bash", "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead", "Glob", "Grep", "LS",
	"WebFetch", "WebSearch", "Task", "Agent", "TodoWrite", "ExitPlanMode", "BashOutput", "KillShell",
	"SlashCommand", "Skill", "PowerShell",
}

// LintProblems are the findings of a settings file and its rules that a
// load reports, as errors: findings from level warning up (but not wide
// rules, which are often meant), and a key that
// hides deny or ask rules with that Behavior, so that a
// host that must fail closed (a hook) refuses to decide without them
// (UnsafeProblems).
func LintProblems(fs []Problem) []error {
	var out []error
	for _, f := range fs {
		// Wide rules are often meant: `permopa rules lint` reports them,
		// a load does not.
		if LevelRank(f.Level) < LevelRank(LevelWarning) || f.Kind == CheckWide {
			continue
		}
		if f.Kind == CheckUnknownKey && f.Level == LevelError && f.Rule == "" {
			b := deny
			switch k := strings.ToLower(f.Key); {
			case strings.HasPrefix(k, "permissions.allow"), strings.HasPrefix(k, "allow_rules"):
				b = allow // an allow rule's key: deciding without it only asks more
			case strings.Contains(k, "ask") && !strings.Contains(k, "deny"):
				b = ask
			}
			f.Behavior = b
		}
		out = append(out, &f)
	}
	return out
}

// LintFile reads a settings file as written and reports keys permopa does
// not read: a typo such as "denny:" or "premissions:" would otherwise drop
// rules without a word. A near miss of a deny or ask list is an error, and
// LintProblems gives it the Behavior of the rules it hides, which makes hooks fail closed.
// Each finding names the line and column of its key.
func LintFile(file string) ([]Problem, error) {
	data, _, err := readSettingsBytes(file)
	if err != nil {
		return nil, fileProblem(file, err, false)
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(file)), ".")
	tree, err := decodeTree(file, format, data)
	if err != nil {
		return nil, fileProblem(file, err, false)
	}
	l := &fileLinter{file: file, text: string(data)}
	l.top(tree)
	sortFindings(l.out)
	return l.out, nil
}

type fileLinter struct {
	file, text string
	out        []Problem
}

// add reports the key at (where it is written).
func (l *fileLinter) add(at position, level, check, key, msg string) {
	p := newProblem(level, check, l.file, key, msg)
	p.Line, p.Column = at.Line, at.Column
	if at.Line == 0 { // TOML: the line of the key's name
		last := key
		if i := strings.LastIndexAny(key, ".["); i >= 0 {
			last = strings.TrimSuffix(key[i+1:], "]")
		}
		p.Line = keyLine(l.text, last)
	}
	l.out = append(l.out, p)
}

func (l *fileLinter) top(t *node) {
	for _, i := range sortedIndex(t) {
		k, v, at := t.key(i), t.values[i], t.keys[i].position
		switch {
		case topKeys[k]:
		case claudeTopKeys[k]:
			continue
		case strings.Contains(k, ".") && topKeys[strings.ToLower(strings.SplitN(k, ".", 2)[0])]:
			continue // a key with dots stands for its path (permissions.deny)
		case topKeys[strings.ToLower(k)]:
			l.add(at, LevelWarning, CheckClaudeDiffers, k, fmt.Sprintf("permopa reads %q as %q, but keys are case-sensitive elsewhere (Claude Code, AgentScope); write %q", k, strings.ToLower(k), strings.ToLower(k)))
			k = strings.ToLower(k)
		default:
			l.unknown(at, k, v, topKeys, "")
			continue
		}
		switch k {
		case "permissions":
			l.permissions(at, v)
		case "allow_rules", "ask_rules", "deny_rules":
			l.contextRules(k, v)
		case "dangerous_paths":
			l.dangerous(v)
		}
	}
}

// unknown reports key k (under prefix) that permopa does not read. It is an
// error when it looks like a deny or ask list or holds one: its rules are
// not read at all.
func (l *fileLinter) unknown(at position, k string, v *node, known map[string]bool, prefix string) {
	full := prefix + k
	guess := nearest(k, known)
	holdsGuard := false
	if v.kind == mapNode {
		for i := range v.keys {
			for _, g := range []string{"deny", "ask", "deny_rules", "ask_rules"} {
				if strings.EqualFold(v.key(i), g) {
					holdsGuard = true
				}
			}
		}
	}
	guard := slices.Contains([]string{"deny", "ask", "deny_rules", "ask_rules", "permissions"}, guess)
	msg := "permopa does not read this key"
	if guess != "" {
		msg += fmt.Sprintf("; did you mean %q?", guess)
	}
	if guard || holdsGuard {
		l.add(at, LevelError, CheckUnknownKey, full, msg+" Deny or ask rules under it are not read at all")
		return
	}
	l.add(at, LevelWarning, CheckUnknownKey, full, msg+"; it is ignored")
}

func (l *fileLinter) permissions(at position, v *node) {
	if v.kind != mapNode {
		if v.kind != scalarNode || v.value != nil {
			l.add(v.position, LevelError, CheckUnknownKey, "permissions", "must be an object (allow, ask, deny, defaultMode, additionalDirectories), not "+v.kindName())
		}
		return
	}
	for _, i := range sortedIndex(v) {
		k, kat := v.key(i), v.keys[i].position
		switch {
		case permissionsKeys[k]:
		case permissionsKeys[lowerFirstKey(k, permissionsKeys)]:
			l.add(kat, LevelWarning, CheckClaudeDiffers, "permissions."+k, fmt.Sprintf("permopa reads it as %q, Claude Code does not: keys are case-sensitive there", lowerFirstKey(k, permissionsKeys)))
			k = lowerFirstKey(k, permissionsKeys)
		default:
			l.unknown(kat, k, v.values[i], permissionsKeys, "permissions.")
			continue
		}
		if k == "allow" || k == "ask" || k == "deny" {
			l.ruleList("permissions."+k, v.values[i])
		}
	}
}

// lowerFirstKey is the known key that k spells in another case, or "".
func lowerFirstKey(k string, known map[string]bool) string {
	for kk := range known {
		if strings.EqualFold(kk, k) {
			return kk
		}
	}
	return ""
}

func (l *fileLinter) ruleList(key string, v *node) {
	items := v.items
	if v.kind != listNode {
		items = []*node{v}
	}
	for i, obj := range items {
		if obj.kind != mapNode {
			continue
		}
		for _, j := range sortedIndex(obj) {
			k := obj.key(j)
			if ruleObjectKeys[k] {
				continue
			}
			msg := "permopa does not read this key of a rule object"
			if g := nearest(k, ruleObjectKeys); g != "" {
				msg += fmt.Sprintf("; did you mean %q?", g)
			}
			level := LevelWarning
			if obj.get("rule_content") == nil && nearest(k, ruleObjectKeys) == "rule_content" {
				level = LevelError
				msg += " Without rule_content the rule covers every call of its tool"
			}
			l.add(obj.keys[j].position, level, CheckUnknownKey, fmt.Sprintf("%s[%d].%s", key, i, k), msg)
		}
	}
}

func (l *fileLinter) contextRules(key string, v *node) {
	if v.kind != mapNode {
		return
	}
	for _, i := range sortedIndex(v) {
		l.ruleList(key+"."+v.key(i), v.values[i])
	}
}

func (l *fileLinter) dangerous(v *node) {
	if v.kind != mapNode {
		return
	}
	lists := map[string]bool{"files": true, "directories": true, "code_running": true}
	for _, i := range sortedIndex(v) {
		k := v.key(i)
		if !lists[k] {
			l.unknown(v.keys[i].position, k, v.values[i], lists, "dangerous_paths.")
			continue
		}
		sub := v.values[i]
		if sub.kind != mapNode {
			continue
		}
		for _, j := range sortedIndex(sub) {
			if sk := sub.key(j); !pathEditKeys[sk] {
				l.unknown(sub.keys[j].position, sk, sub.values[j], pathEditKeys, "dangerous_paths."+k+".")
			}
		}
	}
}

// nearest is the known key within two edits of k (case aside), or "".
func nearest(k string, known map[string]bool) string {
	best, bestD := "", 3
	for kk := range known {
		d := editDistance(strings.ToLower(k), strings.ToLower(kk))
		if d < bestD || d == bestD && kk < best {
			best, bestD = kk, d
		}
	}
	if bestD > 2 || len(k) < 3 {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbours each cost one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+c)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// ruleAt is where the rule is written in text (its first spelling
// there), or zero.
func ruleAt(text string, r permission.Rule) position {
	if text == "" {
		return position{}
	}
	for _, needle := range []string{r.String(), ruleContent(r)} {
		if needle == "" {
			continue
		}
		if i := strings.Index(text, needle); i >= 0 {
			line, col := lineCol([]byte(text), int64(i)+1)
			return position{line, col}
		}
	}
	return position{}
}

// keyLine is the line of the first place text names key as a key
// (followed by ":", "=" or a closing bracket), or 0: for TOML, whose
// decoder gives no positions.
func keyLine(text, key string) int {
	if key == "" || text == "" {
		return 0
	}
	re, err := regexp.Compile(`(?m)(^|[\s"'{,\[])` + regexp.QuoteMeta(key) + `["']?\s*[:=\]]`)
	if err != nil {
		return 0
	}
	loc := re.FindStringIndex(text)
	if loc == nil {
		return 0
	}
	line := strings.Count(text[:loc[0]], "\n") + 1
	if text[loc[0]] == '\n' {
		line++
	}
	return line
}

func ruleContent(r permission.Rule) string {
	if r.RuleContent == nil {
		return ""
	}
	return *r.RuleContent
}

func sortFindings(fs []Problem) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].File != fs[j].File {
			return fs[i].File < fs[j].File
		}
		if fs[i].Line != fs[j].Line {
			return fs[i].Line < fs[j].Line
		}
		if fs[i].Column != fs[j].Column {
			return fs[i].Column < fs[j].Column
		}
		return LevelRank(fs[i].Level) > LevelRank(fs[j].Level)
	})
}

// LintRules reports rules that do not mean what they look like: near
// misses of built-in tool names, allow rules a deny or ask rule always
// beats, "/path" patterns that may have been meant as absolute, rules
// Claude Code reads differently, allow rules wider than they look, rules
// that can never decide. Each finding names the rule's file (Layer) and,
// when it can find it there, the line.
func LintRules(rules []permission.Rule) []Problem {
	texts := map[string]string{}
	text := func(file string) string {
		if t, ok := texts[file]; ok {
			return t
		}
		b, _ := os.ReadFile(file)
		texts[file] = string(b)
		return texts[file]
	}
	gi := newGuardIndex(rules)
	var out []Problem
	for _, r := range rules {
		add := func(level, check, msg string) {
			p := newProblem(level, check, r.Layer, strings.ToLower(r.Behavior), msg)
			at := ruleAt(text(r.Layer), r)
			p.Line, p.Column, p.Rule = at.Line, at.Column, r.String()
			out = append(out, p)
		}
		lintTool(r, add)
		lintPath(r, add)
		lintWide(r, add)
		if strings.EqualFold(r.Behavior, allow) {
			if g, ok := gi.shadowing(r); ok {
				add(LevelWarning, CheckShadowed, fmt.Sprintf("the %s rule %s (%s) matches every call this allow rule does, and %s rules come first: this rule never allows anything", strings.ToLower(g.Behavior), g, g.Layer, strings.ToLower(g.Behavior)))
			}
		}
	}
	sortFindings(out)
	return out
}

func lintTool(r permission.Rule, add func(level, check, msg string)) {
	if b, ok := NearMissTool(r.ToolName); ok {
		level := LevelWarning
		if !strings.EqualFold(r.Behavior, allow) {
			level = LevelError
		}
		add(level, CheckUnknownTool, UnknownToolMessage(r.ToolName, b))
	}
}

// NearMissTool reports whether name is a near miss of a built-in tool
// name ("bash", "Reed", "Bassh"), and which: a rule for it matches nothing.
// Built-in tools, MCP tools (mcp__server__tool) and tool-name patterns are
// not; any other name is a custom tool's, legitimately unknown.
func NearMissTool(name string) (string, bool) {
	if slices.Contains(builtinTools, name) || strings.HasPrefix(name, "mcp__") || isToolPattern(name) {
		return "", false
	}
	for _, b := range builtinTools {
		if strings.EqualFold(name, b) || len(name) >= 3 && editDistance(strings.ToLower(name), strings.ToLower(b)) <= 1 ||
			len(name) >= 5 && editDistance(strings.ToLower(name), strings.ToLower(b)) <= 2 {
			return b, true
		}
	}
	return "", false
}

// UnknownToolMessage says that name, a near miss of builtin, names no tool.
func UnknownToolMessage(name, builtin string) string {
	return fmt.Sprintf("no tool is called %q (tool names are case-sensitive); did you mean %q? This rule matches nothing", name, builtin)
}

// rootNames are top-level directories a "/path" most likely meant as
// absolute starts with.
var rootNames = map[string]bool{
	"etc": true, "usr": true, "var": true, "tmp": true, "home": true, "Users": true, "opt": true, "root": true,
	"bin": true, "sbin": true, "lib": true, "lib64": true, "dev": true, "proc": true, "sys": true, "private": true,
	"Library": true, "Applications": true, "Volumes": true, "System": true, "srv": true, "mnt": true, "media": true,
	"nix": true, "snap": true, "boot": true, "run": true,
}

func lintPath(r permission.Rule, add func(level, check, msg string)) {
	if !PathRuleTools()[r.ToolName] || r.RuleContent == nil || *r.RuleContent == "" {
		return
	}
	c := *r.RuleContent
	if r.Syntax == permission.SyntaxAgentScope {
		if strings.Contains(c, "*") {
			add(LevelInfo, CheckClaudeDiffers, "an AgentScope rule: \"*\" crosses \"/\" (fnmatch) and the path is matched as the call writes it; Claude Code's \"*\" stays within a directory")
		}
		return
	}
	rd := paths.ClaudeReadings(c, r.Project, r.Source == SourceLocal || r.Source == SourceProject)
	for _, n := range rd.Notes {
		switch {
		case strings.Contains(n, "relative to the project root"):
			first, _, _ := strings.Cut(strings.TrimPrefix(c, "/"), "/")
			level := LevelInfo
			if rootNames[first] || existsAtRoot(first) {
				level = LevelWarning
			}
			add(level, CheckAmbiguousPath, n)
		default:
			add(LevelInfo, CheckClaudeDiffers, n)
		}
	}
	if strings.HasPrefix(c, "~") && !strings.HasPrefix(c, "~/") && c != "~" {
		add(LevelWarning, CheckClaudeDiffers, "\"~name\" is not a home directory in a rule: it is a file name relative to the current directory")
	}
	if strings.Contains(c, `\`) && !strings.Contains(c, `\*`) && !strings.Contains(c, `\?`) && !strings.Contains(c, `\[`) {
		add(LevelWarning, CheckClaudeDiffers, "\"\\\" escapes the next character in a pattern; write paths with \"/\"")
	}
	if strings.EqualFold(r.Behavior, allow) && tables.FileReadTools()[r.ToolName] {
		add(LevelInfo, CheckNeverDecides, "an allow rule for a tool that only reads never decides: such a call is read-only (allowed before allow rules) or reads a credential path (a safety question allow rules cannot answer)")
	}
}

func existsAtRoot(name string) bool {
	if name == "" || strings.ContainsAny(name, "*?[{") {
		return false
	}
	_, err := os.Stat("/" + name)
	return err == nil
}

// wideFirstWords are programs that run no code beyond their argv but whose
// prefix rule covers far more than its words say, with why. The programs
// that run code (interpreters, shells, wrappers, awk, find, make, ...) come
// from the vocabulary's one table (bash.RunsCode).
var wideFirstWords = map[string]string{
	"git":     "covers every git subcommand (push --force, reset --hard, clean -fdx), and git runs programs a repository configures (hooks, aliases, pagers)",
	"docker":  "covers docker run, which runs anything with the host's files",
	"kubectl": "covers every kubectl subcommand (delete, exec)", "gh": "covers every gh subcommand (repo delete, api)",
	"npm":   "covers every npm subcommand, and npm runs the scripts of package.json",
	"cargo": "covers every cargo subcommand, and build scripts run code", "pip": "installs and runs any package's setup code",
	"rm": "covers every removal, rm -rf included", "curl": "covers uploads (-T, -d @file) and writes (-o)",
}

// WideBashRule says why the allow rule Bash(content) covers far more than
// its words say, "" when it does not: a prefix rule for a program that
// runs code (any number of words: python -c:*, sudo apt:*) or a bare
// prefix rule for a program of wideFirstWords (git:*, rm:*). Rules lint
// warns on it (check wide) and replay counts the ALLOWs it gives as broad.
func WideBashRule(content string) string {
	c := strings.TrimSpace(content)
	switch c {
	case "*", ":*", "**", "* *":
		return "allows every Bash command, as a bare Bash rule does"
	}
	if !strings.HasSuffix(c, "*") {
		return ""
	}
	words := strings.Fields(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(c, ":*"), " *"), "*"))
	if len(words) == 0 {
		return ""
	}
	prog := path.Base(words[0])
	if why := bash.RunsCode(prog); why != "" {
		if len(words) == 1 {
			return fmt.Sprintf("allows every %s command: %s %s", prog, prog, why)
		}
		return fmt.Sprintf("its wildcard stands for code or a command: %s %s", prog, why)
	}
	if why, ok := wideFirstWords[prog]; ok && len(words) == 1 {
		return fmt.Sprintf("allows every %s command: %s", prog, why)
	}
	return ""
}

func lintWide(r permission.Rule, add func(level, check, msg string)) {
	if !strings.EqualFold(r.Behavior, allow) {
		return
	}
	c := strings.TrimSpace(ruleContent(r))
	if c == "" {
		if tables.FileEditTools()[r.ToolName] || tables.WebTools()[r.ToolName] || slices.Contains([]string{"Bash", "PowerShell"}, r.ToolName) {
			add(LevelWarning, CheckWide, "allows every call of "+r.ToolName)
		}
		if r.ToolName == "*" || r.ToolName == "mcp__*" {
			add(LevelWarning, CheckWide, "allows every call of every tool it names")
		}
		return
	}
	switch {
	case r.ToolName == "Bash":
		if why := WideBashRule(c); why != "" {
			add(LevelWarning, CheckWide, why)
		}
	case PathRuleTools()[r.ToolName]:
		if r.Syntax == permission.SyntaxAgentScope {
			if c == "*" || c == "**" || c == "/**" || c == "/*" {
				add(LevelWarning, CheckWide, "allows every file")
			}
			return
		}
		switch c {
		case "//**", "//", "/**", "**", "*", "**/*":
			add(LevelWarning, CheckWide, "allows every file (below "+map[bool]string{true: "the file-system root", false: "the current directory or project"}[strings.HasPrefix(c, "//")]+")")
		case "~", "~/", "~/**", "~/*":
			add(LevelWarning, CheckWide, "allows every file of the home directory, ~/.ssh and the shell profiles included")
		}
	}
}

// guardIndex files the deny and ask rules so that each allow rule is
// checked against them in a few lookups (settings may hold thousands of
// rules): a tool-wide rule, the same rule, a Bash prefix of the allow
// rule's words, a directory ("D/**") holding the allow rule's files.
type guardIndex struct {
	wide, exact, prefix, dirs map[string]permission.Rule
}

func newGuardIndex(rules []permission.Rule) *guardIndex {
	gi := &guardIndex{wide: map[string]permission.Rule{}, exact: map[string]permission.Rule{}, prefix: map[string]permission.Rule{}, dirs: map[string]permission.Rule{}}
	put := func(m map[string]permission.Rule, k string, r permission.Rule) {
		if _, ok := m[k]; !ok {
			m[k] = r
		}
	}
	for _, g := range rules {
		if strings.EqualFold(g.Behavior, allow) || isToolPattern(g.ToolName) {
			continue
		}
		c := ruleContent(g)
		if c == "" {
			put(gi.wide, g.ToolName, g)
			continue
		}
		put(gi.exact, g.ToolName+"\x00"+g.Syntax+"\x00"+c, g)
		switch {
		case g.ToolName == "Bash":
			if p, ok := strings.CutSuffix(c, ":*"); ok && len(strings.Fields(p)) > 0 {
				put(gi.prefix, strings.Join(strings.Fields(p), " "), g)
			}
		case PathRuleTools()[g.ToolName]:
			for _, gp := range MatchContents(g) {
				if d, ok := strings.CutSuffix(gp, "/**"); ok && !strings.ContainsAny(d, "*?[{\\") && !strings.HasPrefix(d, paths.FnmatchPrefix) {
					put(gi.dirs, g.ToolName+"\x00"+d, g)
				}
			}
		}
	}
	return gi
}

// guardTools are the tools whose deny and ask rules guard calls of tool
// (the policy's cross-tool path rules: Edit and Write guard each other and
// every edit tool, Read guards Glob and Grep).
func guardTools(tool string) []string {
	switch {
	case tool == "Edit":
		return []string{"Edit", "Write"}
	case tool == "Write":
		return []string{"Write", "Edit"}
	case tables.FileEditTools()[tool]: // every other edit tool meets Edit's rules as its own
		return []string{tool, "Edit", "Write"}
	case tables.FileReadTools()[tool] && tool != "Read":
		return []string{tool, "Read"}
	}
	return []string{tool}
}

// shadowing is the deny or ask rule that matches every call the allow rule
// a does, if the index can tell.
func (gi *guardIndex) shadowing(a permission.Rule) (permission.Rule, bool) {
	ac := ruleContent(a)
	for _, t := range guardTools(a.ToolName) {
		if g, ok := gi.wide[t]; ok && (t == a.ToolName || ac != "") {
			return g, true
		}
		if ac == "" {
			continue
		}
		if g, ok := gi.exact[t+"\x00"+a.Syntax+"\x00"+ac]; ok {
			return g, true
		}
		if a.ToolName == "Bash" {
			words := strings.Fields(strings.TrimSuffix(ac, ":*"))
			for k := 1; k <= len(words); k++ {
				if g, ok := gi.prefix[strings.Join(words[:k], " ")]; ok {
					return g, true
				}
			}
			continue
		}
		if !PathRuleTools()[a.ToolName] {
			continue
		}
		var hit permission.Rule
		all := true
		for _, ap := range MatchContents(a) {
			g, ok := gi.dirHolding(t, ap)
			if !ok {
				all = false
				break
			}
			hit = g
		}
		if all && hit.ToolName != "" {
			return hit, true
		}
	}
	return permission.Rule{}, false
}

// dirHolding is a guard of tool whose directory holds every path the
// pattern p can match.
func (gi *guardIndex) dirHolding(tool, p string) (permission.Rule, bool) {
	lit := p
	if i := strings.IndexAny(p, "*?[{\\"); i >= 0 {
		j := strings.LastIndexByte(p[:i], '/')
		if j < 0 {
			return permission.Rule{}, false
		}
		lit = p[:j]
	}
	for d := lit; ; {
		if g, ok := gi.dirs[tool+"\x00"+d]; ok {
			return g, true
		}
		j := strings.LastIndexByte(d, '/')
		if j < 0 {
			return permission.Rule{}, false
		}
		d = d[:j]
	}
}
