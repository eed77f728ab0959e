package main_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// hookWorkspace is a project directory with the hook tests' settings in
// .permopa/settings.yaml, and an empty HOME next to it.
func hookWorkspace(t testing.TB) (cwd, home string) {
	t.Helper()
	cwd, home, err := makeWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return cwd, home
}

// makeWorkspace makes hookWorkspace's directories in root: root/app and
// root/home.
func makeWorkspace(root string) (cwd, home string, err error) {
	cwd, home = filepath.Join(root, "app"), filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(cwd, ".permopa"), filepath.Join(cwd, "src"), filepath.Join(cwd, ".git"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", "", err
		}
	}
	settings, err := os.ReadFile("../../adapter/testdata/hooks/settings.yaml")
	if err != nil {
		return "", "", err
	}
	if err := os.WriteFile(filepath.Join(cwd, ".permopa", "settings.yaml"), settings, 0o644); err != nil {
		return "", "", err
	}
	// The user of this home trusts the project (`permopa trust`): its
	// allow rules count.
	return cwd, home, recordTrust(home, cwd)
}

// runHook feeds a recorded payload (with {{CWD}} replaced) to `permopa hook`,
// run in process (the hook binary's own behaviour is held by the tests that
// start it: TestHookUsageErrorsBlock, TestHookTimeoutBlocks, the server
// comparisons).
func runHook(t *testing.T, cwd, home, file string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("../../adapter/testdata/hooks", file))
	if err != nil {
		t.Fatal(err)
	}
	payload := strings.ReplaceAll(string(raw), "{{CWD}}", cwd)
	return permopaWith(t, payload, map[string]string{"HOME": home}, append([]string{"hook"}, args...)...)
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
	t.Parallel()
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
		// An unknown mode: decided as default, never approved, and named.
		{file: "pretooluse-unknown-mode.json", want: map[string]string{pd: "-"}, contains: []string{"yolo", "approves nothing"}},
		// PermissionRequest never approves (the dialog may be one of
		// Claude Code's own ask rules): no decision.
		{file: "permissionrequest-bash-allow.json", want: map[string]string{"stdout": ""}},
		{file: "permissionrequest-bash-deny.json", want: map[string]string{"hookSpecificOutput.decision.behavior": "deny"}, contains: []string{"Bash(rm -rf:*)"}},
		// ASK: no decision, so Claude Code shows its dialog; the message says how to stop asking.
		{file: "permissionrequest-bash-ask.json", want: map[string]string{"hookSpecificOutput": "-"}, contains: []string{"permopa rules add"}},
		{file: "malformed.txt", want: map[string]string{pd: "deny"}, contains: []string{"not JSON"}},
		{file: "empty.txt", want: map[string]string{pd: "deny"}, contains: []string{"empty"}},
	}
	runHookCases(t, "claude", cwd, home, cases)
}

func TestHookCodex(t *testing.T) {
	t.Parallel()
	cwd, home := hookWorkspace(t)
	cases := []hookCase{
		{file: "pretooluse-bash-readonly.json", want: map[string]string{"stdout": ""}},
		{file: "pretooluse-bash-ask.json", exit: 2, want: map[string]string{"stdout": ""},
			contains: []string{"--destination local 'Bash(npm install:*)'", "cannot ask"}},
		{file: "pretooluse-bash-deny.json", exit: 2, contains: []string{"Bash(rm -rf:*)", "projectSettings"}},
		{file: "pretooluse-apply-patch.json", want: map[string]string{"stdout": ""}},
		{file: "pretooluse-apply-patch-default.json", exit: 2, contains: []string{"permopa rules add"}},
		{file: "pretooluse-apply-patch-git-hook.json", exit: 2, contains: []string{".git/hooks/pre-commit", "safety"}},
		// Headers Codex reads after trimming (issue 24): every file decided.
		{file: "pretooluse-apply-patch-indented-headers.json", exit: 2, contains: []string{"2 findings", ".permopa/settings.yaml", ".git/hooks/pre-commit", "no rule can approve"}},
		// A patch Codex would refuse: blocked, naming the line.
		{file: "pretooluse-apply-patch-unreadable.json", exit: 2, contains: []string{"line 4 of the patch", "Codex refuses"}},
		{file: "pretooluse-mcp.json", exit: 2, contains: []string{"--destination local mcp__github__create_issue"}},
		{file: "permissionrequest-bash-allow.json", want: map[string]string{"stdout": ""}},
		{file: "permissionrequest-bash-deny.json", want: map[string]string{"hookSpecificOutput.decision.behavior": "deny"}},
		{file: "permissionrequest-bash-ask.json", want: map[string]string{"hookSpecificOutput": "-"}},
		{file: "malformed.txt", exit: 2, contains: []string{"not JSON"}},
		{file: "empty.txt", exit: 2, contains: []string{"empty"}},
	}
	runHookCases(t, "codex", cwd, home, cases)
}

