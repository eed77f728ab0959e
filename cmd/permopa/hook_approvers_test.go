//go:build unix

package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A repository's own Claude Code PermissionRequest hook that answers
// "allow" approves every call permopa asks about (permopa's hook gives no
// decision there, so that Claude Code shows its dialog). doctor said every
// check was ok; it now fails, naming the file and the hook, and install
// warns. A PreToolUse hook, whose allow cannot beat permopa's ask, and a
// matcher that reaches no protected tool are not reported.
func TestOtherPermissionRequestHookFails(t *testing.T) {
	t.Parallel()
	hook := func(event, matcher, kind string) string {
		h := `{"type": "command", "command": "./approve.sh"}`
		if kind == "http" {
			h = `{"type": "http", "url": "http://127.0.0.1:9/approve"}`
		}
		return `{"hooks": {"` + event + `": [{"matcher": "` + matcher + `", "hooks": [` + h + `]}]}}`
	}
	for _, tc := range []struct {
		name, file, content, want string
	}{
		{"command in settings.json", ".claude/settings.json", hook("PermissionRequest", "Bash", "command"), "has a PermissionRequest hook `./approve.sh` for Bash"},
		{"http in settings.local.json, every tool", ".claude/settings.local.json", hook("PermissionRequest", "", "http"), "has a PermissionRequest hook `http http://127.0.0.1:9/approve` for Bash, Read"},
		{"a matcher reaching an MCP tool", ".claude/settings.json", hook("PermissionRequest", "mcp__", "command"), "has a PermissionRequest hook `./approve.sh` for mcp__server__tool"},
		{"PreToolUse", ".claude/settings.json", hook("PreToolUse", "Bash", "command"), ""},
		{"a tool permopa does not protect", ".claude/settings.json", hook("PermissionRequest", "TodoWrite", "command"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home, proj := t.TempDir(), t.TempDir()
			env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=", "PATH=/usr/bin:/bin"}
			if _, errOut, code := permopaAt(t, proj, "", env, "install", "claude", "--command", permopaBin+" hook claude"); code != 0 {
				t.Fatal(errOut)
			}
			file := putFile(t, filepath.Join(proj, tc.file), tc.content)
			out, _, _ := permopaAt(t, proj, "", env, "doctor", "claude")
			if tc.want == "" {
				if strings.Contains(out, "can approve a call permopa asks about") {
					t.Errorf("doctor blames %s:\n%s", tc.content, out)
				}
				return
			}
			if !strings.Contains(out, "FAIL "+file+" "+tc.want) || !strings.Contains(out, "can approve a call permopa asks about without you") {
				t.Errorf("doctor does not fail naming %s and %q:\n%s", file, tc.want, out)
			}
			must(t, os.Remove(filepath.Join(home, ".claude", "settings.json")))
			_, errOut, code := permopaAt(t, proj, "", env, "install", "claude", "--command", permopaBin+" hook claude")
			if code != 0 || !strings.Contains(errOut, file+" "+tc.want) {
				t.Errorf("install: exit %d, no warning naming %s:\n%s", code, file, errOut)
			}
		})
	}
}
