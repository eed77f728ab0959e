//go:build hostse2e

package hosts_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// docBlock is the first ```sh block after heading in the Markdown file at
// path, one command a line, comments and blank lines dropped.
func docBlock(t *testing.T, path, heading string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	i := strings.Index(text, heading)
	if i < 0 {
		t.Fatalf("%s has no %q: the walk follows that section", path, heading)
	}
	text = text[i:]
	start := strings.Index(text, "```sh\n")
	if start < 0 {
		t.Fatalf("%s: no ```sh block after %q", path, heading)
	}
	text = text[start+len("```sh\n"):]
	end := strings.Index(text, "```")
	if end < 0 {
		t.Fatalf("%s: the ```sh block after %q does not end", path, heading)
	}
	var out []string
	for _, line := range strings.Split(text[:end], "\n") {
		if cmd, _, _ := strings.Cut(line, "#"); strings.TrimSpace(cmd) != "" {
			out = append(out, strings.TrimSpace(cmd))
		}
	}
	return out
}

// walkInstall is the README's `go install` line, run once for every host
// with GOBIN set to a directory of the run's own (not under the temporary
// directory, which `permopa install` refuses).
var walkInstall struct {
	once sync.Once
	bin  string
	out  string
	err  error
}

// TestFreshCloneWalk walks the path README.md's "In an agent host" shows a
// new user, with its commands as written: `go install` of the three
// binaries from the checkout, `permopa install <host>`, `permopa doctor
// <host>` (every check ok, exit 0), then one call the project's deny rule
// blocks and one it allows, through the real host. The install line of each
// host is also the one docs/hosts.md shows. A doc change that breaks this
// path fails here.
func TestFreshCloneWalk(t *testing.T) {
	readme := docBlock(t, "../../README.md", "## In an agent host")
	if len(readme) != 3 || !strings.HasPrefix(readme[0], "go install ") || readme[1] != "permopa install claude" || readme[2] != "permopa doctor claude" {
		t.Fatalf("README.md's \"In an agent host\" is not go install, permopa install claude, permopa doctor claude: %q (update this walk with it)", readme)
	}
	hostsDoc := strings.Join(docBlock(t, "../../docs/hosts.md", "The quickest way in is"), "\n")
	cases := []struct {
		host    string
		tool    string
		args    func(sc scenario) map[string]any
		allowed scenario
		// setup is what the user has set up in the host before: its model
		// API (here the mock) and, for Gemini CLI, the folder trusted in
		// its trust dialog (docs/hosts.md: it runs no hooks otherwise).
		// Called again for the second call with a new mock (first false):
		// only the mock's address changes then.
		setup func(r *hostRun, first bool)
		run   func(t *testing.T, bin string, r *hostRun) string
	}{
		{"claude", "Bash", func(sc scenario) map[string]any { return map[string]any{"command": sc.command, "description": "e2e"} }, scAllow,
			func(r *hostRun, _ bool) { r.mock.start(r.mock.anthropic()) },
			func(t *testing.T, bin string, r *hostRun) string {
				out, err := run(t, 150*time.Second, r.proj, []string{
					"HOME=" + r.home, "ANTHROPIC_BASE_URL=" + r.mock.url, "ANTHROPIC_API_KEY=sk-ant-e2e",
					"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1",
				}, bin, "-p", r.mock.marker, "--output-format", "json")
				if err != nil {
					t.Logf("claude exited: %v", err)
				}
				return out
			}},
		// codex exec's default sandbox is read-only: the allowed call is a
		// read.
		{"codex", "exec_command", func(sc scenario) map[string]any { return map[string]any{"cmd": sc.command} }, scRead,
			func(r *hostRun, first bool) {
				old := r.mock.url
				r.mock.start(r.mock.openaiResponses())
				file := filepath.Join(r.home, ".codex", "config.toml")
				if first {
					writeFile(r.t, file, codexProvider(r.mock.url))
					return
				}
				// install wrote its hooks (and their trust) into this file.
				b, err := os.ReadFile(file)
				if err != nil || !strings.Contains(string(b), old+"/v1") {
					r.t.Fatalf("%s: %v, no base_url %s/v1:\n%s", file, err, old, b)
				}
				writeFile(r.t, file, strings.Replace(string(b), old+"/v1", r.mock.url+"/v1", 1))
			},
			func(t *testing.T, bin string, r *hostRun) string {
				out, err := run(t, 150*time.Second, r.proj, []string{"HOME=" + r.home, "PERMOPA_E2E_KEY=dummy"},
					bin, "exec", "--skip-git-repo-check", r.mock.marker)
				if err != nil {
					t.Logf("codex exited: %v", err)
				}
				return out
			}},
		// Headless Gemini CLI asks for every shell command in its default
		// mode, and nobody can answer: yolo, where permopa's deny still
		// holds.
		{"gemini", "run_shell_command", func(sc scenario) map[string]any { return map[string]any{"command": sc.command} }, scAllow,
			func(r *hostRun, first bool) {
				r.mock.start(r.mock.gemini())
				if !first {
					return
				}
				writeFile(r.t, filepath.Join(r.home, ".gemini", "settings.json"), geminiSettings)
				trust, _ := json.Marshal(map[string]string{r.proj: "TRUST_FOLDER"})
				writeFile(r.t, filepath.Join(r.home, ".gemini", "trustedFolders.json"), string(trust))
			},
			func(t *testing.T, bin string, r *hostRun) string {
				env := []string{"HOME=" + r.home, "GOOGLE_GEMINI_BASE_URL=" + r.mock.url, "GEMINI_API_KEY=e2e-dummy", "GEMINI_CLI_NO_RELAUNCH=true", "CI=1"}
				out, err := run(t, 150*time.Second, r.proj, env, bin, "-p", r.mock.marker, "-m", "gemini-2.5-flash", "--output-format", "json", "--approval-mode", "yolo")
				if err != nil {
					t.Logf("gemini exited: %v", err)
				}
				return out
			}},
	}
	for _, c := range cases {
		t.Run(c.host, func(t *testing.T) {
			t.Parallel()
			bin, _ := hostBinary(t, c.host)
			install := strings.Replace(readme[1], "claude", c.host, 1)
			doctor := strings.Replace(readme[2], "claude", c.host, 1)
			if !strings.Contains(hostsDoc, install) {
				t.Errorf("docs/hosts.md's install block does not show %q:\n%s", install, hostsDoc)
			}
			if !strings.Contains(readHostsDoc(t), readme[0]) {
				t.Errorf("docs/hosts.md does not show README's %q", readme[0])
			}
			walkInstall.once.Do(func() {
				walkInstall.bin = filepath.Join(bins.dir, "walk-gobin")
				cmd := exec.Command("sh", "-c", readme[0])
				cmd.Dir = "../.."
				cmd.Env = append(os.Environ(), "GOBIN="+walkInstall.bin)
				out, err := cmd.CombinedOutput()
				walkInstall.out, walkInstall.err = string(out), err
			})
			if walkInstall.err != nil {
				t.Fatalf("%s: %v\n%s", readme[0], walkInstall.err, walkInstall.out)
			}
			limit <- struct{}{}
			defer func() { <-limit }()
			r := newHostRun(t, c.host, scDeny, c.tool, c.args(scDeny))
			c.setup(r, true)
			// The user's shell: the installed binaries first, then the
			// host CLI (install codex asks `codex` on PATH for its trust).
			shell := func(line string) (string, error) {
				cmd := exec.Command("sh", "-c", line)
				cmd.Dir = r.proj
				cmd.Env = append(os.Environ(), "HOME="+r.home,
					"PATH="+walkInstall.bin+":"+filepath.Dir(bin)+":"+os.Getenv("PATH"))
				out, err := cmd.CombinedOutput()
				return string(out), err
			}
			if out, err := shell(install); err != nil {
				t.Fatalf("%s: %v\n%s", install, err, out)
			}
			out, err := shell(doctor)
			if err != nil || strings.Contains(out, "FAIL") || !strings.Contains(out, "ok  ") {
				t.Fatalf("%s: %v, want every check ok:\n%s", doctor, err, out)
			}
			t.Logf("%s:\n%s", doctor, out)
			// One call blocked by the deny rule.
			r.check(scDeny, outcome{false, "Bash(rm -rf:*)"}, c.run(t, bin, r))
			// One call allowed, in the same home and project.
			old := r.mock
			r.mock = newModelMock(t, "PERMOPA-E2E "+c.allowed.name, c.tool, c.args(c.allowed))
			r.mock.url = old.url
			c.setup(r, false)
			want := outcome{true, ""}
			if c.allowed == scRead {
				want = outcome{true, "victim"}
			}
			r.check(c.allowed, want, c.run(t, bin, r))
		})
	}
}

func readHostsDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/hosts.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
