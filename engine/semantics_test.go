package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// semanticsTree is a project (.permopa/settings.yaml), a cwd below it, a
// home and a user settings directory; paths in cases are written with
// {P} (the project), {C} (the cwd) and {H} (the home).
type semanticsTree struct {
	*tree
	cwd string
	eng *engine.Engine
	l   *settings.Layers
}

func newSemanticsTree(t *testing.T) *semanticsTree {
	tr := newTree(t)
	st := &semanticsTree{tree: tr, cwd: filepath.Join(tr.proj, "pkg")}
	o := tr.opts()
	o.Cwd = st.cwd
	st.l = settings.NewLayers(o)
	eng, err := newEngine(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st.eng = eng
	if problems := st.l.Attach(context.Background(), eng); len(problems) > 0 {
		t.Fatal(problems)
	}
	return st
}

func (st *semanticsTree) expand(s string) string {
	return strings.NewReplacer("{P}", st.proj, "{C}", st.cwd, "{H}", st.home).Replace(s)
}

// rules writes the rules into a layer's file and applies them.
func (st *semanticsTree) rules(t *testing.T, file, behavior string, rules ...string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("permissions:\n  " + behavior + ":\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "    - %q\n", r)
	}
	st.write(t, file, b.String())
	if problems := st.l.Reload(context.Background()); len(settings.UnsafeProblems(problems)) > 0 {
		t.Fatal(problems)
	}
}

func (st *semanticsTree) decide(tool, path, mode string) permission.Decision {
	field := "file_path"
	if tool == "NotebookEdit" {
		field = "notebook_path"
	}
	return st.eng.Decide(context.Background(), map[string]any{
		"tool_name": tool, "tool_input": map[string]any{field: path},
		"cwd": st.cwd, "permission_mode": mode,
	})
}

// Claude Code's documented path-rule examples (code.claude.com, "Read and
// Edit" permission rules), in a project's .permopa/settings.yaml, decided
// end to end. An allow rule covers what Claude Code documents and no more;
// a deny rule hits under every reading the documentation leaves open (a
// "/path" meant as absolute, a pattern without "/" at any depth).
// docs/rules.md has the same table.
func TestClaudeCodePathRules(t *testing.T) {
	t.Parallel()
	st := newSemanticsTree(t)
	projectFile := filepath.Join(".permopa", "settings.yaml")
	cases := []struct {
		rule, path  string
		allow, deny bool
	}{
		{"//Users/alice/secrets/**", "/Users/alice/secrets/key.txt", true, true},
		{"//Users/alice/secrets/**", "{P}/Users/alice/secrets/key.txt", false, false},
		{"//tmp/scratch.txt", "/tmp/scratch.txt", true, true},
		{"~/Documents/*.pdf", "{H}/Documents/a.pdf", true, true},
		{"~/Documents/*.pdf", "{H}/Documents/old/a.pdf", false, false},
		{"~/.zshrc", "{H}/.zshrc", false, true}, // a dangerous path: a safety ASK before any allow rule
		{"/src/**/*.ts", "{P}/src/a/b.ts", true, true},
		{"/src/**/*.ts", "{C}/src/b.ts", false, false},
		{"/docs/**", "{P}/docs/guide.md", true, true},
		{"/docs/**", "{P}/.claude/docs/guide.md", false, false},
		{"/docs/**", "/docs/guide.md", false, true},
		{"*.cfg", "{C}/app.cfg", true, true},
		{"*.cfg", "{C}/conf/app.cfg", false, true},
		{"*.cfg", "{P}/app.cfg", false, false},
		{"./app.cfg", "{C}/app.cfg", true, true},
		{"./app.cfg", "{C}/deep/app.cfg", false, true},
		{"src/**", "{C}/src/x/y.go", true, true},
		{"src/**", "{P}/src/y.go", false, false},
		{"src/*", "{C}/src/a/b.go", false, true},
		{"build/", "{C}/build/out.o", true, true},
		{"build/", "{C}/x/build/out.o", false, true},
		{"**/gen.go", "{C}/a/b/gen.go", true, true},
		{"**/gen.go", "/elsewhere/gen.go", false, true},
		{"{a,b}.txt", "{C}/a.txt", false, true},
	}
	for _, c := range cases {
		path := st.expand(c.path)
		st.rules(t, projectFile, "allow", "Edit("+c.rule+")")
		d := st.decide("Edit", path, "default")
		if got := d.Step == permission.StepAllowRule; got != c.allow {
			t.Errorf("allow Edit(%s) on %s: %s/%s, want covered %v", c.rule, path, d.Behavior, d.Step, c.allow)
		}
		st.rules(t, projectFile, "deny", "Read("+c.rule+")", "Edit("+c.rule+")")
		for _, tool := range []string{"Read", "Edit", "Write", "MultiEdit"} {
			d := st.decide(tool, path, "bypassPermissions")
			if got := d.Step == permission.StepDenyRule; got != c.deny {
				t.Errorf("deny Read/Edit(%s) on %s %s: %s/%s, want denied %v", c.rule, tool, path, d.Behavior, d.Step, c.deny)
			}
		}
	}
}

// "/path" in user (or managed, or command-line) settings is relative to the
// project permopa decides for, as Claude Code reads its user settings
// against the session's project; a deny rule also reads it as absolute and
// from the call's cwd.
func TestClaudeCodePathRulesUserLayer(t *testing.T) {
	t.Parallel()
	st := newSemanticsTree(t)
	userFile := filepath.Join(st.user, "settings.yaml")
	st.rules(t, userFile, "allow", "Edit(/src/**)")
	for path, want := range map[string]bool{"{P}/src/a.go": true, "/src/a.go": false, "{C}/src/a.go": false} {
		if d := st.decide("Edit", st.expand(path), "default"); (d.Step == permission.StepAllowRule) != want {
			t.Errorf("user allow Edit(/src/**) on %s: %s/%s, want covered %v", path, d.Behavior, d.Step, want)
		}
	}
	st.rules(t, userFile, "deny", "Edit(/src/**)")
	for _, path := range []string{"{P}/src/a.go", "/src/a.go", "{C}/src/a.go"} {
		if d := st.decide("Edit", st.expand(path), "bypassPermissions"); d.Step != permission.StepDenyRule {
			t.Errorf("user deny Edit(/src/**) on %s: %s/%s", path, d.Behavior, d.Step)
		}
	}
}

// Rules arriving as AgentScope objects (the input's permission_context, a
// PermissionContext document in settings) match as AgentScope matches them:
// fnmatch, "*" crossing "/", on the path as written; deny rules also on
// every other spelling of the file.
func TestAgentScopePathRules(t *testing.T) {
	t.Parallel()
	st := newSemanticsTree(t)
	ctx := context.Background()
	rule := func(b, tool, content string) map[string]any {
		return map[string]any{strings.ToLower(b) + "_rules": map[string]any{tool: []any{
			map[string]any{"tool_name": tool, "rule_content": content, "behavior": b},
		}}}
	}
	cases := []struct {
		behavior, content, tool, path, mode string
		want                                string // the decision's step
	}{
		{"allow", "{C}/src/*", "Edit", "{C}/src/a/b.go", "default", permission.StepAllowRule},
		{"allow", "src/*", "Edit", "src/a/b.go", "default", permission.StepAllowRule},
		{"allow", "src/*", "Edit", "{C}/src/a/b.go", "default", permission.StepAllowRule},
		{"allow", "{C}/src/**", "Edit", "{C}/src/../../../etc/x", "default", permission.StepModeFallback},
		{"allow", "*.py", "Edit", "{C}/a.PY", "default", permission.StepModeFallback},
		{"deny", "src/**", "Read", "{C}/src/a.py", "bypassPermissions", permission.StepDenyRule},
		{"deny", "/etc/*", "Read", "/proc/1/root/etc/hosts", "bypassPermissions", permission.StepDenyRule},
		{"deny", "~/notes/*", "Read", "{H}/notes/a", "bypassPermissions", permission.StepDenyRule},
		{"deny", "*.cfg", "MultiEdit", "{C}/deep/x.cfg", "bypassPermissions", permission.StepDenyRule},
	}
	for _, c := range cases {
		in := map[string]any{
			"tool_name": c.tool, "tool_input": map[string]any{"file_path": st.expand(c.path)},
			"cwd": st.cwd, "permission_mode": c.mode,
			"permission_context": rule(strings.ToUpper(c.behavior), c.tool, st.expand(c.content)),
		}
		if c.tool == "MultiEdit" {
			in["permission_context"] = rule(strings.ToUpper(c.behavior), "Edit", st.expand(c.content))
		}
		if d := st.eng.Decide(ctx, in); d.Step != c.want {
			t.Errorf("%s %s(%s) on %s %s: %s/%s, want step %s", c.behavior, c.tool, c.content, c.tool, c.path, d.Behavior, d.Step, c.want)
		}
	}
	// The same document read as settings.
	st.write(t, filepath.Join(".permopa", "settings.yaml"), "allow_rules:\n  Edit:\n    - {tool_name: Edit, rule_content: \""+st.cwd+"/src/*\", behavior: allow}\n")
	st.l.Reload(ctx)
	if d := st.decide("Edit", st.cwd+"/src/a/b.go", "default"); d.Step != permission.StepAllowRule {
		t.Errorf("settings allow_rules: %s/%s", d.Behavior, d.Step)
	}
}

// Paths that reach the same file by another road meet the path rules.
func TestPathRulesOtherRoads(t *testing.T) {
	t.Parallel()
	st := newSemanticsTree(t)
	st.rules(t, filepath.Join(".permopa", "settings.yaml"), "deny", "Read(//etc/**)", "Edit(//etc/**)")
	for _, p := range []string{
		"/etc/hosts", "/etc/./hosts", "//etc/hosts", "/tmp/../etc/hosts", "/proc/self/root/etc/hosts",
		"/proc/1/root/etc/hosts", "/proc/1/task/1/root/etc/hosts", "~root/../etc/hosts",
	} {
		for _, tool := range []string{"Read", "Edit"} {
			if d := st.decide(tool, p, "bypassPermissions"); d.Step != permission.StepDenyRule {
				t.Errorf("%s %s: %s/%s", tool, p, d.Behavior, d.Step)
			}
		}
		d := st.eng.Decide(context.Background(), map[string]any{
			"tool_name": "Bash", "tool_input": map[string]any{"command": "cat " + p},
			"cwd": st.cwd, "permission_mode": "bypassPermissions",
		})
		if d.Step != permission.StepDenyRule {
			t.Errorf("Bash cat %s: %s/%s", p, d.Behavior, d.Step)
		}
	}
	// An allow rule on the road's spelling does not cover the file.
	st.rules(t, filepath.Join(".permopa", "settings.yaml"), "allow", "Edit(//proc/**)")
	if d := st.decide("Edit", "/proc/1/root/etc/hosts", "default"); d.Behavior == permission.Allow {
		t.Errorf("allow on /proc covered /etc: %s/%s", d.Behavior, d.Step)
	}
}

// Where the file system ignores case (macOS, Windows, or the setting
// case_insensitive_paths), deny and ask rules hit any spelling; allow rules
// cover only the spelling they name.
func TestCaseInsensitivePaths(t *testing.T) {
	t.Parallel()
	st := newSemanticsTree(t)
	file := filepath.Join(".permopa", "settings.yaml")
	st.write(t, file, "case_insensitive_paths: true\npermissions:\n  deny: [\"Write(//etc/**)\", \"Read(~/.AWS/**)\"]\n  ask: [\"Edit(*.cfg)\"]\n  allow: [\"Edit(//srv/app/**)\"]\n")
	st.l.Reload(context.Background())
	for _, c := range []struct{ tool, path, step string }{
		{"Write", "/ETC/passwd", permission.StepDenyRule},
		{"Write", "/Etc/Passwd", permission.StepDenyRule},
		{"MultiEdit", "/eTc/x", permission.StepDenyRule},
		{"Read", "{H}/.aws/credentials", permission.StepDenyRule},
		{"Edit", "{C}/App.CFG", permission.StepAskRule},
		{"Edit", "/srv/app/main.go", permission.StepAllowRule},
		{"Edit", "/SRV/APP/main.go", permission.StepModeFallback},
	} {
		if d := st.decide(c.tool, st.expand(c.path), "default"); d.Step != c.step {
			t.Errorf("%s %s: %s/%s, want %s", c.tool, c.path, d.Behavior, d.Step, c.step)
		}
	}
	d := st.eng.Decide(context.Background(), map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": "echo x > /ETC/motd"},
		"cwd": st.cwd, "permission_mode": "bypassPermissions",
	})
	if d.Step != permission.StepDenyRule {
		t.Errorf("Bash redirect to /ETC/motd: %s/%s", d.Behavior, d.Step)
	}
}