func TestHookGemini(t *testing.T) {
	t.Parallel()
	cwd, home := hookWorkspace(t)
	cases := []hookCase{
		{file: "beforetool-shell-readonly.json", want: map[string]string{"decision": "allow"}},
		{file: "beforetool-shell-deny.json", want: map[string]string{"decision": "deny"}, contains: []string{"Bash(rm -rf:*)"}},
		// Gemini CLI asks for confirmation on "ask".
		{file: "beforetool-shell-ask.json", want: map[string]string{"decision": "ask"},
			contains: []string{"--destination local 'Bash(npm install:*)'"}},
		{file: "beforetool-shell-ask.json", args: []string{"--mode", "dontAsk"}, want: map[string]string{"decision": "deny"},
			contains: []string{"DONT_ASK", "--destination local 'Bash(npm install:*)'"}},
		{file: "beforetool-write-file.json", want: map[string]string{"decision": "ask"}, contains: []string{"permopa rules add"}},
		{file: "beforetool-write-file.json", args: []string{"--mode", "acceptEdits"}, want: map[string]string{"decision": "allow"}},
		{file: "beforetool-replace.json", args: []string{"--mode", "acceptEdits"}, want: map[string]string{"decision": "allow"}},
		{file: "beforetool-read-file.json", want: map[string]string{"decision": "allow"}},
		{file: "beforetool-read-ssh-key.json", want: map[string]string{"decision": "ask"}, contains: []string{"credential"}},
		{file: "beforetool-mcp.json", want: map[string]string{"decision": "allow"}},
		// web_fetch fetches the URLs of its prompt (issue 24): each decided.
		{file: "beforetool-web-fetch-prompt.json", want: map[string]string{"decision": "deny"}, contains: []string{"WebFetch(domain:evil.example)"}},
		{file: "beforetool-web-fetch-prompt-only.json", want: map[string]string{"decision": "deny"}, contains: []string{"WebFetch(domain:evil.example)"}},
		{file: "beforetool-web-fetch-no-url.json", want: map[string]string{"decision": "deny"}, contains: []string{"names no URL"}},
		{file: "malformed.txt", want: map[string]string{"decision": "deny"}},
		{file: "empty.txt", want: map[string]string{"decision": "deny"}},
		// An unknown mode: decided as default, never approved, and named.
		{file: "beforetool-shell-readonly.json", args: []string{"--mode", "sometimes"}, want: map[string]string{"decision": "-"}, contains: []string{"sometimes"}},
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
	t.Parallel()
	for _, args := range [][]string{{"hook"}, {"hook", "cursor"}, {"hook", "claude", "--no-such-flag"}} {
		// The binary's own exit status: a process, not the command tree.
		_, stderr, code := runPermopa(t, "", "{}", nil, args...)
		if code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, stderr)
		}
	}
}

// A settings file that cannot be read blocks instead of deciding without it.
func TestHookBrokenSettingsBlock(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	skipUnlessRootOwnsTempDirs(t)
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

// --- The fast path: hooks answered by a running `permopa run --server`. ---

var (
	hookClientOnce sync.Once
	hookClientBin  string
	hookClientErr  error
)

// hookClient builds cmd/permopa-hook next to the test's permopa binary, where
// it looks for `permopa` when it has to decide locally.
func hookClient(t testing.TB) string {
	t.Helper()
	hookClientOnce.Do(func() {
		hookClientBin = filepath.Join(filepath.Dir(permopaBin), "permopa-hook")
		hookClientErr = buildCommand("permopa-hook", hookClientBin)
	})
	if hookClientErr != nil {
		t.Fatal(hookClientErr)
	}
	return hookClientBin
}

var (
	hookBuildOnce sync.Once
	hookBuildDir  string
	hookBuildErr  error
)

// buildCommand puts the binary of cmd/<name> (permopa-hook or
// permopa-hook-local) at dst. Both are built by one `go build` of the two
// (one load of the build graph instead of one per command) into a
// directory of this checkout's own in the user's cache directory: `go
// build -o` leaves binaries that are up to date there, where a new path
// would be linked again at every run (seconds of CPU for
// permopa-hook-local). It does touch them (their modification time), and
// another test process of this checkout builds there too: the hook
// server's key is of permopa-hook-local's inode and modification time
// (hookproto.HookServerKey), so a test whose binary shares the cached
// inode would see its key change under it (a server started for one key,
// waited for under another). The binaries are copied, once per run, into
// permopaBin's directory, which no other process touches, and dst links
// to the copy. Without a cache directory, they are built there.
func buildCommand(name, dst string) error {
	hookBuildOnce.Do(func() {
		own := filepath.Join(filepath.Dir(permopaBin), "built")
		hookBuildDir = own
		if cache, err := os.UserCacheDir(); err == nil {
			root, err := filepath.Abs("../..")
			if err != nil {
				hookBuildErr = err
				return
			}
			sum := sha256.Sum256([]byte(root))
			hookBuildDir = filepath.Join(cache, "permopa-tests", hex.EncodeToString(sum[:8]))
		}
		if hookBuildErr = os.MkdirAll(hookBuildDir, 0o755); hookBuildErr != nil {
			return
		}
		if msg, err := exec.Command("go", "build", "-o", hookBuildDir+string(filepath.Separator), "../permopa-hook", "../permopa-hook-local").CombinedOutput(); err != nil {
			hookBuildErr = fmt.Errorf("building permopa-hook and permopa-hook-local: %v\n%s", err, msg)
			return
		}
		if hookBuildDir == own {
			return
		}
		if hookBuildErr = os.MkdirAll(own, 0o755); hookBuildErr != nil {
			return
		}
		for _, bin := range []string{"permopa-hook", "permopa-hook-local"} {
			if hookBuildErr = copyNew(filepath.Join(hookBuildDir, bin), filepath.Join(own, bin)); hookBuildErr != nil {
				return
			}
		}
		hookBuildDir = own
	})
	if hookBuildErr != nil {
		return hookBuildErr
	}
	return copyExecutable(filepath.Join(hookBuildDir, name), dst)
}

// shortTempDir is a temporary directory with a path short enough for a
// unix socket (108 bytes on Linux).
func shortTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ph")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// unixHTTPClient talks HTTP over the unix socket sock.
func unixHTTPClient(sock string) *http.Client {
	return &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		},
	}}
}

