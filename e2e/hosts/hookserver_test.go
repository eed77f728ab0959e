//go:build hostse2e && linux

package hosts_test

import (
	"context"
	"os"
	"path/filepath"
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
		host string
		tool string
		args func(sc scenario) map[string]any
		run  func(t *testing.T, bin string, r *hostRun) (string, []string)
	}
	cases := []hostCase{
		{"claude", "Bash", func(sc scenario) map[string]any { return map[string]any{"command": sc.command, "description": "e2e"} },
			func(t *testing.T, bin string, r *hostRun) (string, []string) {
				r.mock.start(r.mock.anthropic())
				env := []string{"HOME=" + r.home, "ANTHROPIC_BASE_URL=" + r.mock.url, "ANTHROPIC_API_KEY=sk-ant-e2e",
					"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1"}
				out, _ := run(t, 150*time.Second, r.proj, env, bin, "-p", r.mock.marker, "--output-format", "json", "--permission-mode", "default")
				return out, env
			}},
		{"codex", "exec_command", func(sc scenario) map[string]any { return map[string]any{"cmd": sc.command} },
			func(t *testing.T, bin string, r *hostRun) (string, []string) {
				r.mock.start(r.mock.openaiResponses())
				writeFile(t, filepath.Join(r.home, ".codex", "config.toml"), codexProvider(r.mock.url))
				env := []string{"HOME=" + r.home, "CODEX_HOME=" + filepath.Join(r.home, ".codex"), "PERMOPA_E2E_KEY=dummy"}
				out, _ := run(t, 150*time.Second, r.proj, env, bin, "exec", "--skip-git-repo-check", r.mock.marker)
				return out, env
			}},
		{"gemini", "run_shell_command", func(sc scenario) map[string]any { return map[string]any{"command": sc.command} },
			func(t *testing.T, bin string, r *hostRun) (string, []string) {
				r.mock.start(r.mock.gemini())
				writeFile(t, filepath.Join(r.home, ".gemini", "settings.json"), geminiSettings)
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
			first.install(c.host, installArgs...)
			out, env := c.run(t, bin, first)
			first.check(scDeny, outcome{false, "Bash(rm -rf:*)"}, out)

			// The server of this user, binary and environment: the hook
			// sees the CLI's environment, whose decision part is this one.
			id, err := hookproto.FileIdentity(filepath.Join(bins.dir, "permopa-hook-local"))
			if err != nil {
				t.Fatal(err)
			}
			denv := hookproto.DecisionEnv(append(os.Environ(), env...))
			key := hookproto.HookServerKey(id, os.Getuid(), denv)
			status := func() (hookproto.ServeAnswer, error) {
				dir, err := hookproto.OpenHookServerDir(hookproto.HookServerDir(os.Getenv))
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
			out, _ = c.run(t, bin, second)
			second.check(scDeny, outcome{false, "Bash(rm -rf:*)"}, out)
			after, err := status()
			if err != nil || after.Pid != before.Pid || after.Answered <= before.Answered {
				t.Errorf("the second session's hooks were not answered by the hook server (pid %d, %d answered before): %+v %v", before.Pid, before.Answered, after, err)
			}
		})
	}
}
