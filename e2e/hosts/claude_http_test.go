//go:build hostse2e

package hosts_test

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// loopbackPort is a loopback TCP port nothing listens on (just now).
func loopbackPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// startServer runs `permopa run --server` on loopback TCP with the run's
// project settings and home, as docs/hosts.md's user service does, and
// returns its address once it answers /health.
func (r *hostRun) startServer() string {
	r.t.Helper()
	addr := "127.0.0.1:" + loopbackPort(r.t)
	cmd := exec.Command(bins.permopa, "run", "--server", "--skip-version-check", "--log-level", "error",
		"--addr", addr, "--set", "plugins.permopa.settings.project_dir="+r.proj)
	cmd.Dir = r.proj
	cmd.Env = append(os.Environ(), "HOME="+r.home)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	r.t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		select {
		case <-exited:
			r.t.Fatalf("permopa run --server exited: %s", logs.String())
		default:
		}
		if resp, err := http.Get("http://" + addr + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return "http://" + addr
			}
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("permopa run --server did not become healthy: %s", logs.String())
		}
	}
}

// Claude Code's http hooks (`permopa install claude --server URL`): the
// real CLI posts each call to the running server's hook route and obeys
// its answer as it obeys the command hook's; with the server down, the
// hooks' "onFailure": "block" blocks every call.
func TestClaudeCodeHTTPHook(t *testing.T) {
	bin, _ := hostBinary(t, "claude")
	cases := []struct {
		mode string
		sc   scenario
		down bool // no server listens at the hook's URL
		want outcome
	}{
		{"default", scDeny, false, outcome{false, "Bash(rm -rf:*)"}},
		{"default", scAllow, false, outcome{true, ""}},
		{"default", scAskRule, false, outcome{false, "needs approval by rule"}},
		{"default", scNoRule, false, outcome{false, "permopa rules add"}},
		{"dontAsk", scNoRule, false, outcome{false, "nobody can answer"}},
		{"bypassPermissions", scDeny, false, outcome{false, "Bash(rm -rf:*)"}},
		{"bypassPermissions", scAllow, true, outcome{false, `blocking because onFailure is "block"`}},
		{"default", scAllow, true, outcome{false, `blocking because onFailure is "block"`}},
	}
	for _, c := range cases {
		name := c.mode + "/" + c.sc.name
		if c.down {
			name += "/server-down"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			limit <- struct{}{}
			defer func() { <-limit }()
			r := newHostRun(t, "claude", c.sc, "Bash", map[string]any{"command": c.sc.command, "description": "e2e"})
			r.mock.start(r.mock.anthropic())
			server := "http://127.0.0.1:" + loopbackPort(t)
			if !c.down {
				server = r.startServer()
			}
			cmd := exec.Command(bins.permopa, "install", "claude", "--server", server)
			cmd.Dir = r.proj
			cmd.Env = append(os.Environ(), "HOME="+r.home, "CLAUDE_CONFIG_DIR=")
			if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), `"onFailure": "block"`) {
				t.Fatalf("permopa install claude --server: %v\n%s", err, out)
			}
			out, err := run(t, 150*time.Second, r.proj, []string{
				"HOME=" + r.home, "ANTHROPIC_BASE_URL=" + r.mock.url, "ANTHROPIC_API_KEY=sk-ant-e2e",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1",
			}, bin, "-p", r.mock.marker, "--output-format", "json", "--permission-mode", c.mode)
			if err != nil {
				t.Logf("claude exited: %v", err)
			}
			r.check(c.sc, c.want, out)
			if res, ok := r.mock.toolResult(); ok {
				t.Logf("the model saw: %s", res)
			}
		})
	}
}