// MultiEdit and NotebookEdit are edit tools in the Go API and decide as the
// Claude hook decides them: Edit's and Write's deny and ask rules, Edit's
// allow rules, dangerous paths and the working directories of ACCEPT_EDITS.
func TestEveryEditToolIsAnEditTool(t *testing.T) {
	t.Parallel()
	st := newSemanticsTree(t)
	file := filepath.Join(".permopa", "settings.yaml")
	st.write(t, file, "permissions:\n  deny: [\"Edit(prod.cfg)\", \"Write(//srv/**)\"]\n  ask: [\"Edit(*.lock)\"]\n  allow: [\"Edit(//opt/app/**)\"]\n")
	st.l.Reload(context.Background())
	for _, tool := range []string{"Edit", "MultiEdit", "NotebookEdit"} {
		for _, c := range []struct{ path, mode, behavior, step string }{
			{"{C}/prod.cfg", "bypassPermissions", "DENY", permission.StepDenyRule},
			{"{C}/sub/prod.cfg", "acceptEdits", "DENY", permission.StepDenyRule},
			{"/srv/x", "bypassPermissions", "DENY", permission.StepDenyRule},
			{"{C}/go.lock", "acceptEdits", "ASK", permission.StepAskRule},
			{"/opt/app/a", "default", "ALLOW", permission.StepAllowRule},
			{"{C}/a.go", "acceptEdits", "ALLOW", permission.StepToolCheck},
			{"{C}/a.go", "default", "ASK", permission.StepModeFallback},
			{"{C}/a.go", "plan", "DENY", permission.StepModeFallback},
			{"/tmp/elsewhere.go", "acceptEdits", "ASK", permission.StepModeFallback},
			{"{H}/.bashrc", "acceptEdits", "ASK", permission.StepToolCheck},
			{"{C}/.git/hooks/pre-commit", "dontAsk", "DENY", permission.StepToolCheck},
		} {
			d := st.decide(tool, st.expand(c.path), c.mode)
			if d.Behavior != c.behavior || d.Step != c.step {
				t.Errorf("%s %s (%s): %s/%s %s, want %s/%s", tool, c.path, c.mode, d.Behavior, d.Step, d.Message, c.behavior, c.step)
			}
		}
	}
	// The suggestion for a MultiEdit call is an Edit rule, which covers it.
	d := st.decide("MultiEdit", "/var/x/a.go", "default")
	if len(d.SuggestedRules) != 1 || d.SuggestedRules[0].ToolName != "Edit" {
		t.Errorf("MultiEdit suggestion: %+v", d.SuggestedRules)
	}
}

