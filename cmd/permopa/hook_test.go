package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// hookWorkspace is a project directory with the hook tests' settings in
// .permopa/settings.yaml, and an empty HOME next to it.
func hookWorkspace(t *testing.T) (cwd, home string) {
	t.Helper()
	root := t.TempDir()
	cwd, home = filepath.Join(root, "app"), filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(cwd, ".permopa"), filepath.Join(cwd, "src"), filepath.Join(cwd, ".git"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settings, err := os.ReadFile("../../adapter/testdata/hooks/settings.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, ".permopa", "settings.yaml"), settings, 0o644); err != nil {
		t.Fatal(err)
	}
	return cwd, home
}

// runHook feeds a recorded payload (with {{CWD}} replaced) to `permopa hook`.
func runHook(t *testing.T, cwd, home, file string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("../../adapter/testdata/hooks", file))
	if err != nil {
		t.Fatal(err)
	}
	payload := strings.ReplaceAll(string(raw), "{{CWD}}", cwd)
	cmd := exec.Command(permopaBin, append([]string{"hook"}, args...)...)
	cmd.Stdin = strings.NewReader(payload)
	cmd.Env = append(os.Environ(), "HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// jsonPath reads a dotted path from a JSON document ("" for absent).
func jsonPath(t *testing.T, doc, path string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("stdout is not one JSON document: %q: %v", doc, err)
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[k]
	}
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

type hookCase struct {
	file string
	args []string
	exit int
	// want maps a JSON path of stdout to a value ("-" = absent); "stdout" =
	// "" asserts empty stdout.
	want map[string]string
	// contains are substrings of stdout+stderr.
	contains []string
}

func TestHookClaude(t *testing.T) {
	cwd, home := hookWorkspace(t)
	const pd = "hookSpecificOutput.permissionDecision"
	const reason = "hookSpecificOutput.permissionDecisionReason"
	cases := []hookCase{
		{file: "pretooluse-bash-readonly.json", want: map[string]string{"hookSpecificOutput.hookEventName": "PreToolUse", pd: "allow"}},
		{file: "pretooluse-bash-compound-deny.json", want: map[string]string{pd: "deny"},
			contains: []string{"Bash(rm -rf:*)", filepath.Join(cwd, ".permopa/settings.yaml"), "projectSettings", "deny_rule"}},
		{file: "pretooluse-bash-ask.json", want: map[string]string{pd: "ask"},
			contains: []string{"--destination local 'Bash(npm install:*)'"}},
		{file: "pretooluse-bash-ask-rule.json", want: map[string]string{pd: "ask"}, contains: []string{"Bash(git push:*)", "ask_rule"}},
		{file: "pretooluse-write-acceptedits.json", want: map[string]string{pd: "allow"}},
		{file: "pretooluse-write-plan.json", want: map[string]string{pd: "deny"}},
		{file: "pretooluse-edit-git-config.json", want: map[string]string{pd: "ask"}, contains: []string{".git"}},
		{file: "pretooluse-multiedit.json", want: map[string]string{pd: "allow"}},
		{file: "pretooluse-read.json", want: map[string]string{pd: "allow"}},
		{file: "pretooluse-read-env.json", want: map[string]string{pd: "ask"}, contains: []string{"credential"}},
		{file: "pretooluse-mcp-allowed.json", want: map[string]string{pd: "allow"}, contains: []string{"mcp__memory__*"}},
		{file: "pretooluse-mcp-ask.json", want: map[string]string{pd: "ask"}},
		{file: "pretooluse-extra-fields.json", want: map[string]string{pd: "allow"}},
		{file: "pretooluse-unknown-mode.json", want: map[string]string{pd: "deny"}, contains: []string{"yolo"}},
		{file: "permissionrequest-bash-allow.json", want: map[string]string{"hookSpecificOutput.hookEventName": "PermissionRequest", "hookSpecificOutput.decision.behavior": "allow"}},
		{file: "permissionrequest-bash-deny.json", want: map[string]string{"hookSpecificOutput.decision.behavior": "deny"}, contains: []string{"Bash(rm -rf:*)"}},
		// ASK: no decision, so Claude Code shows its dialog; the message says how to stop asking.
		{file: "permissionrequest-bash-ask.json", want: map[string]string{"hookSpecificOutput": "-"}, contains: []string{"permopa rules add"}},
		{file: "malformed.txt", want: map[string]string{pd: "deny"}, contains: []string{"not JSON"}},
		{file: "empty.txt", want: map[string]string{pd: "deny"}, contains: []string{"empty"}},
	}
	runHookCases(t, "claude", cwd, home, cases)
}

func TestHookCodex(t *testing.T) {
	cwd, home := hookWorkspace(t)
	cases := []hookCase{
		{file: "pretooluse-bash-readonly.json", want: map[string]string{"stdout": ""}},
		{file: "pretooluse-bash-ask.json", exit: 2, want: map[string]string{"stdout": ""},
			contains: []string{"--destination local 'Bash(npm install:*)'", "cannot ask"}},
		{file: "pretooluse-bash-deny.json", exit: 2, contains: []string{"Bash(rm -rf:*)", "projectSettings"}},
		{file: "pretooluse-apply-patch.json", want: map[string]string{"stdout": ""}},
		{file: "pretooluse-apply-patch-default.json", exit: 2, contains: []string{"permopa rules add"}},
		{file: "pretooluse-apply-patch-git-hook.json", exit: 2, contains: []string{".git/hooks/pre-commit", "safety"}},
		{file: "pretooluse-mcp.json", exit: 2, contains: []string{"--destination local mcp__github__create_issue"}},
		{file: "permissionrequest-bash-allow.json", want: map[string]string{"hookSpecificOutput.decision.behavior": "allow"}},
		{file: "permissionrequest-bash-deny.json", want: map[string]string{"hookSpecificOutput.decision.behavior": "deny"}},
		{file: "permissionrequest-bash-ask.json", want: map[string]string{"hookSpecificOutput": "-"}},
		{file: "malformed.txt", exit: 2, contains: []string{"not JSON"}},
		{file: "empty.txt", exit: 2, contains: []string{"empty"}},
	}
	runHookCases(t, "codex", cwd, home, cases)
}

func TestHookGemini(t *testing.T) {
	cwd, home := hookWorkspace(t)
	cases := []hookCase{
		{file: "beforetool-shell-readonly.json", want: map[string]string{"decision": "allow"}},
		{file: "beforetool-shell-deny.json", want: map[string]string{"decision": "deny"}, contains: []string{"Bash(rm -rf:*)"}},
		{file: "beforetool-shell-ask.json", want: map[string]string{"decision": "deny"},
			contains: []string{"--destination local 'Bash(npm install:*)'"}},
		{file: "beforetool-write-file.json", want: map[string]string{"decision": "deny"}, contains: []string{"permopa rules add"}},
		{file: "beforetool-write-file.json", args: []string{"--mode", "acceptEdits"}, want: map[string]string{"decision": "allow"}},
		{file: "beforetool-replace.json", args: []string{"--mode", "acceptEdits"}, want: map[string]string{"decision": "allow"}},
		{file: "beforetool-read-file.json", want: map[string]string{"decision": "allow"}},
		{file: "beforetool-read-ssh-key.json", want: map[string]string{"decision": "deny"}, contains: []string{"credential"}},
		{file: "beforetool-mcp.json", want: map[string]string{"decision": "allow"}},
		{file: "malformed.txt", want: map[string]string{"decision": "deny"}},
		{file: "empty.txt", want: map[string]string{"decision": "deny"}},
		// An unknown mode blocks.
		{file: "beforetool-shell-readonly.json", args: []string{"--mode", "sometimes"}, want: map[string]string{"decision": "deny"}, contains: []string{"sometimes"}},
	}
	runHookCases(t, "gemini", cwd, home, cases)
}

func runHookCases(t *testing.T, host, cwd, home string, cases []hookCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.file+strings.Join(c.args, ""), func(t *testing.T) {
			out, errOut, code := runHook(t, cwd, home, filepath.Join(host, c.file), append([]string{host}, c.args...)...)
			if code != c.exit {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, c.exit, out, errOut)
			}
			for path, want := range c.want {
				if path == "stdout" {
					if out != want {
						t.Errorf("stdout %q, want %q", out, want)
					}
					continue
				}
				got := jsonPath(t, out, path)
				if want == "-" {
					want = ""
				}
				if got != want {
					t.Errorf("%s = %q, want %q (stdout %s)", path, got, want, out)
				}
			}
			for _, s := range c.contains {
				if !strings.Contains(out+errOut, s) {
					t.Errorf("answer does not mention %q: stdout %s stderr %s", s, out, errOut)
				}
			}
		})
	}
}

