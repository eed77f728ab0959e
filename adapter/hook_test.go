package adapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// settingsEngine is the default policy with project rules, as a hook would load them.
func settingsEngine(t *testing.T) func(context.Context, string) (*engine.Engine, error) {
	t.Helper()
	rule := func(s, b string) permission.Rule {
		r, err := settings.ParseRule(s, b)
		if err != nil {
			t.Fatal(err)
		}
		r.Source, r.Layer = "projectSettings", "/w/.permopa/settings.yaml"
		return r
	}
	s := settings.Settings{Home: "/root", Rules: []permission.Rule{
		rule("Bash(rm -rf:*)", "DENY"), rule("Bash(git push:*)", "ASK"), rule("Bash(npm run:*)", "ALLOW"),
	}}
	eng, err := engine.New(context.Background(), engine.WithSettings(s))
	if err != nil {
		t.Fatal(err)
	}
	return func(context.Context, string) (*engine.Engine, error) { return eng, nil }
}

func runHook(t *testing.T, host, payload string, opts adapter.HookOptions) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := adapter.RunHook(context.Background(), host, strings.NewReader(payload), &out, &errb, opts)
	return out.String(), errb.String(), code
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return m
}

func TestClaudePreToolUseNamesRuleAndLayer(t *testing.T) {
	t.Parallel()
	out, _, code := runHook(t, "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"git status; rm -rf dist"},"tool_use_id":"t"}`,
		adapter.HookOptions{Engine: settingsEngine(t)})
	hso := decode(t, out)["hookSpecificOutput"].(map[string]any)
	if code != 0 || hso["permissionDecision"] != "deny" || hso["hookEventName"] != "PreToolUse" {
		t.Fatalf("exit %d: %s", code, out)
	}
	reason := hso["permissionDecisionReason"].(string)
	for _, s := range []string{"Bash(rm -rf:*)", "/w/.permopa/settings.yaml", "projectSettings", "deny_rule"} {
		if !strings.Contains(reason, s) {
			t.Errorf("reason %q lacks %q", reason, s)
		}
	}
}

// blockingReader never returns: a host that does not close stdin.
type blockingReader struct{}

func (blockingReader) Read([]byte) (int, error) { select {} }

func TestHookTimeoutBlocksEveryHost(t *testing.T) {
	t.Parallel()
	opts := adapter.HookOptions{Engine: settingsEngine(t), Timeout: 20 * time.Millisecond}
	for host, check := range map[string]func(out, errOut string, code int) bool{
		"claude": func(out, _ string, code int) bool {
			return code == 0 && strings.Contains(out, `"permissionDecision":"deny"`)
		},
		"codex": func(_, errOut string, code int) bool {
			return code == 2 && strings.Contains(errOut, "no decision within")
		},
		"gemini": func(out, _ string, code int) bool { return code == 0 && strings.Contains(out, `"decision":"deny"`) },
	} {
		var out, errb bytes.Buffer
		start := time.Now()
		code := adapter.RunHook(context.Background(), host, blockingReader{}, &out, &errb, opts)
		if !check(out.String(), errb.String(), code) || time.Since(start) > 2*time.Second {
			t.Errorf("%s: exit %d stdout %q stderr %q after %s", host, code, out.String(), errb.String(), time.Since(start))
		}
	}
}

func TestHookEngineFailureBlocks(t *testing.T) {
	t.Parallel()
	opts := adapter.HookOptions{Engine: func(context.Context, string) (*engine.Engine, error) {
		return nil, errors.New("settings: permissions: bad YAML")
	}}
	payload := `{"hook_event_name":"PermissionRequest","cwd":"/w","tool_name":"Bash","tool_input":{"command":"ls"}}`
	out, _, code := runHook(t, "claude", payload, opts)
	d := decode(t, out)["hookSpecificOutput"].(map[string]any)["decision"].(map[string]any)
	if code != 0 || d["behavior"] != "deny" || !strings.Contains(d["message"].(string), "bad YAML") {
		t.Fatalf("exit %d: %s", code, out)
	}
	if _, _, code := runHook(t, "codex", payload, opts); code != 0 {
		// Codex PermissionRequest: a deny decision in JSON, exit 0.
		t.Fatalf("codex exit %d", code)
	}
	if _, errOut, code := runHook(t, "codex", strings.Replace(payload, "PermissionRequest", "PreToolUse", 1), opts); code != 2 || !strings.Contains(errOut, "bad YAML") {
		t.Fatalf("codex PreToolUse: exit %d %s", code, errOut)
	}
}

