package bash

import (
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
		// Still read-only: the process substitution's pipe, stdin read from a file.
		{`echo foo | tee >(wc -c)`, true},
		{`wc -l < notes.txt`, true},
		{`sort 0< notes.txt`, true},
		{`cat notes.txt 2>&1`, true},
	} {
		a := analyze(c.cmd, conformanceOpts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
	}
}