// startHookServer starts the real `permopa run --server` on a unix socket,
// with the settings layers of project (its .permopa files) and home, and
// returns its address once it answers /health. The server is stopped when
// the test ends.
func startHookServer(t testing.TB, project, home string) string {
	t.Helper()
	sock := filepath.Join(shortTempDir(t), "permopa.sock")
	return startServerCommand(t, project, home, sock, permopaBin, "run", "--server", "--skip-version-check", "--log-level", "error",
		"--addr", "unix://"+sock, "--set", "plugins.permopa.settings.project_dir="+project)
}

// startServerCommand runs argv in dir as the server listening on sock.
func startServerCommand(t testing.TB, dir, home, sock string, argv ...string) string {
	t.Helper()
	return startServerCommandEnv(t, dir, []string{"HOME=" + home}, sock, argv...)
}

// startServerCommandEnv is startServerCommand with env over the test
// process's environment.
func startServerCommandEnv(t testing.TB, dir string, env []string, sock string, argv ...string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	hc := unixHTTPClient(sock)
	for deadline := time.Now().Add(30 * time.Second); ; {
		select {
		case <-exited:
			t.Fatalf("permopa run --server exited: %s", logs.String())
		default:
		}
		if resp, err := hc.Get("http://permopa/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return "unix://" + sock
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("permopa run --server did not become healthy: %s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hookExec runs bin with args, the payload on stdin and extra environment.
// `permopa hook` runs in process through the command tree main runs: it
// reads its environment (HOME, PERMOPA_SERVER, XDG_RUNTIME_DIR) from there
// (hook.go), so it answers, exit status included, as a permopa process
// would, without a process start and OPA's initialisation for each of the
// many comparisons. That holds for a hook asking a server on a unix socket
// too (the client reads nothing of the environment for one). A hook that
// names a TCP server (--server, PERMOPA_SERVER http://…) is a process: the
// client reads the server's token file from the process's own environment
// (hookproto). So is one with --timeout: which deadline message a block
// names depends on how long the engine takes to build, and the answer is
// compared with a process's. The other binaries (the small client, the
// lean local hook) are processes of their own, as a host runs them; so is
// hookProcess, for the tests where the permopa process itself is what is
// tested (TestServerQuickStart and TestHookClientsPresentTokenOverTCP hold
// `permopa hook` asking a server as a process).
func hookExec(t *testing.T, bin string, args []string, env []string, payload string) (stdout, stderr string, code int) {
	t.Helper()
	if bin == permopaBin && len(args) > 0 && args[0] == "hook" && !needsProcess(args, env) {
		// The runner's own PERMOPA_SERVER must not leak into the tests.
		vars := map[string]string{"PERMOPA_SERVER": "", "PERMOPA_SERVER_REQUIRED": ""}
		for _, kv := range env {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("environment entry %q is not KEY=VALUE", kv)
			}
			vars[k] = v
		}
		return permopaWith(t, payload, vars, args...)
	}
	return hookProcess(t, bin, args, env, payload)
}

// hookProcess is hookExec always as a process.
func hookProcess(t testing.TB, bin string, args []string, env []string, payload string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(payload)
	// The runner's own PERMOPA_SERVER must not leak into the tests.
	cmd.Env = append(os.Environ(), "PERMOPA_SERVER=", "PERMOPA_SERVER_REQUIRED=")
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// needsProcess reports whether a hook command line or its environment
// names a TCP server to ask or a deadline (hookExec).
func needsProcess(args, env []string) bool {
	for i, a := range args {
		if a == "--timeout" || strings.HasPrefix(a, "--timeout=") {
			return true
		}
		addr, ok := strings.CutPrefix(a, "--server=")
		if a == "--server" && i+1 < len(args) {
			addr, ok = args[i+1], true
		}
		if ok && !strings.HasPrefix(addr, "unix://") {
			return true
		}
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PERMOPA_SERVER="); ok && v != "" && !strings.HasPrefix(v, "unix://") {
			return true
		}
	}
	return false
}

// fastPathPayloads are recorded payloads of every host over Bash, Write,
// Edit, Read and MCP calls, with ALLOW, ASK and DENY answers.
var fastPathPayloads = []string{
	"claude/pretooluse-bash-readonly.json",
	"claude/pretooluse-bash-compound-deny.json",
	"claude/pretooluse-bash-ask.json",
	"claude/pretooluse-bash-ask-rule.json",
	"claude/pretooluse-write-acceptedits.json",
	"claude/pretooluse-write-plan.json",
	"claude/pretooluse-edit-git-config.json",
	"claude/pretooluse-multiedit.json",
	"claude/pretooluse-read.json",
	"claude/pretooluse-read-env.json",
	"claude/pretooluse-mcp-allowed.json",
	"claude/pretooluse-mcp-ask.json",
	"claude/pretooluse-unknown-mode.json",
	"claude/permissionrequest-bash-allow.json",
	"claude/permissionrequest-bash-ask.json",
	"claude/permissionrequest-bash-deny.json",
	"codex/pretooluse-bash-readonly.json",
	"codex/pretooluse-bash-ask.json",
	"codex/pretooluse-bash-deny.json",
	"codex/pretooluse-apply-patch.json",
	"codex/pretooluse-apply-patch-git-hook.json",
	"codex/pretooluse-apply-patch-indented-headers.json",
	"codex/pretooluse-apply-patch-unreadable.json",
	"codex/pretooluse-mcp.json",
	"codex/permissionrequest-bash-ask.json",
	"gemini/beforetool-shell-readonly.json",
	"gemini/beforetool-shell-deny.json",
	"gemini/beforetool-shell-ask.json",
	"gemini/beforetool-write-file.json",
	"gemini/beforetool-replace.json",
	"gemini/beforetool-read-ssh-key.json",
	"gemini/beforetool-mcp.json",
	"gemini/beforetool-web-fetch-prompt.json",
	"gemini/beforetool-web-fetch-no-url.json",
}

// fastPathSample is every payload with -tags slow; without, the first of
// each kind: Claude Code's allow, deny and PermissionRequest deny,
// Codex's block (exit 2) and Gemini CLI's ask, for the tables that run
// each payload through several processes (the local hook, the server, the
// small client) and compare, each a policy compile (issue 25, the quick
// suite).
func fastPathSample() []string {
	if slowTests {
		return fastPathPayloads
	}
	var out []string
	for _, i := range []int{0, 5, 15, 20, 30} {
		out = append(out, fastPathPayloads[i])
	}
	return out
}

func readPayload(t testing.TB, file, cwd string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("../../adapter/testdata/hooks", file))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(raw), "{{CWD}}", cwd)
}

// blocked reports whether a host's answer blocks the call.
func blocked(host, out string, code int) bool {
	if code == 2 {
		return true
	}
	if code != 0 {
		return false
	}
	switch host {
	case "claude":
		return strings.Contains(out, `"permissionDecision":"deny"`) || strings.Contains(out, `"behavior":"deny"`)
	case "gemini":
		return strings.Contains(out, `"decision":"deny"`)
	case "codex":
		return strings.Contains(out, `"behavior":"deny"`)
	}
	return false
}

// Through a running server that reads the same settings layers, every host
// gets exactly the answer the local hook gives, from `permopa hook --server`
// and from the small permopa-hook client. --server-required proves the
// server answered (an unreachable server would block).
func TestHookServerSameAnswersAsLocal(t *testing.T) {
	t.Parallel()
	s := sharedWorkspaceServer(t)
	cwd, home, addr := s.cwd, s.home, s.unix
	client := hookClient(t)
	env := []string{"HOME=" + home}
	answers := map[string]int{}
	for k, file := range fastPathSample() {
		host := strings.Split(file, "/")[0]
		payload := readPayload(t, file, cwd)
		out, errOut, code := hookExec(t, permopaBin, []string{"hook", host}, env, payload)
		for j, c := range []struct {
			name string
			run  []string
		}{
			{"permopa hook --server", []string{permopaBin, "hook", host, "--server", addr, "--server-required"}},
			{"PERMOPA_SERVER", []string{permopaBin, "hook", host}},
			{"permopa-hook", []string{client, host, "--server", addr, "--server-required"}},
		} {
			// Each payload through one of the three ways in turn in the
			// quick suite, through all three with -tags slow (issue 25).
			if !slowTests && j != k%3 {
				continue
			}
			name, run := c.name, c.run
			e := env
			if name == "PERMOPA_SERVER" {
				e = append(e, "PERMOPA_SERVER="+addr, "PERMOPA_SERVER_REQUIRED=1")
			}
			sout, serr, scode := hookExec(t, run[0], run[1:], e, payload)
			if sout != out || scode != code || serr != errOut {
				t.Errorf("%s, %s:\n local:  exit %d stdout %q stderr %q\n server: exit %d stdout %q stderr %q", file, name, code, out, errOut, scode, sout, serr)
			}
		}
		switch {
		case blocked(host, out, code):
			answers["block"]++
		case strings.Contains(out, `"ask"`) || strings.Contains(out, "systemMessage"):
			answers["ask"]++
		default:
			answers["allow"]++
		}
	}
	if answers["block"] == 0 || answers["ask"] == 0 || answers["allow"] == 0 {
		t.Errorf("the payloads do not cover allow, ask and block: %v", answers)
	}
}

// The server decides with its own settings layers, not those of the
// payload's cwd: a project whose rules the server does not read gets the
// server's decision. (docs/hosts.md says so.)
func TestHookServerDecidesWithItsOwnSettings(t *testing.T) {
	t.Parallel()
	cwd, home := hookWorkspace(t)
	// A server in an empty directory: no .permopa, no rm -rf deny rule.
	addr := plainServerAddr(t)
	payload := readPayload(t, "claude/pretooluse-bash-compound-deny.json", cwd)
	out, _, _ := hookExec(t, permopaBin, []string{"hook", "claude"}, []string{"HOME=" + home}, payload)
	if jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "deny" {
		t.Fatalf("local: %s", out)
	}
	out, _, _ = hookExec(t, permopaBin, []string{"hook", "claude", "--server", addr}, []string{"HOME=" + home}, payload)
	if jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "ask" || strings.Contains(out, "Bash(rm -rf:*)") {
		t.Fatalf("server without the project's rules: %s", out)
	}
}

// faultyServer serves HTTP on a unix socket with a server that answers
// every request the way handler does: a broken permopa server.
func faultyServer(t *testing.T, handler http.HandlerFunc) string {
	t.Helper()
	sock := filepath.Join(shortTempDir(t), "bad.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return "unix://" + sock
}

// A server that answers with an error status, garbage, a decision without
// a known behavior, or nothing in time blocks the call in every host, from
// both clients; it never lets the call through and never decides locally.
func TestHookServerFaultsBlock(t *testing.T) {
	t.Parallel()
	cwd, home := hookWorkspace(t)
	client := hookClient(t)
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	faults := map[string]http.HandlerFunc{
		"500": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(500)
			io.WriteString(w, `{"code":"internal_error","message":"store unavailable"}`)
		},
		"404 HTML": func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) },
		"garbage":  func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<html>hello</html>") },
		"no behavior": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"message":"fine","step":"allow_rule"}`)
		},
		"lowercase allow": func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"behavior":"allow"}`) },
		"hangs": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-hang:
			case <-r.Context().Done():
			}
		},
		"bad chunk": func(w http.ResponseWriter, r *http.Request) {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err == nil {
				buf.WriteString("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
				buf.Flush()
				conn.Close()
			}
		},
		"closes": func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		},
	}
	// Payloads the local hook would allow: a block can only come from the fault.
	payloads := map[string]string{
		"claude": "claude/pretooluse-bash-readonly.json",
		"codex":  "codex/pretooluse-bash-readonly.json",
		"gemini": "gemini/beforetool-shell-readonly.json",
	}
	hosts := []string{"claude", "codex", "gemini"}
	names := make([]string, 0, len(faults))
	for name := range faults {
		names = append(names, name)
	}
	sort.Strings(names)
	for i, name := range names {
		addr := faultyServer(t, faults[name])
		for j, host := range hosts {
			// Without -tags slow each fault meets one host and one client
			// (both in turn); with it, every host from both clients.
			if !slowTests && j != i%len(hosts) {
				continue
			}
			file := payloads[host]
			payload := readPayload(t, file, cwd)
			for k, run := range [][]string{
				{permopaBin, "hook", host, "--server", addr, "--server-timeout", "300ms"},
				{client, host, "--server", addr, "--server-timeout", "300ms"},
			} {
				if !slowTests && k != i%2 {
					continue
				}
				out, errOut, code := hookExec(t, run[0], run[1:], []string{"HOME=" + home}, payload)
				if !blocked(host, out, code) || !strings.Contains(out+errOut, "could not decide") {
					t.Errorf("%s, %s: not blocked: exit %d stdout %q stderr %q", name, strings.Join(run, " "), code, out, errOut)
				}
			}
		}
	}
}