// A hook that cannot decide in time blocks (the timeout is the hook's own).
func TestHookTimeoutBlocks(t *testing.T) {
	cwd, home := hookWorkspace(t)
	for _, host := range []string{"claude", "codex", "gemini"} {
		start := time.Now()
		cmd := exec.Command(permopaBin, "hook", host, "--timeout", "1ms")
		// stdin never closes within the deadline: the hook must not wait for it.
		r, w, _ := os.Pipe()
		cmd.Stdin = r
		cmd.Env = append(os.Environ(), "HOME="+home)
		cmd.Dir = cwd
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		w.Close()
		r.Close()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		blocked := code == 2 || strings.Contains(out.String(), `"deny"`)
		if !blocked || code == 1 {
			t.Errorf("%s: exit %d stdout %q stderr %q: not a block", host, code, out.String(), errb.String())
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %s", host, d)
		}
	}
}

// Usage errors block too: never exit 1.
func TestHookUsageErrorsBlock(t *testing.T) {
	for _, args := range [][]string{{"hook"}, {"hook", "cursor"}, {"hook", "claude", "--no-such-flag"}} {
		_, stderr, code := permopa(t, "{}", args...)
		if code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, stderr)
		}
	}
}

// A settings file that cannot be read blocks instead of deciding without it.
func TestHookBrokenSettingsBlock(t *testing.T) {
	cwd, home := hookWorkspace(t)
	if err := os.WriteFile(filepath.Join(cwd, ".permopa", "settings.local.yaml"), []byte("permissions: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runHook(t, cwd, home, "claude/pretooluse-bash-readonly.json", "claude")
	if code != 0 || jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "deny" {
		t.Fatalf("exit %d stdout %s stderr %s", code, out, stderr)
	}
}

// The approve command a blocked ASK prints really approves the call: run
// it (`permopa rules add`), and the same payload is let through.
func TestHookAskApproveCommandRoundTrip(t *testing.T) {
	cwd, home := hookWorkspace(t)
	_, stderr, code := runHook(t, cwd, home, "codex/pretooluse-bash-ask.json", "codex")
	m := regexp.MustCompile(`run: (permopa rules add .*?) , then retry`).FindStringSubmatch(stderr)
	if code != 2 || m == nil {
		t.Fatalf("exit %d, no approve command in %q", code, stderr)
	}
	cmd := exec.Command("sh", "-c", m[1])
	cmd.Env = append(os.Environ(), "HOME="+home, "PATH="+filepath.Dir(permopaBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Dir = home // the command must not depend on the directory it is run from
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", m[1], err, out)
	}
	out, stderr, code := runHook(t, cwd, home, "codex/pretooluse-bash-ask.json", "codex")
	if code != 0 || out != "" {
		t.Fatalf("after approval: exit %d stdout %q stderr %q", code, out, stderr)
	}
	out, _, _ = runHook(t, cwd, home, "claude/pretooluse-bash-ask.json", "claude")
	if jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "allow" || !strings.Contains(out, "localSettings") {
		t.Fatalf("claude after approval: %s", out)
	}
}

// An unreadable deny rule blocks every call (it might have denied this
// one); an unreadable allow rule is skipped.
func TestHookInvalidDenyRuleBlocks(t *testing.T) {
	cwd, home := hookWorkspace(t)
	local := filepath.Join(cwd, ".permopa", "settings.local.yaml")
	if err := os.WriteFile(local, []byte("permissions:\n  allow: [\"Bash(oops\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, _ := runHook(t, cwd, home, "claude/pretooluse-bash-readonly.json", "claude")
	if jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "allow" || !strings.Contains(stderr, "Bash(oops") {
		t.Fatalf("invalid allow rule: %s %s", out, stderr)
	}
	if err := os.WriteFile(local, []byte("permissions:\n  deny: [\"Bash(rm -rf\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ = runHook(t, cwd, home, "claude/pretooluse-bash-readonly.json", "claude")
	if jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "deny" || !strings.Contains(out, "Bash(rm -rf") {
		t.Fatalf("invalid deny rule: %s", out)
	}
}

// Hooks read every settings layer: managed settings lock out the project's
// allow rules and add their own deny rules.
func TestHookHonoursManagedSettings(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "proj")
	managed := filepath.Join(dir, "etc")
	for p, body := range map[string]string{
		filepath.Join(project, ".permopa", "settings.yaml"): "permissions:\n  allow: [\"Bash(npm install:*)\", \"Bash(curl:*)\"]\n",
		filepath.Join(managed, "settings.yaml"):             "allow_managed_rules_only: true\npermissions:\n  deny: [\"Bash(curl:*)\"]\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + dir, "PERMOPA_MANAGED_DIR=" + managed, "PERMOPA_CONFIG_DIR=" + filepath.Join(dir, "user")}
	for cmd, want := range map[string]string{"npm install": "ask", "curl -s example.com": "deny"} {
		payload := fmt.Sprintf(`{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":%q,"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":"t1"}`, project, cmd)
		out, stderr, code := permopaEnv(t, payload, env, "hook", "claude")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, code, stderr)
		}
		var got struct {
			HookSpecificOutput struct {
				PermissionDecision       string `json:"permissionDecision"`
				PermissionDecisionReason string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %q: %v", cmd, out, err)
		}
		if got.HookSpecificOutput.PermissionDecision != want {
			t.Errorf("%s: %s (%s), want %s", cmd, got.HookSpecificOutput.PermissionDecision, got.HookSpecificOutput.PermissionDecisionReason, want)
		}
	}
}
