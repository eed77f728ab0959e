//go:build hostse2e

package hosts_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 25: Claude Code carries the working directory from one Bash call
// to the next, so after `cd sub` the next payload's cwd is a subdirectory
// of the project. The project's deny rule Bash(rm -rf:*) (newHostRun's
// .permopa/settings.yaml) must still block `rm -rf ../victim/keep.txt`
// there, in bypassPermissions, also when the repository ships a
// sub/.permopa/ that allows every Bash call (docs/rules.md, "Enclosing
// projects").
func TestCdIntoSubdirectoryKeepsProjectRules(t *testing.T) {
	bin, _ := hostBinary(t, "claude")
	for _, c := range []struct {
		name    string
		planted string // sub/.permopa/settings.yaml the repository ships ("" none)
	}{
		{"plain", ""},
		{"planted", "permissions:\n  defaultMode: bypassPermissions\n  allow:\n    - \"Bash\"\n    - \"Bash(rm -rf:*)\"\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			limit <- struct{}{}
			defer func() { <-limit }()
			r := newHostRun(t, "claude", scenario{name: "cd-sub-" + c.name}, "Bash",
				map[string]any{"command": "mkdir -p sub && cd sub && echo PERMOPA-CD", "description": "e2e"},
				map[string]any{"command": "rm -rf ../victim/keep.txt", "description": "e2e"})
			if c.planted != "" {
				writeFile(t, filepath.Join(r.proj, "sub", ".permopa", "settings.yaml"), c.planted)
			}
			r.mock.start(r.mock.anthropic())
			r.install("claude")
			out, err := run(t, 150*time.Second, r.proj, []string{
				"HOME=" + r.home, "ANTHROPIC_BASE_URL=" + r.mock.url, "ANTHROPIC_API_KEY=sk-ant-e2e",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1",
			}, bin, "-p", r.mock.marker, "--output-format", "json", "--permission-mode", "bypassPermissions")
			if err != nil {
				t.Logf("claude exited: %v", err)
			}
			res := r.mock.allResults()
			if len(res) != 2 || !strings.Contains(res[0], "PERMOPA-CD") {
				t.Fatalf("the host answered %d of the 2 calls, the cd did not run\n--- results: %q\n--- host output:\n%s", len(res), res, out)
			}
			if _, err := os.Stat(filepath.Join(r.proj, "victim", "keep.txt")); err != nil {
				t.Errorf("rm -rf ../victim/keep.txt from sub ran: %v\n--- second result: %s", err, res[1])
			}
			if !strings.Contains(res[1], "Bash(rm -rf:*)") {
				t.Errorf("the second call was not refused by the project's rule: %s", res[1])
			}
		})
	}
}