// A decision that arrives in chunks (a Go server that flushes, or a large
// answer) is read whole: the small client's HTTP reader is not net/http.
func TestHookServerChunkedAnswer(t *testing.T) {
	t.Parallel()
	cwd, home := hookWorkspace(t)
	client := hookClient(t)
	addr := faultyServer(t, func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in["tool_name"] != "Bash" {
			w.WriteHeader(400)
			return
		}
		io.WriteString(w, `{"behavior":"DENY","message":"denied by a `)
		w.(http.Flusher).Flush()
		io.WriteString(w, strings.Repeat("very ", 1000)+`strict server","step":"deny_rule","matched_rule":{"tool_name":"Bash","rule_content":"git:*","behavior":"DENY","source":"orgRules","layer":"bundle"},"suggested_rules":[]}`)
	})
	payload := readPayload(t, "claude/pretooluse-bash-readonly.json", cwd)
	for _, run := range [][]string{{permopaBin, "hook", "claude", "--server", addr}, {client, "claude", "--server", addr}} {
		out, errOut, code := hookExec(t, run[0], run[1:], []string{"HOME=" + home}, payload)
		if code != 0 || jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "deny" || !strings.Contains(out, "strict server [step deny_rule; rule Bash(git:*) from bundle (orgRules)]") {
			t.Errorf("%v: exit %d stdout %q stderr %q", run, code, out, errOut)
		}
	}
}

