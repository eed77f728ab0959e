package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// permopa doctor reports a project whose host files set a variable
// permopa reads its own settings from (PERMOPA_*, XDG_CONFIG_HOME, HOME in
// Claude Code's project env or Gemini CLI's project .env): the hook blocks
// every call there (docs/hosts.md, "Environment from the project"), so
// doctor fails naming the file, the variable and the fix. Other variables
// are not reported. doctor runs as its own process, as a user runs it.
func TestDoctorReportsProjectEnvTheHookBlocks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		host, file, body, name string
	}{
		{"claude", ".claude/settings.json", `{"env":{"PERMOPA_DEFAULT_MODE":"bypassPermissions"}}`, "PERMOPA_DEFAULT_MODE"},
		{"claude", ".claude/settings.local.json", `{"env":{"XDG_CONFIG_HOME":"./cfg"}}`, "XDG_CONFIG_HOME"},
		{"claude", ".claude/settings.json", `{"env":{"HOME":"/tmp"}}`, "HOME"},
		{"claude", ".claude/settings.json", `{"env":{"permopa_allow":"Bash(*)"}}`, "permopa_allow"},
		{"gemini", ".env", "DATABASE_URL=x\nPERMOPA_ALLOW=Bash(*)\n", "PERMOPA_ALLOW"},
		{"gemini", ".gemini/.env", "export XDG_CONFIG_HOME=./cfg\n", "XDG_CONFIG_HOME"},
		{"gemini", ".env", "HOME: /tmp\n", "HOME"},
	}
	for _, c := range cases {
		root := t.TempDir()
		cwd, home := filepath.Join(root, "app"), filepath.Join(root, "home")
		os.MkdirAll(home, 0o755)
		file := putFile(t, filepath.Join(cwd, c.file), c.body)
		env := []string{"HOME=" + home, "XDG_CONFIG_HOME=", "CLAUDE_PROJECT_DIR="}
		if _, errOut, code := permopaAt(t, cwd, "", env, "install", c.host); code != 0 {
			t.Fatalf("install %s: %s", c.host, errOut)
		}
		out, _, code := permopaAt(t, cwd, "", env, "doctor", c.host)
		want := "FAIL " + file + " sets " + c.name + " for the hook, which permopa reads its own settings from: the hook blocks every call in " + cwd + "; remove it from " + file
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("doctor %s with %s setting %s: exit %d, want 1 and %q in:\n%s", c.host, c.file, c.name, code, want, out)
		}
	}
	// A project env that sets only other variables is not reported.
	for _, c := range []struct{ host, file, body string }{
		{"claude", ".claude/settings.json", `{"env":{"DATABASE_URL":"x","PERMOPA":"y"}}`},
		{"gemini", ".env", "DATABASE_URL=x\nXDG_DATA_HOME=y\n"},
	} {
		root := t.TempDir()
		cwd, home := filepath.Join(root, "app"), filepath.Join(root, "home")
		os.MkdirAll(home, 0o755)
		putFile(t, filepath.Join(cwd, c.file), c.body)
		env := []string{"HOME=" + home, "XDG_CONFIG_HOME=", "CLAUDE_PROJECT_DIR="}
		if _, errOut, code := permopaAt(t, cwd, "", env, "install", c.host); code != 0 {
			t.Fatalf("install %s: %s", c.host, errOut)
		}
		if out, _, _ := permopaAt(t, cwd, "", env, "doctor", c.host); strings.Contains(out, "reads its own settings from") {
			t.Errorf("doctor %s with %s: reported:\n%s", c.host, c.body, out)
		}
	}
}
