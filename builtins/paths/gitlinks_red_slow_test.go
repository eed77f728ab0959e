//go:build slow

package paths

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitWorkTreeSubmodulesForReal: the superproject's git status and git
// diff run an embedded repository's core.fsmonitor (a gitlink added with
// `git add sub`, no .gitmodules), and ConfigFindings reports it.
func TestGitWorkTreeSubmodulesForReal(t *testing.T) {
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
	mkfile(t, main+"/sub/f", "f\n")
	git(main, "init", "-q")
	git(main+"/sub", "init", "-q")
	git(main+"/sub", "add", "f")
	git(main+"/sub", "commit", "-qm", "sub")
	git(main, "add", "a", "sub")
	git(main, "commit", "-qm", "main")
	marker := root + "/ran"
	git(main+"/sub", "config", "core.fsmonitor", "touch "+marker+"; false")
	mkfile(t, main+"/sub/f", "changed\n")
	for _, cmd := range []string{"status", "diff"} {
		os.Remove(marker)
		git(main, cmd)
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("git %s did not run the submodule's core.fsmonitor", cmd)
		}
	}
	if got := strings.Join(findings(root, "git", main), ","); got != "main/sub/.git/config core.fsmonitor" {
		t.Errorf("findings %q", got)
	}
}