// No server at the address (no socket file, or a socket nobody listens on):
// the hook decides locally, with the answer the local hook gives, and says
// so on stderr; with --server-required or PERMOPA_SERVER_REQUIRED=1 it
// blocks. The small client does the same by running `permopa hook`.
func TestHookServerUnreachable(t *testing.T) {
	t.Parallel()
	cwd, home := hookWorkspace(t)
	client := hookClient(t)
	dir := shortTempDir(t)
	stale := filepath.Join(dir, "stale.sock")
	l, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close() // the file stays: connection refused
	env := []string{"HOME=" + home}
	// The local answer of each payload, the same whatever the address.
	type local struct {
		out  string
		code int
	}
	locals := map[string]local{}
	for i, addr := range []string{"unix://" + filepath.Join(dir, "missing.sock"), "unix://" + stale, "http://127.0.0.1:1"} {
		files := []string{"claude/pretooluse-read.json", "claude/pretooluse-bash-compound-deny.json", "codex/pretooluse-bash-ask.json", "gemini/beforetool-shell-readonly.json"}
		if !slowTests {
			files = files[:1] // the one the required runs below use
		}
		for _, file := range files {
			host := strings.Split(file, "/")[0]
			payload := readPayload(t, file, cwd)
			if _, ok := locals[file]; !ok {
				out, _, code := hookExec(t, permopaBin, []string{"hook", host}, env, payload)
				locals[file] = local{out, code}
			}
			want, wantCode := locals[file].out, locals[file].code
			for k, run := range [][]string{{permopaBin, "hook", host, "--server", addr}, {client, host, "--server", addr}} {
				// Without -tags slow each address meets one of the two
				// clients, in turn (issue 25, the quick suite).
				if !slowTests && k != i%2 {
					continue
				}
				out, errOut, code := hookExec(t, run[0], run[1:], env, payload)
				if out != want || code != wantCode || !strings.Contains(errOut, "deciding locally") {
					t.Errorf("%s %s: exit %d stdout %q stderr %q; want the local answer (exit %d %q) and a note", strings.Join(run, " "), file, code, out, errOut, wantCode, want)
				}
			}
			if host != "claude" || !strings.Contains(file, "read.json") {
				continue
			}
			// The local answer is an allow; required, the same call is blocked.
			for k, run := range []struct {
				args []string
				env  []string
			}{
				{[]string{permopaBin, "hook", host, "--server", addr, "--server-required"}, env},
				{[]string{permopaBin, "hook", host}, append(env, "PERMOPA_SERVER="+addr, "PERMOPA_SERVER_REQUIRED=1")},
				{[]string{client, host, "--server", addr, "--server-required"}, env},
				{[]string{client, host}, append(env, "PERMOPA_SERVER="+addr, "PERMOPA_SERVER_REQUIRED=true")},
			} {
				// Without -tags slow each of the four ways meets one address
				// (the first address two of them).
				if !slowTests && k%3 != i {
					continue
				}
				out, errOut, code := hookExec(t, run.args[0], run.args[1:], run.env, payload)
				// A TCP server without a token file is not asked at all.
				if !blocked(host, out, code) || !strings.Contains(out, "unreachable") && !strings.Contains(out, "not asked") {
					t.Errorf("required, %v: exit %d stdout %q stderr %q", run.args, code, out, errOut)
				}
			}
		}
	}
}

