package paths

import (
	"crypto/sha1"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitWorkTreeSubmodules: git status and git diff look into every
// populated submodule of the work tree, a gitlink of the index with a .git
// in its directory (no .gitmodules needed), with that repository's own
// configuration: the embedded repository's core.fsmonitor ran under the
// superproject's git status while it was read-only
// (TestGitWorkTreeSubmodulesForReal, slow). Every index version is read;
// an index permopa cannot parse is a finding.
func TestGitWorkTreeSubmodules(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git := gitIn(t, root)
	main := filepath.Join(root, "main")
	mkfile(t, main+"/a", "a\n")
	git(main, "init", "-q")
	for _, sub := range []string{main + "/sub", main + "/sub/deep"} {
		mkfile(t, sub+"/f", "f\n")
		git(sub, "init", "-q")
	}
	git(main+"/sub/deep", "add", "f")
	git(main+"/sub/deep", "commit", "-qm", "deep")
	git(main+"/sub", "add", "f", "deep")
	git(main+"/sub", "commit", "-qm", "sub")
	git(main, "add", "a", "sub")
	git(main, "commit", "-qm", "main")
	if got := findings(root, "git", main); len(got) != 0 {
		t.Fatalf("clean submodules: %v", got)
	}
	mkfile(t, main+"/sub/.git/config", "[core]\n\tfsmonitor = ./x\n")
	mkfile(t, main+"/sub/deep/.git/hooks/post-index-change", "#!/bin/sh\n")
	const want = "main/sub/.git/config core.fsmonitor,main/sub/deep/.git/hooks/post-index-change hook post-index-change"
	for _, version := range []string{"2", "3", "4"} {
		git(main, "update-index", "--index-version", version)
		if got := strings.Join(findings(root, "git", main), ","); got != want {
			t.Errorf("index version %s: %v, want %s", version, got, want)
		}
	}
	// From a directory of the superproject, too.
	if got := strings.Join(findings(root, "git", main+"/sub/.."), ","); got != want {
		t.Errorf("from a subdirectory: %v", got)
	}
	// Not populated: git does not look into it.
	if err := os.Rename(main+"/sub/.git", root+"/subgit"); err != nil {
		t.Fatal(err)
	}
	if got := findings(root, "git", main); len(got) != 0 {
		t.Errorf("unpopulated submodule: %v", got)
	}
	// A split index keeps entries in a shared index permopa does not read.
	git(main, "update-index", "--split-index")
	if got := strings.Join(findings(root, "git", main), ","); got != "main/.git/index " {
		t.Errorf("a split index: %v", got)
	}
	git(main, "update-index", "--no-split-index")
	// An index git reads (its checksum holds) but permopa cannot parse;
	// one git refuses (a bad checksum) runs nothing.
	body := []byte("DIRC\x00\x00\x00\x09\x00\x00\x00\x01")
	sum := sha1.Sum(body)
	mkfile(t, main+"/.git/index", string(body)+string(sum[:]))
	if got := strings.Join(findings(root, "git", main), ","); got != "main/.git/index " {
		t.Errorf("an index of an unknown version: %v", got)
	}
	mkfile(t, main+"/.git/index", string(body)+strings.Repeat("x", 20))
	if got := findings(root, "git", main); len(got) != 0 {
		t.Errorf("an index git refuses: %v", got)
	}
}

func gitIn(t *testing.T, root string) func(dir string, args ...string) {
	return func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+root+"/home", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=x", "GIT_AUTHOR_EMAIL=x@example.com", "GIT_COMMITTER_NAME=x", "GIT_COMMITTER_EMAIL=x@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
