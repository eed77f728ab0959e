//go:build slow

package paths

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestProcLinksDotDotForReal: the kernel reaches the file ResolvePath
// says through /proc's own links and "..": cat, run in the directory,
// prints the file below its cwd.
func TestProcLinksDotDotForReal(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mkfile(t, dir+"/p/s/x", "secret\n")
	for _, p := range []string{"/proc/thread-self/../../cwd/s/x", "/proc/net/../cwd/s/x", "/proc/self/task/../cwd/s/x", "/dev/fd/../cwd/s/x"} {
		cmd := exec.Command("cat", p)
		cmd.Dir = dir + "/p"
		out, err := cmd.CombinedOutput()
		if err != nil || string(out) != "secret\n" {
			t.Errorf("cat %s in %s: %v %q", p, cmd.Dir, err, out)
		}
		if r := ResolvePath(p, cmd.Dir, "/nonexistent"); r.Real != dir+"/p/s/x" || r.Tail != "s/x" || r.Unknown == "" {
			t.Errorf("%s: %+v", p, r)
		}
	}
}
