//go:build hostse2e

package hosts_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The real host runs `npm run clean`, whose package.json script holds the
// denied `rm -rf victim` (issue 27): permopa reads the script, the deny
// rule Bash(rm -rf:*) holds through it, victim stays, and the model is told
// which script, file and line it was. npm is real: without the hook the
// command would delete victim (checked first, in a copy of the project).
func TestClaudeCodeDeniesWhatAScriptRuns(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm not installed")
	}
	bin, _ := hostBinary(t, "claude")
	const pkg = "{\n  \"name\": \"e2e\",\n  \"scripts\": {\n    \"clean\": \"rm -rf victim\"\n  }\n}\n"
	// The case proves something only if npm does run the script.
	probe := t.TempDir()
	writeFile(t, filepath.Join(probe, "package.json"), pkg)
	writeFile(t, filepath.Join(probe, "victim", "keep.txt"), "x\n")
	cmd := exec.Command(npm, "run", "clean")
	cmd.Dir = probe
	cmd.Env = append(cmd.Environ(), "HOME="+t.TempDir(), "npm_config_update_notifier=false")
	if out, err := cmd.CombinedOutput(); err != nil || exists(filepath.Join(probe, "victim")) {
		t.Fatalf("npm run clean without permopa did not delete victim (%v): the case proves nothing\n%s", err, out)
	}
	sc := scenario{"script-deny", "npm run clean", "victim"}
	for _, mode := range []string{"default", "bypassPermissions"} {
		t.Run(mode, func(t *testing.T) {
			limit <- struct{}{}
			defer func() { <-limit }()
			r := newHostRun(t, "claude", sc, "Bash", map[string]any{"command": sc.command, "description": "e2e"})
			writeFile(t, filepath.Join(r.proj, "package.json"), pkg)
			r.mock.start(r.mock.anthropic())
			r.install("claude")
			out, err := run(t, 150*time.Second, r.proj, []string{
				"HOME=" + r.home, "ANTHROPIC_BASE_URL=" + r.mock.url, "ANTHROPIC_API_KEY=sk-ant-e2e",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1",
			}, bin, "-p", r.mock.marker, "--output-format", "json", "--permission-mode", mode)
			if err != nil {
				t.Logf("claude exited: %v", err)
			}
			if !r.mock.toolCalled() {
				t.Fatalf("the host never offered the tool\n%s\n%s", out, r.mock.log())
			}
			if !exists(filepath.Join(r.proj, "victim", "keep.txt")) {
				t.Errorf("%s: npm run clean ran its script: victim is gone\n%s", mode, out)
			}
			result, _ := r.mock.toolResult()
			for _, want := range []string{"Bash(rm -rf:*)", "package.json:4 script clean runs rm -rf victim"} {
				if !strings.Contains(result, want) {
					t.Errorf("%s: the tool result the model saw %q does not contain %q", mode, result, want)
				}
			}
		})
	}
}
