package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// permopaIn runs permopa in dir with the settings layers confined to dir.
func permopaIn(t *testing.T, dir, stdin string, args ...string) (string, string, int) {
	t.Helper()
	env := []string{"HOME=" + dir, "PERMOPA_MANAGED_DIR=" + filepath.Join(dir, "etc"), "PERMOPA_CONFIG_DIR=" + filepath.Join(dir, "user")}
	return permopaAt(t, dir, stdin, env, args...)
}

// `permopa rules add|list|revoke` edit the layer files and show each rule
// with its layer and expiry.
func TestRulesCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, stderr, code := permopaIn(t, dir, "", "rules", "add", "Bash(npm run:*)", "mcp__github__*"); code != 0 {
		t.Fatalf("add: %s", stderr)
	}
	if _, stderr, code := permopaIn(t, dir, "", "rules", "add", "--destination", "user", "--behavior", "deny", "--ttl", "2h", "Read(~/.aws/**)"); code != 0 {
		t.Fatalf("add deny: %s", stderr)
	}
	out, stderr, code := permopaIn(t, dir, "", "rules", "list")
	if code != 0 {
		t.Fatalf("list: %s", stderr)
	}
	for _, want := range []string{
		"allow     Bash(npm run:*)  localSettings", filepath.Join(dir, ".permopa", "settings.local.yaml"),
		"deny      Read(~/.aws/**)  userSettings", filepath.Join(dir, "user", "settings.yaml"), "Z\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list output lacks %q:\n%s", want, out)
		}
	}
	if _, stderr, code := permopaIn(t, dir, "", "rules", "add", "Bash(oops"); code == 0 || !strings.Contains(stderr, "Bash(oops") {
		t.Errorf("invalid rule: exit %d, %s", code, stderr)
	}
	if out, stderr, code := permopaIn(t, dir, "", "rules", "revoke", "Bash(npm run:*)"); code != 0 || !strings.Contains(out, "revoked 1") {
		t.Fatalf("revoke: %s %s", out, stderr)
	}
	out, _, _ = permopaIn(t, dir, "", "rules", "list", "--json")
	if strings.Contains(out, "npm run") || !strings.Contains(out, `"rule": "mcp__github__*"`) {
		t.Errorf("after revoke:\n%s", out)
	}
	if _, stderr, code := permopaIn(t, dir, "", "rules", "revoke", "Bash(npm run:*)"); code == 0 || !strings.Contains(stderr, "no allow rule") {
		t.Errorf("revoking a missing rule: exit %d %s", code, stderr)
	}
}

// Separate processes adding rules to the same file at once lose none: the
// lock file serialises them across processes.
func TestRulesAddConcurrentProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 12
	errs := make(chan string, n)
	done := make(chan struct{})
	for i := 0; i < n; i++ {
		go func(i int) {
			defer func() { done <- struct{}{} }()
			if _, stderr, code := permopaIn(t, dir, "", "rules", "add", "--destination", "project", "Bash(job"+strings.Repeat("x", i)+":*)"); code != 0 {
				errs <- stderr
			}
		}(i)
	}
	for i := 0; i < n; i++ {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	out, _, _ := permopaIn(t, dir, "", "rules", "list")
	if got := strings.Count(out, "Bash(job"); got != n {
		t.Fatalf("%d rules listed, want %d:\n%s", got, n, out)
	}
}

