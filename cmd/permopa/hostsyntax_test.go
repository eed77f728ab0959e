package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostSettingsTypoIsPlaced: a host's settings file with a syntax
// mistake is named with its line and column and the token, by doctor and
// by install alike, for each host's format; install writes nothing.
func TestHostSettingsTypoIsPlaced(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		host, file, text, want string
	}{
		{"claude", ".claude/settings.json", "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls)\",]\n  }\n}\n", ":3:26: invalid character ']'"},
		{"gemini", ".gemini/settings.json", "{\"a\": 1,\n \"b\" 2}\n", ":2:6: invalid character '2' after object key"},
		{"codex", ".codex/config.toml", "[hooks]\nx = \n", ":2:5: toml: "},
	} {
		home := t.TempDir()
		file := filepath.Join(home, c.file)
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		env := []string{"HOME=" + home}
		out, errOut, code := permopaAt(t, home, "", env, "doctor", c.host)
		if code == 0 || !strings.Contains(out+errOut, file+c.want) {
			t.Errorf("doctor %s: exit %d %q %q, want %q", c.host, code, out, errOut, file+c.want)
		}
		out, errOut, code = permopaAt(t, home, "", env, "install", c.host, "--command", "/usr/bin/true")
		if code == 0 || !strings.Contains(out+errOut, file+c.want) {
			t.Errorf("install %s: exit %d %q %q, want %q", c.host, code, out, errOut, file+c.want)
		}
		if b, _ := os.ReadFile(file); string(b) != c.text {
			t.Errorf("install %s rewrote the broken file: %q", c.host, b)
		}
	}
}