// The engine reads path rules for the policy's file tools: its list is the
// policy's (data.permopa.policy.tools.files.tools).
func TestPathRuleToolsAreThePolicysFileTools(t *testing.T) {
	t.Parallel()
	eng, err := newEngine(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	v, err := eng.Evaluate(context.Background(), "x := data.permopa.policy.tools.files.tools", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range v.(map[string]any)["x"].([]any) {
		got = append(got, x.(string))
	}
	var want []string
	for name := range settings.PathRuleTools() {
		want = append(want, name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("policy file tools %v, settings.PathRuleTools() %v", got, want)
	}
}

// The other rule forms, in a settings file, decided end to end (the table
// of docs/rules.md, "Other rule forms").
func TestOtherRuleForms(t *testing.T) {
	t.Parallel()
	st := newSemanticsTree(t)
	file := filepath.Join(".permopa", "settings.yaml")
	cases := []struct {
		rule, tool string
		input      map[string]any
		want       bool
	}{
		{"WebFetch(domain:example.com)", "WebFetch", map[string]any{"url": "https://example.com/a"}, true},
		{"WebFetch(domain:example.com)", "WebFetch", map[string]any{"url": "https://EXAMPLE.com:8443/a"}, true},
		{"WebFetch(domain:example.com)", "WebFetch", map[string]any{"url": "https://docs.example.com/a"}, false},
		{"WebFetch(domain:example.com)", "WebFetch", map[string]any{"url": "https://example.com.evil.net/a"}, false},
		{"WebFetch(domain:*.example.com)", "WebFetch", map[string]any{"url": "https://docs.example.com/a"}, true},
		{"WebFetch(domain:*.example.com)", "WebFetch", map[string]any{"url": "https://a.b.example.com/a"}, false},
		{"WebFetch", "WebFetch", map[string]any{"url": "https://any.where/"}, true},
		{"mcp__github__create_issue", "mcp__github__create_issue", map[string]any{"title": "x"}, true},
		{"mcp__github__create_issue", "mcp__github__delete_repo", map[string]any{}, false},
		{"mcp__github__*", "mcp__github__delete_repo", map[string]any{}, true},
		{"mcp__github__*", "mcp__gitlab__delete_repo", map[string]any{}, false},
		{"deploy", "deploy", map[string]any{"env": "prod"}, true},
		{`deploy({"env":"staging"})`, "deploy", map[string]any{"env": "staging"}, true},
		{`deploy({"env":"staging"})`, "deploy", map[string]any{"env": "prod"}, false},
		{`deploy({"env":"stag*"})`, "deploy", map[string]any{"env": "staging"}, true},
		{`deploy({"env":"stag*"})`, "deploy", map[string]any{"env": "prod"}, false},
		{`mcp__fetch__get({"url":"https://docs.example.com/*"})`, "mcp__fetch__get", map[string]any{"url": "https://docs.example.com/a.b/c"}, true},
		{`mcp__fetch__get({"url":"https://docs.example.com/*"})`, "mcp__fetch__get", map[string]any{"url": "https://evil.example.net/"}, false},
	}
	// An allow rule's "*" stays inside one JSON string; a deny rule's
	// crosses anything.
	for _, c := range []struct {
		b    string
		want bool
	}{{"allow", false}, {"deny", true}} {
		st.rules(t, file, c.b, `deploy({"env":"stag*"})`)
		d := st.eng.Decide(context.Background(), map[string]any{"tool_name": "deploy", "tool_input": map[string]any{"env": "stag", "target": "prod"}, "cwd": st.cwd, "permission_mode": "bypassPermissions"})
		if got := d.Step == permission.StepAllowRule || d.Step == permission.StepDenyRule; got != c.want {
			t.Errorf("%s deploy({\"env\":\"stag*\"}) on {env: stag, target: prod}: %s/%s, want match %v", c.b, d.Behavior, d.Step, c.want)
		}
	}
	for _, c := range cases {
		for _, b := range []string{"allow", "deny"} {
			st.rules(t, file, b, c.rule)
			mode := "default"
			step := permission.StepAllowRule
			if b == "deny" {
				mode, step = "bypassPermissions", permission.StepDenyRule
			}
			d := st.eng.Decide(context.Background(), map[string]any{"tool_name": c.tool, "tool_input": c.input, "cwd": st.cwd, "permission_mode": mode})
			if (d.Step == step) != c.want {
				t.Errorf("%s %s on %s %v: %s/%s, want match %v", b, c.rule, c.tool, c.input, d.Behavior, d.Step, c.want)
			}
		}
	}
}

// A rule whose tool name is a pattern reads its content as a path rule when
// it meets a path tool (its readings are indexed with it: path_contents).
func TestToolPatternPathRules(t *testing.T) {
	t.Parallel()
	st := newSemanticsTree(t)
	st.rules(t, filepath.Join(".permopa", "settings.yaml"), "deny", "E*(prod.cfg)")
	for path, want := range map[string]bool{"{C}/prod.cfg": true, "{C}/deep/prod.cfg": true, "{P}/prod.cfg": false} {
		d := st.decide("Edit", st.expand(path), "bypassPermissions")
		if (d.Step == permission.StepDenyRule) != want {
			t.Errorf("deny E*(prod.cfg) on Edit %s: %s/%s, want denied %v", path, d.Behavior, d.Step, want)
		}
	}
}