// `permopa rules lint` reports what settings do not mean what they look
// like, each finding with its file and line, and exits 1 for CI when a
// finding is at or above --fail-on.
func TestRulesLint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, []byte(`{
  "permissions": {
    "allow": ["Bash(sudo:*)", "Edit(/src/**)", "Bash(git status:*)"],
    "denny": ["Bash(rm -rf:*)"],
    "deny": ["Reed(./.env)", "Read(/etc/passwd)", "Bash(git:*)"]
  },
  "model": "opus"
}
`), 0o644)
	out, stderr, code := permopaIn(t, dir, "", "rules", "lint", "--format", "json", file)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s %s", code, out, stderr)
	}
	var res struct {
		Findings []struct {
			Level, Check, File, Key, Rule string
			Line                          int
		}
		Counts map[string]int
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []struct {
		check, what string
		line        int
		level       string
	}{
		{"unknown-key", "permissions.denny", 4, "error"},
		{"unknown-tool", "Reed(./.env)", 5, "error"},
		{"wide", "Bash(sudo:*)", 3, "warning"},
		{"shadowed", "Bash(git status:*)", 3, "warning"},
		{"ambiguous-path", "Read(/etc/passwd)", 5, "warning"},
		{"ambiguous-path", "Edit(/src/**)", 3, "info"},
	}
	for _, w := range want {
		found := false
		for _, f := range res.Findings {
			if f.Check == w.check && (f.Key == w.what || f.Rule == w.what) && f.Line == w.line && f.Level == w.level && f.File == file {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s finding for %s at line %d (%s): %s", w.check, w.what, w.line, w.level, out)
		}
	}
	// The text form names file and line; --fail-on never always exits 0.
	out, _, code = permopaIn(t, dir, "", "rules", "lint", "--fail-on", "never", file)
	if code != 0 || !strings.Contains(out, file+":4:5: error: permissions.denny") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
	// Clean settings pass; a bad level is an error.
	clean := filepath.Join(dir, "clean.yaml")
	os.WriteFile(clean, []byte("permissions:\n  allow: [\"Bash(npm run build)\"]\n  deny: [\"Read(//etc/shadow)\"]\n"), 0o644)
	if out, stderr, code := permopaIn(t, dir, "", "rules", "lint", clean); code != 0 {
		t.Errorf("clean: exit %d %s %s", code, out, stderr)
	}
	if _, stderr, code := permopaIn(t, dir, "", "rules", "lint", "--fail-on", "loud", clean); code == 0 || !strings.Contains(stderr, "--fail-on") {
		t.Errorf("bad --fail-on: exit %d %s", code, stderr)
	}
	// Without files, every layer is linted: here the project's .permopa file.
	os.MkdirAll(filepath.Join(dir, ".permopa"), 0o755)
	os.WriteFile(filepath.Join(dir, ".permopa", "settings.yaml"), []byte("permissions:\n  asks: [\"Bash(git push:*)\"]\n"), 0o644)
	out, _, code = permopaIn(t, dir, "", "rules", "lint", "--fail-on", "error")
	if code != 1 || !strings.Contains(out, "settings.yaml:2:3: error: permissions.asks") {
		t.Errorf("layers: exit %d\n%s", code, out)
	}
}

// A typo'd deny list makes the hook fail closed and decide warn, naming the
// file and line.
func TestTypoedDenyListFailsClosed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".permopa"), 0o755)
	os.WriteFile(filepath.Join(dir, ".permopa", "settings.yaml"), []byte("permissions:\n  allow: [\"Bash(ls:*)\"]\n  denny: [\"Bash(rm:*)\"]\n"), 0o644)
	in := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build"},"cwd":"` + dir + `","permission_mode":"bypassPermissions"}`
	out, _, _ := permopaIn(t, dir, in, "hook", "claude")
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "denny") {
		t.Errorf("hook: %s", out)
	}
	out, stderr, code := permopaIn(t, dir, in, "decide")
	if code != 0 || !strings.Contains(stderr, "settings.yaml:3") || !strings.Contains(stderr, "denny") {
		t.Errorf("decide: exit %d, stderr %s, out %s", code, stderr, out)
	}
}