func TestHookRejectsOddPayloads(t *testing.T) {
	t.Parallel()
	opts := adapter.HookOptions{Engine: settingsEngine(t)}
	for _, p := range []string{``, `  `, `[]`, `"x"`, `{"tool_name":"Bash","tool_input":{"command":"ls"}} {"x":1}`, `{"tool_name":"Bash"`} {
		out, _, code := runHook(t, "claude", p, opts)
		if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) {
			t.Errorf("%q: exit %d %s", p, code, out)
		}
		if _, _, code := runHook(t, "codex", p, opts); code != 2 {
			t.Errorf("codex %q: exit %d", p, code)
		}
	}
	// An event permopa does not answer blocks with exit 2 (its JSON is unknown).
	if _, errOut, code := runHook(t, "claude", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{}}`, opts); code != 2 || errOut == "" {
		t.Errorf("PostToolUse: exit %d", code)
	}
	if _, _, code := runHook(t, "cursor", `{}`, opts); code != 2 {
		t.Errorf("unknown host: exit %d", code)
	}
}

func TestCodexApplyPatchIsDecidedPerFile(t *testing.T) {
	t.Parallel()
	opts := adapter.HookOptions{Engine: settingsEngine(t)}
	patch := "*** Begin Patch\n*** Update File: src/a.go\n@@\n-a\n+b\n*** Update File: lib/b.go\n*** Move to: ../../home/u/.bashrc\n@@\n-c\n+d\n*** End Patch\n"
	payload, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "cwd": "/w/app", "permission_mode": "acceptEdits",
		"tool_name": "apply_patch", "tool_input": map[string]any{"command": patch}})
	_, errOut, code := runHook(t, "codex", string(payload), opts)
	if code != 2 || !strings.Contains(errOut, "/home/u/.bashrc") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Without the move, both edits are inside the cwd: allowed in acceptEdits.
	patch = strings.Replace(patch, "*** Move to: ../../home/u/.bashrc\n", "", 1)
	payload, _ = json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "cwd": "/w/app", "permission_mode": "acceptEdits",
		"tool_name": "apply_patch", "tool_input": map[string]any{"command": patch}})
	if out, errOut, code := runHook(t, "codex", string(payload), opts); code != 0 || out != "" {
		t.Fatalf("exit %d: %q %s", code, out, errOut)
	}
}

func TestIgnoreHostMode(t *testing.T) {
	t.Parallel()
	opts := adapter.HookOptions{Engine: settingsEngine(t)}
	// A mode permopa does not know: the call is decided as in default mode,
	// nothing is approved (the read-only ALLOW is left to the host), and the
	// human is told which mode was not known.
	payload := `{"hook_event_name":"PreToolUse","cwd":"/w","permission_mode":"turbo","tool_name":"Bash","tool_input":{"command":"ls"}}`
	if out, _, code := runHook(t, "claude", payload, opts); code != 0 || strings.Contains(out, "permissionDecision") || !strings.Contains(out, `permission mode \"turbo\"`) {
		t.Fatalf("unknown host mode must leave the call to the host and say so: %s", out)
	}
	opts.IgnoreHostMode = true
	if out, _, _ := runHook(t, "claude", payload, opts); !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("--ignore-host-mode: %s", out)
	}
}

