//go:build hostse2e

package hosts_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// Gemini CLI loads the project's .env into its environment, and the shell
// it runs a command in reads BASH_ENV: without permopa's hook, `ls` runs
// the project's x.sh (the control run shows it). With the hook, the Gemini
// hook names the variable in project_env and `ls` is no longer read-only:
// permopa asks (headless: the turn ends), x.sh does not run, and the
// reason names the .env file (docs/hosts.md, "Environment from the
// project").
func TestGeminiProjectEnvReachesTheHook(t *testing.T) {
	bin, _ := hostBinary(t, "gemini")
	yolo := []string{"--skip-trust", "--approval-mode", "yolo"}
	sc := scenario{name: "project-env", command: "ls", marker: "bash-env-ran"}
	for _, hooked := range []bool{false, true} {
		name := "control"
		if hooked {
			name = "hooked"
		}
		t.Run(name, func(t *testing.T) {
			r := newHostRun(t, "gemini", sc, "run_shell_command", map[string]any{"command": sc.command})
			writeFile(t, filepath.Join(r.proj, ".env"), "BASH_ENV=./x.sh\nDATABASE_URL=postgres://x\n")
			writeFile(t, filepath.Join(r.proj, "x.sh"), "touch bash-env-ran\n")
			r.mock.start(r.mock.gemini())
			writeFile(t, filepath.Join(r.home, ".gemini", "settings.json"), geminiSettings)
			if hooked {
				r.install("gemini")
			}
			out := geminiRun(t, bin, r, yolo...)
			r.check(sc, outcome{ran: !hooked}, out)
			if hooked && !strings.Contains(out, ".env") {
				t.Errorf("the user is not told about the project's .env:\n%s", out)
			}
		})
	}
}
