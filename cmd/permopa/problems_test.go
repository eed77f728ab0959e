package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSettingsMessagesArePlaced: every message about a settings file,
// from `permopa rules lint` and from `permopa decide` alike, names the
// file and line (and column where the parser knows it) first, says its
// level once, and a YAML syntax error shows the token the parser found.
func TestSettingsMessagesArePlaced(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("permissions:\n  allow: [\"Bash(npm run:*\", \"Bash(ls)\"]\n  deny: [\"Bash(rm:*)\", \"Reed(src/**)\"]\n  defaultMode: sometimes\n  alow: [\"Bash(x)\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.yaml")
	if err := os.WriteFile(broken, []byte("permissions:\n  allow: [\"Bash(ls)\"\n  deny: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	placed := regexp.MustCompile(`^(permopa: (error|warning|info): (every call is denied until this is fixed: )?)?(settings )?` + regexp.QuoteMeta(dir) + `/[a-z]+\.yaml:[0-9]+(:[0-9]+)?: `)
	check := func(name, out string, want ...string) {
		t.Helper()
		lines := strings.Split(strings.TrimSpace(out), "\n")
		for _, l := range lines {
			if strings.Contains(l, "error(s)") {
				continue
			}
			if !placed.MatchString(l) {
				t.Errorf("%s: %q does not start with its file and line", name, l)
			}
			for _, lv := range []string{"error", "warning", "info"} {
				if strings.Count(l, " "+lv+": ") > 1 || strings.Contains(l, lv+": "+lv+":") {
					t.Errorf("%s: %q says its level twice", name, l)
				}
			}
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: %q lacks %q", name, out, w)
			}
		}
	}
	out, _, _ := permopa(t, "", "rules", "lint", "--fail-on", "never", bad)
	check("rules lint", out, bad+":2:11: warning: permissions.allow:", bad+":4:16: error: permissions.defaultMode: unknown mode", bad+":3:25: ", "Reed(src/**)", bad+":5:3: ")
	_, stderr, _ := permopa(t, `{"tool_name":"Bash","tool_input":{"command":"ls"}}`+"\n", "decide", "--settings", bad)
	check("decide", stderr, bad+":2:11: permissions.allow:", bad+":4:16: permissions.defaultMode:", "Reed(src/**)", bad+":5:3: ")
	out, _, _ = permopa(t, "", "rules", "lint", broken)
	check("rules lint, broken", out, broken+":3:3: error: not valid yaml: did not find expected ',' or ']' (found `deny`)")
	_, stderr, _ = permopa(t, `{"tool_name":"Bash","tool_input":{"command":"ls"}}`+"\n", "decide", "--settings", broken)
	check("decide, broken", stderr, broken+":3:3: not valid yaml")
}
