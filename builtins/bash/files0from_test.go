package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFiles0FromNotReadOnly (issue 26): sort, wc and du --files0-from=F
// and find -files0-from F read the files (find: walk the directories) a
// list names, and the list is any file or stdin: printf
// '/home/u/.ssh/id_rsa\0' | sort --files0-from=- printed the key and was
// read-only, as was find -files0-from list naming ~/.ssh.
func TestFiles0FromNotReadOnly(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd string
		ro  bool
	}{
		{`sort --files0-from=list.txt`, false},
		{`printf '/home/u/.ssh/id_rsa\0' | sort --files0-from=-`, false},
		{`sort -u --files0-from list.txt`, false},
		{`wc -c --files0-from=list.txt`, false},
		{`wc --files0-from=-`, false},
		{`du -a --files0-from=list.txt`, false},
		{`find . -name '*.c' -print0 | du -c --files0-from=-`, false},
		{`file -f list.txt`, false},
		{`file --files-from=- < list.txt`, false},
		{`file -bf list.txt`, false},
		{`find -files0-from list.txt`, false},
		{`printf '/home/u/.ssh\0' | find -files0-from - -name id_rsa`, false},
		{`find -files0-from list.txt -print0 | xargs -0 cat`, false},
		// Still read-only without it.
		{`sort list.txt`, true},
		{`wc -l list.txt`, true},
		{`du -sh .`, true},
		{`file list.txt`, true},
		{`find . -name '*.c'`, true},
	} {
		a := analyze(c.cmd, conformanceOpts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
	}
}

// TestFiles0FromReadsListedFile: the real sort prints the content of a
// file a list names (why --files0-from is not read-only).
func TestFiles0FromReadsListedFile(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sort"); err != nil {
		t.Skip("no sort")
	}
	dir := t.TempDir()
	secret := filepath.Join(dir, "planted-secret")
	if err := os.WriteFile(secret, []byte("PLANTEDSECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "list.txt"), []byte(secret+"\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sort", "--files0-from=list.txt")
	cmd.Dir = dir
	out, _ := cmd.Output()
	if !strings.Contains(string(out), "PLANTEDSECRET") {
		t.Fatalf("sort --files0-from=list.txt printed %q: the case does not bite", out)
	}
}
