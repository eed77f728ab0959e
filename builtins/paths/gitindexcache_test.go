package paths

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The facts of a git index are read once per content: an index rewritten
// in place, at its old size and with its modification time set back, is
// read again (its change time moved), so a gitlink planted that way is
// seen by the next decision.
func TestGitIndexFactsFollowTheFile(t *testing.T) {
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
	mkfile(t, main+"/sub/f", "f\n")
	git(main+"/sub", "init", "-q")
	git(main+"/sub", "add", "f")
	git(main+"/sub", "commit", "-qm", "sub")
	git(main, "add", "a", "sub")
	idx := filepath.Join(main, ".git/index")
	withLink, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	// The same index with the gitlink's mode made a file's (same size).
	var mode [4]byte
	binary.BigEndian.PutUint32(mode[:], 0o160000)
	i := bytes.Index(withLink, mode[:])
	if i < 0 {
		t.Fatal("no gitlink entry in the index git wrote")
	}
	withoutLink := slices.Clone(withLink)
	binary.BigEndian.PutUint32(withoutLink[i:], 0o100644)

	when := time.Now().Add(-time.Hour)
	write := func(data []byte) {
		t.Helper()
		if err := os.WriteFile(idx, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(idx, when, when); err != nil {
			t.Fatal(err)
		}
	}
	write(withoutLink)
	if f, err := readGitIndexFacts(idx); err != nil || !f.ok || len(f.links) != 0 {
		t.Fatalf("index without a gitlink: %+v, %v", f, err)
	}
	if f, _ := readGitIndexFacts(idx); !f.ok || len(f.links) != 0 {
		t.Fatalf("the same index read again: %+v", f)
	}
	write(withLink)
	if f, err := readGitIndexFacts(idx); err != nil || !slices.Equal(f.links, []string{"sub"}) {
		t.Fatalf("index rewritten in place with a gitlink (same size, same mtime): %+v, %v; want the gitlink sub", f, err)
	}
}