func TestApproveCommandsQuote(t *testing.T) {
	t.Parallel()
	c := "it's:*"
	d := permission.Decision{Behavior: "ASK", SuggestedRules: []permission.Rule{{ToolName: "Bash", RuleContent: &c}, {ToolName: "Bash", RuleContent: &c}}}
	got := hookproto.ApproveCommand(d, "project", "/home/me/my app")
	if got != `permopa rules add --project '/home/me/my app' --destination project 'Bash(it'\''s:*)'` {
		t.Fatalf("%q", got)
	}
}

// Gemini globs and read_many_files are checked where they read: a pattern
// under ~/.ssh is a credential read, not a read of the cwd.
func TestGeminiGlobsReadWhereTheyPoint(t *testing.T) {
	t.Parallel()
	opts := adapter.HookOptions{Engine: settingsEngine(t)}
	for _, p := range []string{
		`{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"glob","tool_input":{"pattern":"/root/.ssh/*"}}`,
		`{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"read_many_files","tool_input":{"include":["src/*.go","~/.aws/credentials"]}}`,
		`{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"glob","tool_input":{"pattern":"*/id_rsa","dir_path":"/root/.ssh"}}`,
	} {
		out, _, code := runHook(t, "gemini", p, opts)
		if d := decode(t, out)["decision"]; code != 0 || d != "ask" {
			t.Errorf("%s: exit %d %s", p, code, out)
		}
	}
	out, _, _ := runHook(t, "gemini", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"glob","tool_input":{"pattern":"src/**/*.go"}}`, opts)
	if decode(t, out)["decision"] != "allow" {
		t.Errorf("glob in the project: %s", out)
	}
}

// Gemini CLI parameters that widen what a tool reads, or say where it acts
// under another version's name, are decided: in a git work tree whose
// .gitignore lists .env, a search with an include glob (ripgrep applies it
// over the ignore files), no_ignore or respect_git_ignore false reads .env;
// read_many_files reads the contents of what its patterns match (hidden
// and ignored files on request), not names; a ".." after a wildcard leaves
// the directory the pattern starts in; and read_file's file_path,
// absolute_path and path (its name in successive versions) are each a path
// the running version may read. Each was allowed before.
func TestGeminiParametersThatWidenTheRead(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home, proj := filepath.Join(root, "home"), filepath.Join(root, "home", "proj")
	for _, d := range []string{filepath.Join(home, ".ssh"), filepath.Join(proj, ".git"), filepath.Join(proj, "src", "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		filepath.Join(home, ".ssh", "id_rsa"): "KEY", filepath.Join(proj, ".env"): "SECRET=1",
		filepath.Join(proj, ".gitignore"): ".env\n", filepath.Join(proj, "src", "a.go"): "package a",
		filepath.Join(proj, "src", "sub", "b.go"): "package sub", filepath.Join(proj, ".git", "HEAD"): "ref: refs/heads/main\n",
	} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := engine.New(context.Background(), engine.WithSettings(settings.Settings{Home: home}))
	if err != nil {
		t.Fatal(err)
	}
	opts := adapter.HookOptions{Engine: func(context.Context, string) (*engine.Engine, error) { return eng, nil }}
	call := func(tool, input string) string {
		return `{"hook_event_name":"BeforeTool","cwd":"` + proj + `","tool_name":"` + tool + `","tool_input":` + input + `}`
	}
	for _, c := range []struct{ tool, input, want string }{
		{"search_file_content", `{"pattern":"SECRET","include":".env"}`, "ask"},
		{"search_file_content", `{"pattern":"SECRET","include":"*.env"}`, "ask"},
		{"grep_search", `{"pattern":"SECRET","include_pattern":"{.env,x}"}`, "ask"},
		{"grep_search", `{"pattern":"SECRET","no_ignore":true}`, "ask"},
		{"search_file_content", `{"pattern":"SECRET","file_filtering_options":{"respect_git_ignore":false}}`, "ask"},
		{"grep_search", `{"pattern":"SECRET","dir_path":"src","path":"` + home + `"}`, "ask"},
		{"search_file_content", `{"pattern":"KEY","include":"../.ssh/*"}`, "ask"},
		{"search_file_content", `{"pattern":"KEY","dir_path":"src","include":"*/../../../.ssh/*"}`, "ask"},
		{"read_many_files", `{"paths":["**/*"]}`, "ask"},
		{"read_many_files", `{"paths":["*.env"]}`, "ask"},
		{"read_many_files", `{"paths":["src/*/../../.env"]}`, "ask"},
		{"read_many_files", `{"include":["src/**/*.go","*/../../.ssh/*"]}`, "ask"},
		{"glob", `{"pattern":"*/../../.ssh/*"}`, "ask"},
		{"glob", `{"pattern":"src/*/../../../.ssh/*"}`, "ask"},
		{"read_file", `{"file_path":"src/a.go","absolute_path":"` + proj + `/.env"}`, "ask"},
		{"read_file", `{"absolute_path":"` + proj + `/src/a.go","path":"` + home + `/.ssh/id_rsa"}`, "ask"},
		{"list_directory", `{"dir_path":"src","path":"` + home + `/.ssh"}`, "ask"},
		{"run_shell_command", `{"command":"cat id_rsa","dir_path":"src","directory":"` + home + `/.ssh"}`, "ask"},
		// What reads only the project's own files stays allowed.
		{"search_file_content", `{"pattern":"package","include":"*.go"}`, "allow"},
		{"search_file_content", `{"pattern":"package"}`, "allow"},
		{"read_many_files", `{"paths":["src/**/*.go"]}`, "allow"},
		{"glob", `{"pattern":"src/**/*.go"}`, "allow"},
		{"read_file", `{"file_path":"src/a.go","absolute_path":"` + proj + `/src/a.go"}`, "allow"},
	} {
		out, _, code := runHook(t, "gemini", call(c.tool, c.input), opts)
		if d := decode(t, out)["decision"]; code != 0 || d != c.want {
			t.Errorf("%s %s: exit %d %s, want %s", c.tool, c.input, code, out, c.want)
		}
	}
}

// An argv command (older Codex shell calls) is decided as the script it runs.
func TestCodexArgvCommand(t *testing.T) {
	t.Parallel()
	opts := adapter.HookOptions{Engine: settingsEngine(t)}
	for cmd, want := range map[string]int{
		`["bash","-lc","git status && rm -rf build"]`: 2,
		`["bash","-lc","git --no-pager status"]`:      0,
		// Codex's shell calls may keep a terminal (stdin_terminal): a pager
		// reads commands from it, but Codex runs git with GIT_PAGER=cat
		// (git_pager_cat), unless the command drops it.
		`["bash","-lc","git status"]`:                  0,
		`["bash","-lc","less README.md"]`:              2,
		`["bash","-lc","env -u GIT_PAGER git status"]`: 2,
		`["ls","-la"]`:       0,
		`["rm","-rf","x y"]`: 2,
		`[1,2]`:              2,
	} {
		_, errOut, code := runHook(t, "codex", `{"hook_event_name":"PreToolUse","cwd":"/w","permission_mode":"default","tool_name":"Bash","tool_input":{"command":`+cmd+`}}`, opts)
		if code != want {
			t.Errorf("%s: exit %d (%s), want %d", cmd, code, errOut, want)
		}
	}
}

// Whatever arrives on stdin, a hook answers 0 or 2, and an answer that
// lets the call through is an explicit allow (Claude, Gemini) or, for
// Codex, empty stdout with exit 0 only when the decision was ALLOW.
func FuzzRunHook(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `null`, `[]`, `{"tool_name":1}`, `{"tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`,
		`{"tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: /etc/passwd\n+x\n*** End Patch"}}`,
		`{"tool_name":"Bash","tool_input":{"command":"ls"},"permission_mode":{"x":1}}`,
		`{"tool_name":"run_shell_command","tool_input":{"command":["ls"]}}`,
		"\xff\xfe{", `{"tool_name":"Bash","tool_input":{"command":"ls"}}{"tool_name":"Bash"}`,
	} {
		f.Add(s)
	}
	eng, err := engine.New(context.Background(), engine.WithSettings(settings.Settings{Home: "/root", Cwd: "/w"}))
	if err != nil {
		f.Fatal(err)
	}
	opts := adapter.HookOptions{Engine: func(context.Context, string) (*engine.Engine, error) { return eng, nil }}
	f.Fuzz(func(t *testing.T, payload string) {
		for _, host := range hookproto.Hosts {
			var out, errb bytes.Buffer
			code := adapter.RunHook(context.Background(), host, strings.NewReader(payload), &out, &errb, opts)
			if code != 0 && code != 2 {
				t.Fatalf("%s: exit %d", host, code)
			}
			if code == 2 {
				if errb.Len() == 0 {
					t.Fatalf("%s: exit 2 without a reason", host)
				}
				continue
			}
			if host == hookproto.HostCodex && out.Len() == 0 {
				continue // Codex ALLOW (checked below against the engine)
			}
			if !json.Valid(out.Bytes()) {
				t.Fatalf("%s: stdout is not JSON: %q", host, out.String())
			}
		}
		// Codex stays silent only for a call the engine allows.
		var out, errb bytes.Buffer
		if code := adapter.RunHook(context.Background(), "codex", strings.NewReader(payload), &out, &errb, opts); code == 0 && out.Len() == 0 {
			inputs, err := hookproto.Inputs("codex", decodeLoose(payload))
			if err != nil || len(inputs) == 0 {
				t.Fatalf("codex let %q through, but it does not parse: %v", payload, err)
			}
			for _, in := range inputs {
				if d := eng.Decide(context.Background(), in); d.Behavior != "ALLOW" {
					t.Fatalf("codex let %q through, but the engine says %s", payload, d.Behavior)
				}
			}
		}
	})
}