// A Claude Code settings.json given to `permopa decide --settings` means
// what it means in Claude Code: "/path" from the project holding .claude/,
// "./x" and "x" from the cwd (at any depth for deny rules), "//path"
// absolute; Edit rules cover MultiEdit and NotebookEdit; tool-check
// behaviors are read in any case.
func TestDecideClaudeSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	file := filepath.Join(proj, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(`{"permissions": {
  "allow": ["Edit(/src/**)", "Write(//var/tmp/out/**)"],
  "deny": ["Read(./.env)", "Read(/etc/passwd)", "Edit(*.lock)"]
}}`), 0o644)
	cwd := filepath.Join(proj, "pkg")
	line := func(tool, field, path, mode string) string {
		b, _ := json.Marshal(map[string]any{"tool_name": tool, "tool_input": map[string]any{field: path}, "cwd": cwd, "permission_mode": mode})
		return string(b)
	}
	cases := []struct {
		in, behavior, step string
	}{
		{line("Edit", "file_path", proj+"/src/a.go", "default"), "ALLOW", "allow_rule"},
		{line("Edit", "file_path", "/src/a.go", "default"), "ASK", "mode_fallback"},
		{line("Edit", "file_path", cwd+"/src/a.go", "default"), "ASK", "mode_fallback"},
		{line("MultiEdit", "file_path", proj+"/src/a.go", "default"), "ALLOW", "allow_rule"},
		{line("NotebookEdit", "notebook_path", proj+"/src/a.ipynb", "default"), "ALLOW", "allow_rule"},
		{line("Write", "file_path", "/var/tmp/out/x", "default"), "ALLOW", "allow_rule"},
		{line("Read", "file_path", cwd+"/.env", "bypassPermissions"), "DENY", "deny_rule"},
		{line("Read", "file_path", cwd+"/deep/.env", "bypassPermissions"), "DENY", "deny_rule"},
		{line("Read", "file_path", "/etc/passwd", "bypassPermissions"), "DENY", "deny_rule"},
		{line("Read", "file_path", proj+"/etc/passwd", "bypassPermissions"), "DENY", "deny_rule"},
		{line("MultiEdit", "file_path", cwd+"/x/go.lock", "bypassPermissions"), "DENY", "deny_rule"},
		{line("NotebookEdit", "notebook_path", cwd+"/go.lock", "acceptEdits"), "DENY", "deny_rule"},
		{line("MultiEdit", "file_path", dir+"/outside.go", "acceptEdits"), "ASK", "mode_fallback"},
		{`{"tool_name":"deploy","tool_input":{},"cwd":"` + cwd + `","tool_check":{"behavior":"allow"}}`, "ALLOW", "tool_check"},
		{`{"tool_name":"deploy","tool_input":{},"cwd":"` + cwd + `","tool_check":{"behavior":"ask","decision_reason":"safety: prod"},"permission_mode":"acceptEdits"}`, "ASK", "tool_check"},
	}
	var stdin strings.Builder
	for _, c := range cases {
		stdin.WriteString(c.in + "\n")
	}
	out, stderr, code := permopaIn(t, dir, stdin.String(), "decide", "--settings", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ds := decisions(t, out)
	if len(ds) != len(cases) {
		t.Fatalf("%d decisions for %d calls: %s", len(ds), len(cases), out)
	}
	for i, c := range cases {
		if ds[i].Behavior != c.behavior || ds[i].Step != c.step {
			t.Errorf("%s: %s/%s (%s), want %s/%s", c.in, ds[i].Behavior, ds[i].Step, ds[i].Message, c.behavior, c.step)
		}
	}
}

// `permopa rules add` refuses, before writing anything, a rule that does
// not parse and a rule for a near miss of a built-in tool (it would match
// nothing): exit 2, naming the argument and the column. MCP and custom
// tools stay addable.
func TestRulesAddRefusesTyposBeforeWriting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	local := filepath.Join(dir, ".permopa", "settings.local.yaml")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"Reed(src/**)"}, []string{`argument 1, "Reed(src/**)", column 1: no tool is called "Reed"`, `did you mean "Read"?`}},
		{[]string{"--behavior", "deny", "Bassh(rm:*)"}, []string{`column 1: no tool is called "Bassh"`, `"Bash"`}},
		{[]string{"bash(ls)"}, []string{`no tool is called "bash"`}},
		{[]string{"Read(x/**)", "Wirte(y/**)"}, []string{`argument 2, "Wirte(y/**)", column 1`, `"Write"`}},
		{[]string{"--behavior", "deny", `Bash(rm "x:*)`}, []string{"argument 1", "column 6", "unterminated double quote"}},
		{[]string{"Bash(npm test"}, []string{"argument 1", "column 5", "want Tool or Tool(content)"}},
		{[]string{"Read(x)", "Bash(ls"}, []string{`argument 2, "Bash(ls", column 5: rule "Bash(ls": want Tool or Tool(content)`}},
		{[]string{"Web Fetch(domain:x.example)"}, []string{`argument 1, "Web Fetch(domain:x.example)", column 4:`}},
		{[]string{" Bash(é"}, []string{"column 6:"}},
		{[]string{"(ls)"}, []string{"column 1:"}},
	} {
		_, stderr, code := permopaIn(t, dir, "", append([]string{"rules", "add"}, c.args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", c.args, code, stderr)
		}
		for _, w := range append(c.want, "nothing was written") {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, stderr, w)
			}
		}
		if _, err := os.Stat(local); err == nil {
			data, _ := os.ReadFile(local)
			t.Fatalf("%v: a refused rule was written:\n%s", c.args, data)
		}
	}
	for _, r := range []string{"mcp__github__create_issue", "mcp__x__y", "deploy", `deploy({"env":"prod"})`, "Read(src/**)"} {
		if _, stderr, code := permopaIn(t, dir, "", "rules", "add", "--behavior", "deny", r); code != 0 {
			t.Errorf("%s: exit %d: %s", r, code, stderr)
		}
	}
}

