package main_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter/opaplugin"
)

// freePort is a loopback TCP port nothing listens on (just now).
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// startHTTPHookServer starts the real `permopa run --server` with the
// settings layers of project and home, listening on a unix socket and on
// loopback TCP, and returns the TCP address (http://127.0.0.1:PORT).
func startHTTPHookServer(t testing.TB, project, home string) string {
	t.Helper()
	sock := filepath.Join(shortTempDir(t), "permopa.sock")
	addr := "127.0.0.1:" + freePort(t)
	startServerCommand(t, project, home, sock, permopaBin, "run", "--server", "--skip-version-check", "--log-level", "error",
		"--addr", "unix://"+sock, "--addr", addr, "--set", "plugins.permopa.settings.project_dir="+project)
	return "http://" + addr
}

// postHook posts payload to url as Claude Code's http hook does.
func postHook(t testing.TB, url, payload string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// Every recorded Claude Code payload, through the server's hook route,
// gets exactly what `permopa hook claude` prints for it deciding locally
// with the same settings: the same decision, reason, rule, layer and
// approve command. A payload the command cannot read is blocked by both.
func TestHookHTTPSameAnswersAsLocal(t *testing.T) {
	t.Parallel()
	s := sharedWorkspaceServer(t)
	cwd, home := s.cwd, s.home
	url := s.tcp + opaplugin.HookClaudePath
	files, err := filepath.Glob("../../adapter/testdata/hooks/claude/*")
	if err != nil || len(files) < 10 {
		t.Fatalf("payloads: %v %v", files, err)
	}
	kinds := map[string]int{}
	for _, f := range files {
		name := "claude/" + filepath.Base(f)
		payload := readPayload(t, name, cwd)
		out, _, code := hookExec(t, permopaBin, []string{"hook", "claude"}, []string{"HOME=" + home}, payload)
		status, got := postHook(t, url, payload)
		if status != http.StatusOK || code != 0 {
			t.Errorf("%s: route %d, hook exit %d", name, status, code)
			continue
		}
		if strings.HasSuffix(f, ".json") && got != out {
			t.Errorf("%s:\n route: %q\n hook:  %q", name, got, out)
		}
		switch {
		case blocked("claude", got, 0):
			kinds["block"]++
			if !blocked("claude", out, code) {
				t.Errorf("%s: the route blocks, the hook does not: %q vs %q", name, got, out)
			}
		case strings.Contains(got, `"ask"`), strings.Contains(got, "systemMessage"):
			kinds["ask"]++
		case got == "":
			kinds["none"]++
		default:
			kinds["allow"]++
		}
	}
	if len(kinds) != 4 {
		t.Errorf("the payloads do not cover allow, ask, block and no decision: %v", kinds)
	}
}

// install --server writes Claude Code's http hook form for both events
// with "onFailure": "block", replacing the command hooks (and back);
// doctor posts a harmless call to the running server, and fails, saying
// what to do, when the server is down or the hook would not block.
func TestInstallClaudeHTTPHook(t *testing.T) {
	t.Parallel()
	cwd, home := hookWorkspace(t)
	// The shared server: install and doctor only post a harmless call to it.
	server := sharedWorkspaceServer(t).tcp
	file := filepath.Join(home, ".claude", "settings.json")
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR="}
	if out, errOut, code := permopaAt(t, cwd, "", env, "install", "claude"); code != 0 {
		t.Fatalf("install: %s%s", out, errOut)
	}
	out, errOut, code := permopaAt(t, cwd, "", env, "install", "claude", "--server", server)
	if code != 0 || !strings.Contains(out, `-            "type": "command"`) {
		t.Fatalf("install --server: exit %d\n%s%s", code, out, errOut)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []map[string]any
		}
	}
	got := readFile(t, file)
	if err := json.Unmarshal([]byte(got), &doc); err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"PreToolUse", "PermissionRequest"} {
		gs := doc.Hooks[e]
		if len(gs) != 1 || len(gs[0].Hooks) != 1 {
			t.Fatalf("%s: %s", e, got)
		}
		h := gs[0].Hooks[0]
		if h["type"] != "http" || h["url"] != server+opaplugin.HookClaudePath || h["onFailure"] != "block" || h["timeout"] != 10.0 || h["command"] != nil {
			t.Errorf("%s hook: %v", e, h)
		}
	}
	if out, _, _ := permopaAt(t, cwd, "", env, "install", "claude", "--server", server); !strings.Contains(out, "already up to date") {
		t.Errorf("second install: %s", out)
	}
	out, errOut, code = permopaAt(t, cwd, "", env, "doctor", "claude")
	if code != 0 || strings.Count(out, "answers a harmless call") != 2 || strings.Contains(out, "FAIL") {
		t.Errorf("doctor: exit %d\n%s%s", code, out, errOut)
	}
	// A hook without onFailure block lets calls through when it fails.
	os.WriteFile(file, []byte(strings.ReplaceAll(got, `"onFailure": "block"`, `"onFailure": "continue"`)), 0o644)
	if out, _, code := permopaAt(t, cwd, "", env, "doctor", "claude"); code == 0 || !strings.Contains(out, `would fail open: it has no "onFailure": "block"`) {
		t.Errorf("doctor, onFailure continue: exit %d\n%s", code, out)
	}
	// The server down: doctor says every call is blocked and how to recover.
	down := "http://127.0.0.1:" + freePort(t)
	if out, errOut, code := permopaAt(t, cwd, "", env, "install", "claude", "--server", down); code != 0 {
		t.Fatalf("install: %s%s", out, errOut)
	}
	if out, _, code := permopaAt(t, cwd, "", env, "doctor", "claude"); code == 0 || !strings.Contains(out, "every call is blocked") || !strings.Contains(out, "permopa run --server") {
		t.Errorf("doctor, server down: exit %d\n%s", code, out)
	}
	// --mode goes into the URL; uninstall removes the http hooks.
	if out, errOut, code := permopaAt(t, cwd, "", env, "install", "claude", "--server", server, "--mode", "dontAsk"); code != 0 || !strings.Contains(readFile(t, file), opaplugin.HookClaudePath+"?mode=dontAsk") {
		t.Errorf("install --mode: %s%s\n%s", out, errOut, readFile(t, file))
	}
	// The file held only permopa's hooks: uninstall removes it.
	if out, errOut, code := permopaAt(t, cwd, "", env, "uninstall", "claude"); code != 0 || !strings.Contains(out, "removed "+file) {
		t.Errorf("uninstall: %s%s", out, errOut)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("uninstall left %s: %v", file, err)
	}
}

