//go:build hostse2e

package hosts_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// geminiSettings selects API-key auth (the key and base URL come from the
// environment), as a user of the Gemini API has it.
const geminiSettings = `{
  "security": {
    "auth": {
      "selectedType": "gemini-api-key"
    }
  }
}
`

// geminiRun runs gemini -p in r's home and project against the mock.
func geminiRun(t *testing.T, bin string, r *hostRun, args ...string) string {
	t.Helper()
	env := []string{
		"HOME=" + r.home, "GOOGLE_GEMINI_BASE_URL=" + r.mock.url, "GEMINI_API_KEY=e2e-dummy",
		"GEMINI_CLI_NO_RELAUNCH=true", "CI=1",
	}
	out, err := run(t, 150*time.Second, r.proj, env, bin, append([]string{"-p", r.mock.marker, "-m", "gemini-2.5-flash", "--output-format", "json"}, args...)...)
	if err != nil {
		t.Logf("gemini exited: %v", err)
	}
	return out
}

// Gemini CLI, headless (gemini -p, --skip-trust as headless runs need):
// its "allow" never overrides Gemini's own policy, so permopa cannot loosen
// it; in yolo mode permopa's DENY still stops a call, and its ASK makes
// Gemini ask (headless: the turn ends with permopa's reason shown to the
// user). With the hook installed with --mode dontAsk an ASK is a DENY
// whose reason reaches the model.
func TestGeminiCLI(t *testing.T) {
	bin, _ := hostBinary(t, "gemini")
	yolo := []string{"--skip-trust", "--approval-mode", "yolo"}
	cases := []struct {
		name     string
		install  []string
		args     []string
		sc       scenario
		want     outcome
		userSees string // in the host's output
	}{
		{"yolo", nil, yolo, scDeny, outcome{false, "Bash(rm -rf:*)"}, ""},
		{"yolo", nil, yolo, scAllow, outcome{true, ""}, ""},
		{"yolo", nil, yolo, scNoRule, outcome{false, ""}, "permopa ASK"},
		{"yolo", nil, yolo, scAskRule, outcome{false, ""}, "needs approval by rule"},
		{"yolo-dontAsk", []string{"--mode", "dontAsk"}, yolo, scDeny, outcome{false, "Bash(rm -rf:*)"}, ""},
		{"yolo-dontAsk", []string{"--mode", "dontAsk"}, yolo, scAskRule, outcome{false, "nobody to ask"}, ""},
		{"auto_edit", []string{"--mode", "auto_edit"}, []string{"--skip-trust", "--approval-mode", "auto_edit"}, scDeny, outcome{false, ""}, ""},
	}
	for _, c := range cases {
		t.Run(c.name+"/"+c.sc.name, func(t *testing.T) {
			t.Parallel()
			limit <- struct{}{}
			defer func() { <-limit }()
			r := newHostRun(t, "gemini", c.sc, "run_shell_command", map[string]any{"command": c.sc.command})
			r.mock.start(r.mock.gemini())
			writeFile(t, filepath.Join(r.home, ".gemini", "settings.json"), geminiSettings)
			r.install("gemini", c.install...)
			out := geminiRun(t, bin, r, c.args...)
			if c.name == "auto_edit" {
				// Headless auto_edit runs no shell command at all (Gemini
				// asks for them, and nobody can answer): the victim stays
				// whether or not the tool was offered.
				if !exists(filepath.Join(r.proj, "victim")) {
					t.Errorf("victim deleted in auto_edit:\n%s", out)
				}
				return
			}
			r.check(c.sc, c.want, out)
			if c.userSees != "" && !strings.Contains(out, c.userSees) {
				t.Errorf("the user does not see %q:\n%s", c.userSees, out)
			}
		})
	}
}

// Read-only tools run in Gemini's default mode even headless; permopa
// allows a read in the project, and the model sees the file.
func TestGeminiCLIDefaultModeRead(t *testing.T) {
	bin, _ := hostBinary(t, "gemini")
	sc := scenario{name: "read-file"}
	r := newHostRun(t, "gemini", sc, "read_file", map[string]any{"file_path": "README.md"})
	r.mock.start(r.mock.gemini())
	writeFile(t, filepath.Join(r.home, ".gemini", "settings.json"), geminiSettings)
	r.install("gemini")
	out := geminiRun(t, bin, r, "--skip-trust")
	r.check(sc, outcome{reason: "a project"}, out)
}

// Gemini CLI runs no project hooks under --skip-trust (nor in a folder it
// does not trust): `permopa install gemini --scope project` says so, and
// a deny rule holds only with the hook at user scope.
func TestGeminiCLIProjectHooksAndTrust(t *testing.T) {
	bin, _ := hostBinary(t, "gemini")
	yolo := []string{"--skip-trust", "--approval-mode", "yolo"}
	r := newHostRun(t, "gemini", scDeny, "run_shell_command", map[string]any{"command": scDeny.command})
	r.mock.start(r.mock.gemini())
	writeFile(t, filepath.Join(r.home, ".gemini", "settings.json"), geminiSettings)
	warn := r.install("gemini", "--scope", "project")
	if !strings.Contains(warn, "--skip-trust") || !strings.Contains(warn, "does not trust") {
		t.Errorf("permopa install gemini --scope project does not warn about folder trust:\n%s", warn)
	}
	out := geminiRun(t, bin, r, yolo...)
	if exists(filepath.Join(r.proj, "victim")) {
		t.Logf("Gemini CLI ran the project hook under --skip-trust: docs/hosts.md's warning can be relaxed")
	} else {
		t.Logf("as docs/hosts.md warns, Gemini CLI ignored the project hook under --skip-trust and the deny rule did not hold:\n%s", out)
	}
	// The same run with the hook at user scope: the deny rule holds.
	r2 := newHostRun(t, "gemini", scDeny, "run_shell_command", map[string]any{"command": scDeny.command})
	r2.mock.start(r2.mock.gemini())
	writeFile(t, filepath.Join(r2.home, ".gemini", "settings.json"), geminiSettings)
	r2.install("gemini")
	r2.check(scDeny, outcome{false, "Bash(rm -rf:*)"}, geminiRun(t, bin, r2, yolo...))
}