func decodeLoose(s string) map[string]any {
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	_ = dec.Decode(&m)
	return m
}

// An unreadable deny rule blocks the hook whatever the settings shape: a
// Claude Code permissions block or an AgentScope PermissionContext.
func TestBlockingProblemsAnyShape(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"claude.yaml":  "permissions:\n  deny: [\"Bash(unclosed\"]\n",
		"context.json": `{"deny_rules": {"Bash": [{"tool_name": "Bash", "rule_content": 7}]}}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, problems, err := adapter.LoadCwdSettings(dir, dir, []string{p})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if adapter.BlockingProblems(problems) == nil {
			t.Errorf("%s: an unreadable deny rule does not block (problems %v)", name, problems)
		}
	}
}

// The hook client knows the path-rule tools without importing the engine:
// its list must be the engine's.
func TestHookPathToolsAreTheEngines(t *testing.T) {
	t.Parallel()
	if !maps.Equal(hookproto.PathTools, settings.PathRuleTools()) {
		t.Errorf("hookproto.PathTools %v, settings.PathRuleTools() %v", hookproto.PathTools, settings.PathRuleTools())
	}
}

// A suggested path rule is offered as the Claude Code rule that covers the
// same files: "/dir/**" is absolute in the decision (AgentScope) and
// "//dir/**" in a settings file.
func TestApproveCommandWritesClaudePaths(t *testing.T) {
	t.Parallel()
	c1, c2 := "/var/tmp/out/**", "npm run:*"
	d := permission.Decision{Behavior: "ASK", SuggestedRules: []permission.Rule{{ToolName: "Write", RuleContent: &c1}, {ToolName: "Bash", RuleContent: &c2}}}
	got := hookproto.ApproveCommand(d, "local", "")
	if !strings.Contains(got, "'Write(//var/tmp/out/**)'") || !strings.Contains(got, "'Bash(npm run:*)'") {
		t.Errorf("ApproveCommand: %s", got)
	}
}