// The small client with no server configured hands every payload to
// `permopa hook` and gives its answers unchanged; without a permopa to hand
// it to, or with a server required but not configured, it blocks.
func TestHookClientWithoutServer(t *testing.T) {
	t.Parallel()
	cwd, home := hookWorkspace(t)
	client := hookClient(t)
	env := []string{"HOME=" + home}
	// The client passes payload and answer through whatever they are
	// (each a `permopa hook` process behind the client).
	for i, file := range fastPathSample() {
		// One host's payload without -tags slow (issue 25, the quick
		// suite: the pass-through is not the host's); Gemini's flags come
		// next.
		if !slowTests && i != 0 {
			continue
		}
		host := strings.Split(file, "/")[0]
		payload := readPayload(t, file, cwd)
		want, wantErr, wantCode := hookExec(t, permopaBin, []string{"hook", host}, env, payload)
		out, errOut, code := hookExec(t, client, []string{host}, env, payload)
		if out != want || code != wantCode || errOut != wantErr {
			t.Errorf("%s: exit %d stdout %q stderr %q; want exit %d stdout %q stderr %q", file, code, out, errOut, wantCode, want, wantErr)
		}
	}
	// Flags before the host, and passed on to permopa hook.
	payload := readPayload(t, "gemini/beforetool-write-file.json", cwd)
	want, wantErr, wantCode := hookExec(t, permopaBin, []string{"hook", "gemini", "--mode", "acceptEdits"}, env, payload)
	if out, errOut, code := hookExec(t, client, []string{"--mode", "acceptEdits", "gemini"}, env, payload); jsonPath(t, out, "decision") != "allow" || out != want || errOut != wantErr || code != wantCode {
		t.Errorf("--mode acceptEdits: exit %d stdout %q stderr %q; want exit %d stdout %q stderr %q", code, out, errOut, wantCode, want, wantErr)
	}
	payload = readPayload(t, "claude/pretooluse-read.json", cwd)
	for name, run := range map[string]struct {
		args []string
		env  []string
	}{
		"no permopa":              {[]string{"claude", "--permopa", filepath.Join(t.TempDir(), "permopa")}, env},
		"required, no server":     {[]string{"claude"}, append(env, "PERMOPA_SERVER_REQUIRED=1")},
		"empty stdin":             {[]string{"claude", "--server", "unix:///nonexistent/x.sock"}, env},
		"bad server address":      {[]string{"claude", "--server", "ftp://x"}, env},
		"unknown host":            {[]string{"cursor"}, env},
		"unknown flag":            {[]string{"claude", "--no-such-flag"}, env},
		"permopa exits 1 (false)": {[]string{"claude", "--permopa", "/bin/false"}, env},
	} {
		// Each row is a permopa process (the slow path): the quick suite
		// runs the three whose block is the client's own decision (no
		// permopa, one that fails, no server where one is required); the
		// command lines it cannot read (adapter/hookclient's parse, also
		// TestParseArgsHostOnly there) and empty stdin run with -tags slow
		// (issue 25, the quick suite).
		if !slowTests && name != "no permopa" && name != "permopa exits 1 (false)" && name != "required, no server" {
			continue
		}
		in := payload
		if name == "empty stdin" {
			in = ""
		}
		out, errOut, code := hookExec(t, client, run.args, run.env, in)
		if !blocked("claude", out, code) {
			t.Errorf("%s: not blocked: exit %d stdout %q stderr %q", name, code, out, errOut)
		}
	}
}

