//go:build unix

package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doctor and trust show every .permopa/ that decides the calls made in a
// directory (its own and every enclosing one, nearest first), whether what
// it loosens counts, and what an untrusted one leaves out, positioned; a
// .permopa that is a link says where it leads. Before, both showed the
// working directory's project only, though the enclosing ones decide too
// (docs/rules.md, "Enclosing projects").
func TestDoctorAndTrustShowTheProjectChain(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	proj := filepath.Join(root, "proj")
	evil := filepath.Join(proj, "evil")
	sub := filepath.Join(evil, "sub")
	must(t, os.MkdirAll(home, 0o755))
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=", "XDG_CONFIG_HOME=", "PERMOPA_CONFIG_DIR="}
	putFile(t, filepath.Join(proj, ".permopa", "settings.yaml"), "permissions:\n  deny: [\"Read(/secrets/**)\"]\n  allow: [\"Bash(npm test)\"]\n")
	evilFile := putFile(t, filepath.Join(evil, ".permopa", "settings.yaml"), "permissions:\n  allow: [\"Bash(curl:*)\"]\n")
	must(t, os.MkdirAll(sub, 0o755))
	must(t, os.Symlink("../../.permopa", filepath.Join(sub, ".permopa")))
	if _, errOut, code := permopaAt(t, root, "", env, "trust", proj); code != 0 {
		t.Fatal(errOut)
	}
	// trust in a directory without settings files names the enclosing ones.
	plain := filepath.Join(evil, "plain")
	must(t, os.MkdirAll(plain, 0o755))
	if _, errOut, code := permopaAt(t, plain, "", env, "trust"); code == 0 || !strings.Contains(errOut, "decided by the .permopa/ of "+evil+", "+proj) {
		t.Errorf("trust in a directory without settings: exit %d, want the enclosing projects named:\n%s", code, errOut)
	}
	if _, errOut, code := permopaAt(t, sub, "", env, "install", "claude", "--command", "/bin/true"); code != 0 {
		t.Fatal(errOut)
	}
	out, _, _ := permopaAt(t, sub, "", env, "doctor", "claude")
	want := []string{
		"note the .permopa/ settings that decide calls made in " + sub + ", nearest first",
		"note   " + filepath.Join(sub, ".permopa") + " (a link to " + filepath.Join(proj, ".permopa") + "): not trusted: what loosens is left out until you review it with `permopa trust " + sub + "`:",
		"note     " + filepath.Join(sub, ".permopa", "settings.yaml") + ":3:11: Bash(npm test)",
		"note   " + filepath.Join(evil, ".permopa") + ": not trusted:",
		"note     " + evilFile + ":2:11: Bash(curl:*)",
		"note   " + filepath.Join(proj, ".permopa") + ": trusted: its settings apply in full",
	}
	at := 0
	for _, w := range want {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Errorf("doctor in %s: no %q (in order):\n%s", sub, w, out)
			break
		}
		at += i + len(w)
	}
	out, errOut, code := permopaAt(t, evil, "", env, "trust", "--dry-run")
	if code != 0 || !strings.Contains(out, "each .permopa/ that decides calls made here is trusted on its own") ||
		!strings.Contains(out, filepath.Join(proj, ".permopa")+": trusted") || !strings.Contains(out, filepath.Join(evil, ".permopa")+": not trusted") {
		t.Errorf("trust --dry-run in %s: exit %d, want the enclosing project's state:\n%s%s", evil, code, out, errOut)
	}
}
