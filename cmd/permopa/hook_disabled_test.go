//go:build unix

package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A repository switches the hooks off in the host's project settings
// (Claude Code's disableAllHooks, Gemini CLI's hooksConfig): permopa's
// hook, installed for the user, then never runs and every call goes
// through unchecked. doctor said every check was ok; it now fails, naming
// the file and key, and install warns.
func TestHooksSwitchedOffByRepository(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, host, file, content, want string
	}{
		{"claude disableAllHooks in settings.json", "claude", ".claude/settings.json", `{"disableAllHooks": true}`, `settings.json sets "disableAllHooks": true`},
		{"claude disableAllHooks in settings.local.json", "claude", ".claude/settings.local.json", `{"disableAllHooks": true}`, `settings.local.json sets "disableAllHooks": true`},
		{"gemini hooksConfig.enabled false", "gemini", ".gemini/settings.json", `{"hooksConfig": {"enabled": false}}`, "sets hooksConfig.enabled false"},
		{"gemini hooksConfig.disabled permopa", "gemini", ".gemini/settings.json", `{"hooksConfig": {"disabled": ["permopa"]}}`, `lists "permopa" in hooksConfig.disabled`},
		{"gemini legacy hooks.enabled false", "gemini", ".gemini/settings.json", `{"hooks": {"enabled": false}}`, "sets hooks.enabled false"},
		{"claude disableAllHooks false", "claude", ".claude/settings.json", `{"disableAllHooks": false}`, ""},
		{"gemini another hook disabled", "gemini", ".gemini/settings.json", `{"hooksConfig": {"disabled": ["lint"]}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home, proj := t.TempDir(), t.TempDir()
			env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=", "GEMINI_CLI_TRUSTED_FOLDERS_PATH=", "PATH=/usr/bin:/bin"}
			if _, errOut, code := permopaAt(t, proj, "", env, "install", tc.host, "--command", permopaBin+" hook "+tc.host); code != 0 {
				t.Fatal(errOut)
			}
			file := putFile(t, filepath.Join(proj, tc.file), tc.content)
			out, _, _ := permopaAt(t, proj, "", env, "doctor", tc.host)
			if tc.want == "" {
				if strings.Contains(out, "permopa's hook does not run") {
					t.Errorf("doctor blames %s:\n%s", tc.content, out)
				}
				return
			}
			if !strings.Contains(out, "FAIL permopa's hook does not run: "+file) || !strings.Contains(out, tc.want) {
				t.Errorf("doctor does not fail naming %s and %q:\n%s", file, tc.want, out)
			}
			// install (again) warns.
			must(t, os.Remove(filepath.Join(home, "."+tc.host, "settings.json")))
			_, errOut, code := permopaAt(t, proj, "", env, "install", tc.host, "--command", permopaBin+" hook "+tc.host)
			if code != 0 || !strings.Contains(errOut, "permopa's hook does not run: "+file) {
				t.Errorf("install: exit %d, no warning naming %s:\n%s", code, file, errOut)
			}
		})
	}
}