// A settings finding is printed with its own level once: never
// "warning: warning:" or "warning: error:".
func TestRulesCommandsPrintFindingsOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The user's own settings file (permopaIn's PERMOPA_CONFIG_DIR): a
	// project's allow rules would be left out until trusted, and reported
	// as that instead (settings/trust.go).
	if err := os.MkdirAll(filepath.Join(dir, "user"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "user", "settings.yaml"), []byte("permissions:\n  allow:\n    - Reed(src/**)\n  deny:\n    - Bassh(rm:*)\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"rules", "list"}, {"rules", "add", "Bash(ls)"}} {
		_, stderr, _ := permopaIn(t, dir, "", args...)
		if !strings.Contains(stderr, `settings.yaml:3:7: allow: Reed(src/**): no tool is called "Reed"`) ||
			!strings.Contains(stderr, `permopa: error: `) || !strings.Contains(stderr, `permopa: warning: `) {
			t.Errorf("%v: stderr lacks the findings:\n%s", args, stderr)
		}
		for _, doubled := range []string{"warning: warning:", "warning: error:", "error: error:", "error: warning:"} {
			if strings.Contains(stderr, doubled) {
				t.Errorf("%v: %q in\n%s", args, doubled, stderr)
			}
		}
	}
}

// `permopa rules lint` names the line of a rule that cannot be read, the
// line decide names, and the line and column of a file that does not
// parse, with the offending token.
func TestRulesLintPositionsUnreadableRulesAndFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pdir := filepath.Join(dir, ".permopa")
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	yamlFile := filepath.Join(pdir, "settings.yaml")
	if err := os.WriteFile(yamlFile, []byte("permissions:\n  deny:\n    - Bash(git push:*)\n    - Bash(rm \"x:*)\n  allow:\n    - \"Bash(npm test\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, _ := permopaIn(t, dir, "", "rules", "lint")
	_, derr, _ := permopaIn(t, dir, `{"tool_name":"Bash","tool_input":{"command":"ls"}}`, "decide")
	for _, w := range []string{yamlFile + ":4:7: error: permissions.deny: rule Bash(rm \"x:*)", yamlFile + ":6:7: warning: permissions.allow:"} {
		if !strings.Contains(out, w) {
			t.Errorf("lint output lacks %q:\n%s", w, out)
		}
	}
	if !strings.Contains(derr, yamlFile+":4:7: permissions.deny") {
		t.Errorf("decide names another place:\n%s", derr)
	}
	if err := os.WriteFile(yamlFile, []byte("permissions:\n  deny: [Bash(x)\n  allow: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, _ = permopaIn(t, dir, "", "rules", "lint")
	if want := yamlFile + ":3:3: error: not valid yaml: did not find expected ',' or ']' (found `allow`) [unreadable]"; !strings.Contains(out, want) || strings.Count(out, "[unreadable]") != 1 {
		t.Errorf("lint output lacks %q once:\n%s", want, out)
	}
	if err := os.Remove(yamlFile); err != nil {
		t.Fatal(err)
	}
	jsonFile := filepath.Join(pdir, "settings.json")
	if err := os.WriteFile(jsonFile, []byte("{\"permissions\": {\n  \"deny\": [\"Bash(x)\",]}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, _ = permopaIn(t, dir, "", "rules", "lint")
	if want := jsonFile + ":2:22: error: not valid json: invalid character ']' looking for beginning of value [unreadable]"; !strings.Contains(out, want) || strings.Count(out, "[unreadable]") != 1 {
		t.Errorf("lint output lacks %q once:\n%s", want, out)
	}
}
