package settings_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// Keys permopa does not read are reported with their file, line and column; a near
// miss of a deny or ask list is an error that makes hooks fail closed
// (settings.UnsafeProblems), in every format and at every level.
func TestLintFileKeys(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, text string
		key        string
		line, col  int // col 0: TOML's decoder gives no columns
		level      string
		unsafe     bool
	}{
		{"x.yaml", "permissions:\n  allow: [\"Bash(ls:*)\"]\n  denny: [\"Bash(rm:*)\"]\n", "permissions.denny", 3, 3, settings.LevelError, true},
		{"x.json", "{\n  \"premissions\": {\n    \"deny\": [\"Read(./.env)\"]\n  }\n}\n", "premissions", 2, 3, settings.LevelError, true},
		{"x.yaml", "model: opus\npermisions:\n  allow: [\"Bash(ls)\"]\n  deny: [\"Bash(rm:*)\"]\n", "permisions", 2, 1, settings.LevelError, true},
		{"x.toml", "[permissions]\nasks = [\"Bash(git push:*)\"]\n", "permissions.asks", 2, 0, settings.LevelError, true},
		{"x.yaml", "deny_rule:\n  Bash: [{tool_name: Bash, rule_content: 'rm:*'}]\n", "deny_rule", 1, 1, settings.LevelError, true},
		{"x.yaml", "mypolicy:\n  deny: [\"Bash(rm:*)\"]\n", "mypolicy", 1, 1, settings.LevelError, true},
		{"x.yaml", "permissions:\n  defaultMod: plan\n", "permissions.defaultMod", 2, 3, settings.LevelWarning, false},
		{"x.yaml", "bypass_honors_safety: true\n", "bypass_honors_safety", 1, 1, settings.LevelWarning, false},
		{"x.yaml", "dangerous_paths:\n  files:\n    ad: [x]\n", "dangerous_paths.files.ad", 3, 5, settings.LevelWarning, false},
		{"x.yaml", "permissions:\n  allow:\n    - {tool_name: deploy, rule_content: null, behaviour: allow}\n", "permissions.allow[0].behaviour", 3, 47, settings.LevelWarning, false},
		{"x.json", "{\"permissions\": {\"Deny\": [\"Bash(rm:*)\"]}}", "permissions.Deny", 1, 18, settings.LevelWarning, false},
		{"x.yaml", "permissions:\n  allow: [\"Bash(ls)\"]\nnetwork_read: ask\n", "network_read", 3, 1, settings.LevelWarning, false},
	}
	for _, c := range cases {
		file := filepath.Join(dir, c.name)
		if err := os.WriteFile(file, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		fs, err := settings.LintFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var hit *settings.Problem
		for i := range fs {
			if fs[i].Key == c.key {
				hit = &fs[i]
			}
		}
		if hit == nil || hit.Line != c.line || hit.Column != c.col || hit.Level != c.level || hit.File != file {
			t.Errorf("%q: findings %+v, want %s at %d:%d (%s)", c.text, fs, c.key, c.line, c.col, c.level)
			continue
		}
		if unsafe := len(settings.UnsafeProblems(settings.LintProblems(fs))) > 0; unsafe != c.unsafe {
			t.Errorf("%q: unsafe %v, want %v", c.text, unsafe, c.unsafe)
		}
	}
	// A key with dots is read as its path: not reported as unread.
	file0 := filepath.Join(dir, "dots.yaml")
	os.WriteFile(file0, []byte("permissions.deny: [\"Bash(rm:*)\"]\n"), 0o644)
	if fs, _ := settings.LintFile(file0); len(fs) != 0 {
		t.Errorf("a key with dots: %+v", fs)
	}
	// A Claude Code settings.json reads as is: its own keys are not reported.
	file := filepath.Join(dir, "claude.json")
	os.WriteFile(file, []byte(`{"$schema": "x", "model": "opus", "env": {"A": "1"}, "hooks": {}, "permissions": {"allow": ["Bash(ls:*)"], "defaultMode": "acceptEdits", "additionalDirectories": ["../x"]}}`), 0o644)
	if fs, _ := settings.LintFile(file); len(fs) != 0 {
		t.Errorf("Claude Code settings: %+v", fs)
	}
}

