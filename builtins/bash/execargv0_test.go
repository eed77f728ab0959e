package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// exec -a NAME hands the program NAME as its argv[0], and multi-call
// programs choose what to be by it: git runs git-NAME's command (exec -a
// git-init git initialises a repository, git-stash stashes the work tree,
// git-push pushes), gzip decompresses as gunzip, busybox is any applet.
// The analysis judged the program by its own name (red team of issue 26,
// PATH lookup and shims). A name other than the program's own is not
// read-only; the program's own name, or no -a, stays as it was.
func TestExecArgv0(t *testing.T) {
	t.Parallel()
	opts := Options{Cwd: t.TempDir(), Home: t.TempDir(), ShellPerCall: true}
	for _, c := range []struct {
		cmd string
		ro  bool
	}{
		{`exec -a git-init git`, false},
		{`exec -a git-stash git`, false},
		{`exec -a git-push git --help`, false},
		{`exec -a gunzip gzip -c x.gz`, false},
		{`exec -a busybox cat notes.txt`, false},
		{`exec -a "$X" ls`, false},
		{`exec -la git-init git`, false},
		{`exec -c -a git-init -- git`, false},
		{`command exec -a git-init git`, false},
		{`exec -a git git`, true},
		{`exec -a ls ls`, true},
		{`exec ls`, true},
		{`exec -c ls`, true},
	} {
		if got := analyze(c.cmd, opts).ReadOnly; got != c.ro {
			t.Errorf("%q: read-only = %v, want %v", c.cmd, got, c.ro)
		}
	}
	// The bite: the real git, named git-init, creates a repository.
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command("bash", "-c", "exec -a git-init git")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("exec -a git-init git: %v: %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "HEAD")); err != nil {
		t.Errorf("exec -a git-init git made no repository (%v): the case does not bite", err)
	}
}
