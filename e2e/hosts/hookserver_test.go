//go:build hostse2e && linux

package hosts_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/permopa/permopa/adapter/hookproto"
)

// Under each real CLI, with the hooks `permopa install` writes and no
// other step: the first session's hook starts the user's hook server, and
// the next session's hooks are answered by it (its count of answered hooks
// grows), with the same deny (docs/hosts.md, "The hook server").
func TestHookServerUnderRealHosts(t *testing.T) {
	type hostCase struct {
		host  string
		tool  string
		args  func(sc scenario) map[string]any
		setup func(t *testing.T, r *hostRun) // the model mock and the host's own settings, before install
		run   func(t *testing.T, bin string, r *hostRun) (string, []string)
	}
	cases := []hostCase{
		{"claude", "Bash", func(sc scenario) map[string]any { return map[string]any{"command": sc.command, "description": "e2e"} },
			func(t *testing.T, r *hostRun) { r.mock.start(r.mock.anthropic()) },
			func(t *testing.T, bin string, r *hostRun) (string, []string) {
				env := []string{"HOME=" + r.home, "ANTHROPIC_BASE_URL=" + r.mock.url, "ANTHROPIC_API_KEY=sk-ant-e2e",
					"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1"}
				out, _ := run(t, 150*time.Second, r.proj, env, bin, "-p", r.mock.marker, "--output-format", "json", "--permission-mode", "default")
				return out, env
			}},
		{"codex", "exec_command", func(sc scenario) map[string]any { return map[string]any{"cmd": sc.command} },
			func(t *testing.T, r *hostRun) {
				r.mock.start(r.mock.openaiResponses())
				writeFile(t, filepath.Join(r.home, ".codex", "config.toml"), codexProvider(r.mock.url))
			},
			func(t *testing.T, bin string, r *hostRun) (string, []string) {
				env := []string{"HOME=" + r.home, "CODEX_HOME=" + filepath.Join(r.home, ".codex"), "PERMOPA_E2E_KEY=dummy"}
				out, _ := run(t, 150*time.Second, r.proj, env, bin, "exec", "--skip-git-repo-check", r.mock.marker)
				return out, env
			}},
		{"gemini", "run_shell_command", func(sc scenario) map[string]any { return map[string]any{"command": sc.command} },
			func(t *testing.T, r *hostRun) {
				r.mock.start(r.mock.gemini())
				writeFile(t, filepath.Join(r.home, ".gemini", "settings.json"), geminiSettings)
			},
			func(t *testing.T, bin string, r *hostRun) (string, []string) {
				return geminiRun(t, bin, r, "--skip-trust", "--approval-mode", "yolo"), []string{"HOME=" + r.home}
			}},
	}
	for _, c := range cases {
		t.Run(c.host, func(t *testing.T) {
			t.Parallel()
			limit <- struct{}{}
			defer func() { <-limit }()
			bin, _ := hostBinary(t, c.host)
			first := newHostRun(t, c.host, scDeny, c.tool, c.args(scDeny))
			var installArgs []string
			if c.host == "codex" {
				installArgs = []string{"--codex", bin}
			}
			c.setup(t, first)
			first.install(c.host, installArgs...)
			out, env := c.run(t, bin, first)
			first.check(scDeny, outcome{false, "Bash(rm -rf:*)"}, out)

			// The server of this user, binary and environment.
			id, err := hookproto.FileIdentity(filepath.Join(bins.dir, "permopa-hook-local"))
			if err != nil {
				t.Fatal(err)
			}
			// run gives the CLI a clean environment: PATH, LANG, TERM,
			// NO_COLOR and env, which the CLI passes to its hooks; Claude
			// Code and Gemini CLI add CLAUDE_PROJECT_DIR, part of the
			// decision environment (where the project's host settings are).
			if c.host != "codex" {
				env = append(env, "CLAUDE_PROJECT_DIR="+first.proj)
			}
			denv := hookproto.DecisionEnv(env)
			getenv := func(k string) string {
				for _, kv := range env {
					if key, v, _ := strings.Cut(kv, "="); key == k {
						return v
					}
				}
				return ""
			}
			key := hookproto.HookServerKey(id, os.Getuid(), denv)
			status := func() (hookproto.ServeAnswer, error) {
				dir, err := hookproto.OpenHookServerDir(hookproto.HookServerDir(getenv))
				if err != nil {
					return hookproto.ServeAnswer{}, err
				}
				defer dir.Close()
				return hookproto.AskHookServer(context.Background(), dir, key, hookproto.ServeRequest{Op: "status", Env: denv}, 5*time.Second)
			}
			var before hookproto.ServeAnswer
			deadline := time.Now().Add(60 * time.Second)
			for before, err = status(); err != nil && time.Now().Before(deadline); before, err = status() {
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil {
				t.Fatalf("no hook server after the first session: %v", err)
			}

			// A second session of the same user, in the same project.
			second := newHostRun(t, c.host, scDeny, c.tool, c.args(scDeny))
			second.home, second.proj = first.home, first.proj
			// The host's settings point at this session's model mock; the
			// hooks install wrote stay (install again, as a user may).
			c.setup(t, second)
			second.install(c.host, installArgs...)
			out, _ = c.run(t, bin, second)
			second.check(scDeny, outcome{false, "Bash(rm -rf:*)"}, out)
			after, err := status()
			if err != nil || after.Pid != before.Pid || after.Answered <= before.Answered {
				t.Errorf("the second session's hooks were not answered by the hook server (pid %d, %d answered before): %+v %v", before.Pid, before.Answered, after, err)
			}
		})
	}
}