// An explicit --server cannot be combined with flags only a local decision
// honours (the server would ignore them): that blocks. PERMOPA_SERVER with
// such flags decides locally.
func TestHookServerWithLocalFlags(t *testing.T) {
	t.Parallel()
	cwd, home := hookWorkspace(t)
	extra := filepath.Join(t.TempDir(), "extra.yaml")
	if err := os.WriteFile(extra, []byte("permissions:\n  deny: [\"Read\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	payload := readPayload(t, "claude/pretooluse-read.json", cwd)
	env := []string{"HOME=" + home}
	if _, errOut, code := hookExec(t, permopaBin, []string{"hook", "claude", "--server", "unix:///nonexistent/x.sock", "--settings", extra}, env, payload); code != 2 || !strings.Contains(errOut, "--settings") {
		t.Errorf("--server with --settings: exit %d %s", code, errOut)
	}
	out, errOut, _ := hookExec(t, permopaBin, []string{"hook", "claude", "--settings", extra}, append(env, "PERMOPA_SERVER=unix:///nonexistent/x.sock", "PERMOPA_SERVER_REQUIRED=1"), payload)
	if jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "deny" || !strings.Contains(out, "extra.yaml") {
		t.Errorf("PERMOPA_SERVER with --settings must decide locally with the file: %s %s", out, errOut)
	}
}

// The small client links no OPA package: that is what makes it start fast.
func TestHookClientLinksNoOPA(t *testing.T) {
	t.Parallel()
	for _, dep := range hookDeps(t, "permopa-hook") {
		if strings.Contains(dep, "open-policy-agent") || dep == "github.com/permopa/permopa/engine" || dep == "github.com/permopa/permopa/adapter" {
			t.Errorf("permopa-hook depends on %s", dep)
		}
	}
}

// The fast path of docs/hosts.md works as written: the user service's
// ExecStart line starts a server (in another directory: it reads the
// project's settings through settings.projects, %h standing for the
// directory that holds the project), and the documented permopa-hook
// commands answer through it what the local hook answers.
func TestHostsDocFastPath(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../docs/hosts.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	execStart := regexp.MustCompile(`(?m)^ExecStart=(.*)$`).FindStringSubmatch(doc)
	cmds := regexp.MustCompile(`(?m)^permopa-hook (\w+) --server (unix:///run/user/1000/permopa\.sock)$`).FindAllStringSubmatch(doc, -1)
	if execStart == nil || len(cmds) != 3 {
		t.Fatalf("docs/hosts.md: ExecStart line %v, permopa-hook commands %v", execStart, cmds)
	}
	// The shared projects server is the ExecStart line's (docExecStart),
	// and the project is under its root (%h).
	cwd, home, addr := projectWorkspace(t)
	client := hookClient(t)
	files := map[string][]string{
		"claude": {"claude/pretooluse-bash-compound-deny.json", "claude/pretooluse-bash-ask.json", "claude/pretooluse-read.json"},
		"codex":  {"codex/pretooluse-bash-deny.json", "codex/pretooluse-apply-patch.json"},
		"gemini": {"gemini/beforetool-shell-ask.json", "gemini/beforetool-mcp.json"},
	}
	env := []string{"HOME=" + home}
	for i, c := range cmds {
		host := c[1]
		for k, file := range files[host] {
			// The first documented command with its host's first payload
			// (the others differ from it in the host only); every command
			// and payload with -tags slow (issue 25, the quick suite).
			if !slowTests && (i > 0 || k > 0) {
				continue
			}
			payload := readPayload(t, file, cwd)
			want, wantErr, wantCode := hookExec(t, permopaBin, []string{"hook", host}, env, payload)
			out, errOut, code := hookExec(t, client, []string{host, "--server", addr, "--server-required"}, env, payload)
			if out != want || errOut != wantErr || code != wantCode {
				t.Errorf("%s < %s: exit %d stdout %q stderr %q; local: exit %d stdout %q stderr %q", c[0], file, code, out, errOut, wantCode, want, wantErr)
			}
		}
	}
}

// Through a server that watches its settings, the approve command an ASK
// prints with --destination user really approves: the rule lands in the
// user settings the server reads, and the retried call is let through.
func TestHookServerApproveToUserSettings(t *testing.T) {
	t.Parallel()
	slowOnlyProvenBy(t, "TestHookAskApproveCommandRoundTrip (the approve command approves), adapter/opaplugin's TestSettingsWatch (a watching server reloads) and TestServerConfirmToProject")
	cwd, home := hookWorkspace(t)
	// A user's ~/.config exists; the settings directory in it need not.
	if err := os.MkdirAll(filepath.Join(home, ".config"), 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(shortTempDir(t), "permopa.sock")
	addr := startServerCommand(t, t.TempDir(), home, sock, permopaBin, "run", "--server", "--skip-version-check", "--log-level", "error",
		"--addr", "unix://"+sock, "--set", "plugins.permopa.settings.watch=true")
	client := hookClient(t)
	env := []string{"HOME=" + home}
	payload := readPayload(t, "codex/pretooluse-bash-ask.json", cwd)
	_, stderr, code := hookExec(t, client, []string{"codex", "--server", addr, "--server-required", "--destination", "user"}, env, payload)
	m := regexp.MustCompile(`run: (permopa rules add .*?) , then retry`).FindStringSubmatch(stderr)
	if code != 2 || m == nil || !strings.Contains(m[1], "--destination user") {
		t.Fatalf("exit %d, no approve command in %q", code, stderr)
	}
	runApproveCommand(t, m[1], home, env)
	// The server reloads on its own; wait for it (no timing asserted).
	for deadline := time.Now().Add(20 * time.Second); ; {
		out, stderr, code := hookExec(t, client, []string{"codex", "--server", addr, "--server-required", "--destination", "user"}, env, payload)
		if code == 0 && out == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after approval: exit %d stdout %q stderr %q", code, out, stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
