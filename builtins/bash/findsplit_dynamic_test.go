package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFindSplitPiecesAgainstHostileNames (issue 26): find . | xargs CMD
// with a printed name holding blanks (findpipe.go): xargs splits it into
// pieces, the first one a path under ".", each other one a word relative
// to the working directory. Read-only only when every such word is a bare
// name that cannot climb and none names a link, FIFO, socket or device (or
// a path through one). Each read-only case runs under strace and must not
// write, run anything or open the planted secret; each case marked bites
// runs too and must show the effect its hostile name has. Every case is
// judged in the quick suite and traced with -tags slow (issue 25;
// TestHostileRunAllKeepsCommandsApart proves the runner quick).
func TestFindSplitPiecesAgainstHostileNames(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-findsplit-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	proj := filepath.Join(root, "home/proj")
	secret := filepath.Join(root, "home/planted-secret")
	appendTo(t, secret, "PLANTEDSECRET\n")
	for _, n := range []string{
		// ok: blanks that split into plain words.
		"ok/a b.txt", "ok/c.txt", "ok/sub dir/d e.txt", "ok/b.txt",
		// opt: a word after the blank is an option of sort's.
		"opt/q --output=pwned.txt", "opt/q",
		// climb: "./x ../planted-secret" gives ../planted-secret.
		"climb/x ../planted-secret",
		// at: @FILE, read by binutils as more options.
		"at/x @opts", "at/opts",
		// colon, equals: tar's HOST:FILE, awk's NAME=VALUE.
		"colon/x h:f", "equals/x v=1",
		// tab: a blank the rule does not take.
		"tab/x\ty",
		// fifo: a regular file whose word after the blank names a FIFO.
		"fifo/a p",
		// first: the piece before the blank names a FIFO.
		"first/p q",
		// lnk: the word after the blank names a link to the secret.
		"lnk/a s",
		// caselnk: the word names the link in another case.
		"caselnk/a S",
	} {
		appendTo(t, filepath.Join(proj, n), "TODO\n")
	}
	for _, f := range []string{"fifo/p", "first/p"} {
		if err := syscall.Mkfifo(filepath.Join(proj, f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []string{"lnk/s", "caselnk/s"} {
		if err := os.Symlink("../../planted-secret", filepath.Join(proj, l)); err != nil {
			t.Fatal(err)
		}
	}
	if d.root {
		if out, err := exec.Command("chown", "-R", "-h", "65534:65534", root).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	type run struct {
		cmd       string
		ro, bites bool
	}
	cases := []run{
		{cmd: "cd ok && find . -type f | xargs sort", ro: true},
		{cmd: "cd ok && find . | xargs grep TODO -ls", ro: true},
		{cmd: "cd ok && find . -type f -mmin -60 | xargs -r ls -l", ro: true},
		{cmd: "cd ok && find -name '*.txt' | xargs wc -l", ro: true},
		{cmd: "cd ok && find ./ -type f | xargs -n 1 cat", ro: true},
		{cmd: "cd ok && find . -type f | xargs -I{} cat {}", ro: true},
		{cmd: "cd opt && find . -type f | xargs sort", bites: true},
		{cmd: "find . -path './climb/*' -type f | xargs cat", bites: true},
		{cmd: "cd at && find . -type f | xargs strings"},
		{cmd: "cd colon && find . -type f | xargs cat"},
		{cmd: "cd equals && find . -type f | xargs cat"},
		{cmd: "cd tab && find . -type f | xargs cat"},
		{cmd: "cd fifo && find . -type f | xargs cat"},
		{cmd: "cd first && find . -type f | xargs cat"},
		{cmd: "cd lnk && find . -type f | xargs cat", bites: true},
		{cmd: "cd caselnk && find . -type f | xargs cat"}, // S is s where case is ignored
		// Only find . (the pieces are relative to the working directory),
		// with the whole tree walked.
		{cmd: "find ok -type f | xargs sort"},
		{cmd: "cd ok && find . -maxdepth 1 -type f | xargs sort"},
		// xargs options that read elsewhere or split otherwise.
		{cmd: "cd ok && find . -type f | xargs -r -a c.txt sort"},
		{cmd: "cd ok && find . -type f | xargs -E x sort"},
		// A command that writes a name first.
		{cmd: "cd ok && touch 'z --output=pwned.txt' && find . -type f | xargs sort"},
		{cmd: "cd ok && find . -type f | xargs sort & mkfifo ok/b"},
	}
	opts := realWorldOpts(root)
	var runs []hostileCase
	var bites []bool
	for _, c := range cases {
		a := analyze(c.cmd, opts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
		if !a.ReadOnly {
			t.Logf("%q: %s", c.cmd, strings.Join(analyzeOnce(c.cmd, opts, false).NotReadOnly, "; "))
		}
		// Every row is judged; the traced proof runs with -tags slow only
		// (tracedSlowOnly: TestHostileRunAllKeepsCommandsApart proves the runner quick).
		if !a.ReadOnly && !c.bites || !slowTests {
			continue
		}
		runs = append(runs, hostileCase{c.cmd, a})
		bites = append(bites, c.bites)
	}
	for i, bad := range hostileRunAll(t, d, root, runs, filepath.Join(root, "no-script"), secret) {
		c := runs[i]
		switch {
		case c.a.ReadOnly && len(bad) > 0:
			t.Errorf("judged read-only, but %q: %s", c.cmd, strings.Join(bad, "\n\t"))
		case bites[i] && len(bad) == 0:
			t.Errorf("%q: the hostile names do not bite (no effect): the case proves nothing", c.cmd)
		}
	}
}
