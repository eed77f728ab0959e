package main_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// permopaIn runs the binary in dir with the settings layers confined to dir.
func permopaIn(t *testing.T, dir, stdin string, args ...string) (string, string, int) {
	t.Helper()
	env := []string{"HOME=" + dir, "PERMOPA_MANAGED_DIR=" + filepath.Join(dir, "etc"), "PERMOPA_CONFIG_DIR=" + filepath.Join(dir, "user")}
	return runPermopa(t, dir, stdin, env, args...)
}

// `permopa rules add|list|revoke` edit the layer files and show each rule
// with its layer and expiry.
func TestRulesCommand(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := permopaIn(t, dir, "", "rules", "add", "Bash(npm run:*)", "mcp__github__*"); code != 0 {
		t.Fatalf("add: %s", stderr)
	}
	if _, stderr, code := permopaIn(t, dir, "", "rules", "add", "--destination", "user", "--behavior", "deny", "--ttl", "2h", "Read(~/.aws/**)"); code != 0 {
		t.Fatalf("add deny: %s", stderr)
	}
	out, stderr, code := permopaIn(t, dir, "", "rules", "list")
	if code != 0 {
		t.Fatalf("list: %s", stderr)
	}
	for _, want := range []string{
		"allow     Bash(npm run:*)  localSettings", filepath.Join(dir, ".permopa", "settings.local.yaml"),
		"deny      Read(~/.aws/**)  userSettings", filepath.Join(dir, "user", "settings.yaml"), "Z\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list output lacks %q:\n%s", want, out)
		}
	}
	if _, stderr, code := permopaIn(t, dir, "", "rules", "add", "Bash(oops"); code == 0 || !strings.Contains(stderr, "Bash(oops") {
		t.Errorf("invalid rule: exit %d, %s", code, stderr)
	}
	if out, stderr, code := permopaIn(t, dir, "", "rules", "revoke", "Bash(npm run:*)"); code != 0 || !strings.Contains(out, "revoked 1") {
		t.Fatalf("revoke: %s %s", out, stderr)
	}
	out, _, _ = permopaIn(t, dir, "", "rules", "list", "--json")
	if strings.Contains(out, "npm run") || !strings.Contains(out, `"rule": "mcp__github__*"`) {
		t.Errorf("after revoke:\n%s", out)
	}
	if _, stderr, code := permopaIn(t, dir, "", "rules", "revoke", "Bash(npm run:*)"); code == 0 || !strings.Contains(stderr, "no allow rule") {
		t.Errorf("revoking a missing rule: exit %d %s", code, stderr)
	}
}

// Separate processes adding rules to the same file at once lose none: the
// lock file serialises them across processes.
func TestRulesAddConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	const n = 12
	errs := make(chan string, n)
	done := make(chan struct{})
	for i := 0; i < n; i++ {
		go func(i int) {
			defer func() { done <- struct{}{} }()
			if _, stderr, code := permopaIn(t, dir, "", "rules", "add", "--destination", "project", "Bash(job"+strings.Repeat("x", i)+":*)"); code != 0 {
				errs <- stderr
			}
		}(i)
	}
	for i := 0; i < n; i++ {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	out, _, _ := permopaIn(t, dir, "", "rules", "list")
	if got := strings.Count(out, "Bash(job"); got != n {
		t.Fatalf("%d rules listed, want %d:\n%s", got, n, out)
	}
}