// A misspelt rule_content is not read as an allow rule covering every call
// of its tool: the rule is reported and left out. A deny rule stays
// tool-wide: too strict, never too lenient.
func TestRuleObjectWithMisspeltContentIsNotRead(t *testing.T) {
	_, err := settings.RuleFrom(map[string]any{"tool_name": "Bash", "rule_contnet": "rm:*"}, "allow")
	if err == nil || !strings.Contains(err.Error(), "rule_contnet") {
		t.Fatalf("got %v", err)
	}
	r, err := settings.RuleFrom(map[string]any{"tool_name": "Bash", "rule_contnet": "rm:*"}, "deny")
	if err != nil || r.RuleContent != nil {
		t.Fatalf("deny: %+v %v", r, err)
	}
}

// Rules that do not mean what they look like.
func TestLintRules(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	file := filepath.Join(proj, ".permopa", "settings.yaml")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte("permissions:\n  deny: [x]\n"), 0o644)
	rule := func(b, s string) permission.Rule {
		r, err := settings.RuleFrom(s, b)
		if err != nil {
			t.Fatal(err)
		}
		r.Source, r.Layer, r.Project = settings.SourceProject, file, proj
		return r
	}
	cases := []struct {
		rules []permission.Rule
		rule  string // the rule the finding names
		check string
		level string
	}{
		{[]permission.Rule{rule("deny", "bash(rm:*)")}, "bash(rm:*)", settings.CheckUnknownTool, settings.LevelError},
		{[]permission.Rule{rule("ask", "Reed(./.env)")}, "Reed(./.env)", settings.CheckUnknownTool, settings.LevelError},
		{[]permission.Rule{rule("allow", "Wirte(src/**)")}, "Wirte(src/**)", settings.CheckUnknownTool, settings.LevelWarning},
		{[]permission.Rule{rule("allow", "Bash(*)")}, "Bash(*)", settings.CheckWide, settings.LevelWarning},
		{[]permission.Rule{rule("allow", "Bash(:*)")}, "Bash(:*)", settings.CheckWide, settings.LevelWarning},
		{[]permission.Rule{rule("allow", "Bash(sudo:*)")}, "Bash(sudo:*)", settings.CheckWide, settings.LevelWarning},
		{[]permission.Rule{rule("allow", "Bash(bash:*)")}, "Bash(bash:*)", settings.CheckWide, settings.LevelWarning},
		{[]permission.Rule{rule("allow", "Bash(python:*)")}, "Bash(python:*)", settings.CheckWide, settings.LevelWarning},
		{[]permission.Rule{rule("allow", "Bash(python -c:*)")}, "Bash(python -c:*)", settings.CheckWide, settings.LevelWarning},
		{[]permission.Rule{rule("allow", "Bash(git:*)")}, "Bash(git:*)", settings.CheckWide, settings.LevelWarning},
		{[]permission.Rule{rule("allow", "Bash(find:*)")}, "Bash(find:*)", settings.CheckWide, settings.LevelWarning},
		{[]permission.Rule{rule("allow", "Bash")}, "Bash", settings.CheckWide, settings.LevelWarning},
		{[]permission.Rule{rule("allow", "Edit(//**)")}, "Edit(//**)", settings.CheckWide, settings.LevelWarning},
		{[]permission.Rule{rule("allow", "Write(~/**)")}, "Write(~/**)", settings.CheckWide, settings.LevelWarning},
		{[]permission.Rule{rule("deny", "Bash"), rule("allow", "Bash(git status:*)")}, "Bash(git status:*)", settings.CheckShadowed, settings.LevelWarning},
		{[]permission.Rule{rule("deny", "Bash(git:*)"), rule("allow", "Bash(git status:*)")}, "Bash(git status:*)", settings.CheckShadowed, settings.LevelWarning},
		{[]permission.Rule{rule("ask", "Bash(npm run:*)"), rule("allow", "Bash(npm run build)")}, "Bash(npm run build)", settings.CheckShadowed, settings.LevelWarning},
		{[]permission.Rule{rule("deny", "Edit(src/**)"), rule("allow", "Edit(src/gen/*.go)")}, "Edit(src/gen/*.go)", settings.CheckShadowed, settings.LevelWarning},
		{[]permission.Rule{rule("deny", "Write(/build/)"), rule("allow", "Edit(/build/out/**)")}, "Edit(/build/out/**)", settings.CheckShadowed, settings.LevelWarning},
		{[]permission.Rule{rule("deny", "Read(//etc/**)"), rule("allow", "Grep(//etc/ssl/**)")}, "Grep(//etc/ssl/**)", settings.CheckShadowed, settings.LevelWarning},
		{[]permission.Rule{rule("deny", "Read(/etc/passwd)")}, "Read(/etc/passwd)", settings.CheckAmbiguousPath, settings.LevelWarning},
		{[]permission.Rule{rule("allow", "Edit(/src/**)")}, "Edit(/src/**)", settings.CheckAmbiguousPath, settings.LevelInfo},
		{[]permission.Rule{rule("deny", "Read(.env)")}, "Read(.env)", settings.CheckClaudeDiffers, settings.LevelInfo},
		{[]permission.Rule{rule("allow", "Edit(src/{a,b}.go)")}, "Edit(src/{a,b}.go)", settings.CheckClaudeDiffers, settings.LevelInfo},
		{[]permission.Rule{rule("deny", "Read(~root/.ssh/**)")}, "Read(~root/.ssh/**)", settings.CheckClaudeDiffers, settings.LevelWarning},
		{[]permission.Rule{rule("allow", "Read(src/**)")}, "Read(src/**)", settings.CheckNeverDecides, settings.LevelInfo},
	}
	for _, c := range cases {
		fs := settings.LintRules(c.rules)
		found := false
		for _, f := range fs {
			if f.Rule == c.rule && f.Kind == c.check && f.Level == c.level && f.File == file {
				found = true
			}
		}
		if !found {
			t.Errorf("%v: findings %+v, want %s/%s on %s", c.rules, fs, c.check, c.level, c.rule)
		}
	}
	// Rules that mean what they look like are not reported.
	quiet := []permission.Rule{
		rule("allow", "Bash(npm run build)"), rule("allow", "Bash(git status:*)"), rule("deny", "Bash(rm -rf:*)"),
		rule("allow", "Edit(src/**)"), rule("deny", "Read(//etc/shadow)"), rule("ask", "mcp__github__create_issue"),
		rule("allow", "deploy"), rule("allow", "WebFetch(domain:example.com)"), rule("deny", "Edit(~/.bashrc)"),
	}
	if fs := settings.LintRules(quiet); len(fs) != 0 {
		t.Errorf("quiet rules reported: %+v", fs)
	}
}

// A settings load reports a typo'd deny list as a problem that makes hooks
// fail closed, and shadowed rules and near-miss tool names as warnings.
func TestLoadReportsLintProblems(t *testing.T) {
	tr := newTree(t)
	tr.write(t, ".permopa/settings.yaml", "permissions:\n  allow: [\"Bash(ls:*)\"]\n  denny: [\"Bash(rm:*)\"]\n  deny: [\"Reed(./.env)\"]\n")
	_, problems := settings.LoadLayers(tr.opts())
	unsafe := settings.UnsafeProblems(problems)
	if len(unsafe) != 1 || !strings.Contains(unsafe[0].Error(), "denny") || !strings.Contains(unsafe[0].Error(), ":3") {
		t.Errorf("unsafe: %v", unsafe)
	}
	var f *settings.Problem
	found := false
	for _, p := range problems {
		if errors.As(p, &f) && f.Kind == settings.CheckUnknownTool && f.Line == 4 {
			found = true
		}
	}
	if !found {
		t.Errorf("no unknown-tool problem: %v", problems)
	}
}