// --server takes only what an http hook of Claude Code can safely be: a
// loopback address over plain HTTP.
func TestInstallServerRefusals(t *testing.T) {
	t.Parallel()
	home, proj := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR="}
	for _, c := range []struct{ args, want string }{
		{"codex --server http://127.0.0.1:8181", "only Claude Code"},
		{"gemini --server http://127.0.0.1:8181", "only Claude Code"},
		{"claude --server unix:///run/user/1000/permopa.sock", "unix socket"},
		{"claude --server http://example.com:8181", "loopback"},
		{"claude --server http://10.0.0.1:8181", "loopback"},
		{"claude --server http://127.0.0.1", "loopback"},
		{"claude --server https://127.0.0.1:8181", "want http://127.0.0.1:PORT"},
		{"claude --server http://127.0.0.1:8181/v1/data", "want http://127.0.0.1:PORT"},
		{"claude --server http://127.0.0.1:8181 --command permopa-hook", "give one"},
	} {
		out, errOut, code := permopaAt(t, proj, "", env, append([]string{"install"}, strings.Fields(c.args)...)...)
		if code == 0 || !strings.Contains(out+errOut, c.want) {
			t.Errorf("install %s: exit %d, want an error naming %q\n%s%s", c.args, code, c.want, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".claude")); err == nil {
		t.Error("a refused install wrote settings")
	}
}
