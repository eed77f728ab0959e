package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFdReopenedForWriting: Linux opens /dev/fd/N, /dev/stdin and
// /proc/self/fd/N anew with the opener's flags, so a program that writes
// to one writes the file a redirection opened there to be read
// (`echo x | tee /dev/fd/63 63<notes.txt` rewrites notes.txt; `tee
// /dev/stdin < f` truncates f). A file read on any descriptor but
// standard input is not read-only; the process substitution's pipe and
// the standard streams stay what they are.
func TestFdReopenedForWriting(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd string
		ro  bool
	}{
		{`echo evil | tee /dev/fd/63 63<~/.bashrc`, false},
		{`echo evil | tee /dev/fd/63 63<notes.txt`, false},
		{`{ echo evil | tee /dev/fd/63; } 63<notes.txt`, false},
		{`echo evil | tee /dev/fd/3 3<notes.txt`, false},
		{`echo evil | tee /dev/fd/1 1<notes.txt`, false},
		{`echo evil | tee /dev/stderr 2<notes.txt`, false},
		{`echo evil | tee /dev/fd/9 9<&0 < notes.txt`, false},
		{`tee /dev/stdin < notes.txt`, false},
		{`tee /dev/fd/0 < notes.txt`, false},
		{`tee /proc/self/fd/0 < notes.txt`, false},
		// A copy of standard input, read from a file, on another
		// descriptor: /dev/stdout, /dev/stderr, /dev/fd/N reopen it.
		{`tee /dev/stdout < notes.txt >&0`, false},
		{`tee /dev/stdout < ~/.bashrc 1>&0`, false},
		{`tee /dev/stdout < notes.txt 1<&0`, false},
		{`tee /dev/stderr < notes.txt 2>&0`, false},
		{`tee /dev/fd/3 < notes.txt 3>&0`, false},
		{`tee /dev/stdout < notes.txt 1>&00`, false},
		{`{ tee /dev/stdout; } < notes.txt >&0`, false},
		{`{ tee /dev/stdout >&0; } < notes.txt`, false},
		{`while read -r l; do tee /dev/stdout >&0; done < notes.txt`, false},
		// Still read-only: the process substitution's pipe, stdin read from a file.
		{`echo foo | tee >(wc -c)`, true},
		{`wc -l < notes.txt`, true},
		{`sort 0< notes.txt`, true},
		{`cat notes.txt 2>&1`, true},
		{`cat < notes.txt 2>&1 | head`, true},
		{`echo x >&2`, true},
		{`sort 0<&0 < notes.txt`, true},
	} {
		a := analyze(c.cmd, conformanceOpts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
	}
}

// TestFdCopyOfStdinReopened: the real bash and tee: tee /dev/stdout with
// standard input read from a file and copied to standard output truncates
// the file (why TestFdReopenedForWriting's copies of descriptor 0 are not
// read-only).
func TestFdCopyOfStdinReopened(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tee"); err != nil {
		t.Skip("no tee")
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(f, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", "tee /dev/stdout < notes.txt >&0")
	cmd.Dir = dir
	cmd.Run() // the status does not matter, the file does
	if b, err := os.ReadFile(f); err != nil || len(b) != 0 {
		t.Fatalf("tee /dev/stdout < notes.txt >&0 left %q (%v): the case does not bite", b, err)
	}
}
