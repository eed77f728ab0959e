//go:build unix

package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// A .permopa/ file that cannot be read (a named pipe) is shown once, as
// what blocks every call below it; doctor does not wait on the pipe.
func TestDoctorShowsAnUnreadableProject(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
	must(t, os.MkdirAll(filepath.Join(proj, ".permopa"), 0o755))
	must(t, os.MkdirAll(home, 0o755))
	pipe := filepath.Join(proj, ".permopa", "settings.yaml")
	must(t, syscall.Mkfifo(pipe, 0o644))
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=", "XDG_CONFIG_HOME=", "PERMOPA_CONFIG_DIR="}
	if _, errOut, code := permopaAt(t, proj, "", env, "install", "claude", "--command", "/bin/true"); code != 0 {
		t.Fatal(errOut)
	}
	out, _, _ := permopaAt(t, proj, "", env, "doctor", "claude")
	want := "note   " + filepath.Join(proj, ".permopa") + ": cannot be read, so every call made below " + proj + " is denied until it is fixed:"
	if !strings.Contains(out, want) || strings.Count(out, pipe+": is not a regular file") != 1 {
		t.Errorf("doctor, a named pipe as the project's settings: want %q and the file once:\n%s", want, out)
	}
}
