package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestXargsThroughLineFilters (issue 26): find ROOT -print | FILTER... |
// xargs CMD and ls | xargs CMD follow the paths as find -print | xargs
// does: the filters (grep selecting lines, sort, head and tail by lines,
// uniq without counts) pass whole lines, and every name is checked at
// decision time. A transforming filter, an ls that prints more than names,
// a name xargs splits or one that may be an option keeps the leaf
// cautious. The read-only cases run under strace and must not write, run
// anything or open the planted secret.
func TestXargsThroughLineFilters(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-xargsfilter-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	proj := filepath.Join(root, "home/proj")
	secret := filepath.Join(root, "home/planted-secret")
	appendTo(t, secret, "PLANTEDSECRET\n")
	for _, n := range []string{"clean/notes.sql", "clean/query.sql", "clean/b.txt", "clean/sub/c.sql", "clean/_x.txt"} {
		appendTo(t, filepath.Join(proj, n), "dba_2pc_pending\nTODO\n")
	}
	for _, n := range []string{"blank/a -rf.sql", "blank/ok.sql", "dash/-n", "dash/ok.sql", "at/@k", "quote/it's.sql",
		"newline/a\nb.sql", "eq/a=b.sql"} {
		appendTo(t, filepath.Join(proj, n), "dba_2pc_pending\n")
	}
	os.MkdirAll(filepath.Join(proj, "fifo"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(proj, "fifo", "pipe.sql"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d.root {
		if out, err := exec.Command("chown", "-R", "-h", "65534:65534", root).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	opts := realWorldOpts(root)
	cases := []struct {
		cmd string
		ro  bool
	}{
		{cmd: "cd clean && find . -print|grep sql|xargs grep -i dba_2pc_pending", ro: true},
		{cmd: "cd clean && find . -name '*.sql' | grep -v sub | sort -r | head -n 5 | xargs wc -l", ro: true},
		{cmd: "cd clean && find . -type f | sort | uniq | tail -n +2 | xargs grep -l TODO", ro: true},
		{cmd: "cd clean && find . -type f | grep -e sql -e txt | xargs -I{} wc -c {}", ro: true},
		{cmd: "cd clean && ls | xargs wc -l", ro: true},
		{cmd: "cd clean && ls -t | head -2 | xargs cat", ro: true},
		{cmd: "cd clean && ls -1A | xargs -n1 du -s", ro: true},
		// Filters that transform lines, or read more than stdin.
		{cmd: "cd clean && find . | sed 's/^/-/' | xargs cat"},
		{cmd: "cd clean && find . | awk '{print \"-\"$0}' | xargs cat"},
		{cmd: "cd clean && find . | cut -c3- | xargs cat"},
		{cmd: "cd clean && find . | tr a - | xargs cat"},
		{cmd: "cd clean && find . | grep -o 'sql.*' | xargs cat"},
		{cmd: "cd clean && find . | grep -n sql | xargs cat"},
		{cmd: "cd clean && find . | grep -A1 sql | xargs cat"},
		{cmd: "cd clean && find . | grep sql ../../planted-secret | xargs cat"},
		{cmd: "cd clean && find . | grep -r sql | xargs cat"},
		{cmd: "cd clean && find . | head -c 3 | xargs cat"},
		{cmd: "cd clean && find . | uniq -c | xargs cat"},
		{cmd: "cd clean && find . | sort -o x | xargs cat"},
		{cmd: "cd clean && find . | grep \"$p\" | xargs cat"},
		{cmd: "cd clean && find . -print0 | grep -z sql | xargs -0 cat"},
		{cmd: "cd clean && grep() { echo ../../planted-secret; }; find . | grep sql | xargs cat"},
		{cmd: "cd clean && ls -a | xargs du -s"},
		{cmd: "cd clean && ls -l | xargs cat"},
		{cmd: "cd clean && ls -F | xargs cat"},
		{cmd: "cd clean && ls .. | xargs cat"},
		// Names xargs splits, unquotes, or that may be an option.
		{cmd: "cd blank && find . | grep sql | xargs cat"},
		{cmd: "cd blank && ls | xargs cat"},
		{cmd: "cd dash && ls | xargs cat"},
		{cmd: "cd at && ls | xargs strings"},
		{cmd: "cd quote && ls | xargs cat"},
		{cmd: "cd newline && find . | grep sql | xargs cat"},
		{cmd: "cd eq && ls | xargs cat"},
		{cmd: "cd fifo && ls | xargs cat"},
		// Another part of the command may create a name first, or at once.
		{cmd: "cd clean && touch ./-n && ls | xargs cat"},
		{cmd: "cd clean && find . | grep sql | xargs cat & touch 'a -rf.sql'"},
	}
	var runs []hostileCase
	var of []int
	quick := tracedSlowOnly() // TestHostileRunAllKeepsCommandsApart proves the runner quick
	for i, c := range cases {
		a := analyze(c.cmd, opts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
		for _, lf := range a.Leaves {
			if !c.ro && lf.ReadOnly && contains(lf.Wrappers, "xargs") {
				t.Errorf("%q: the %s leaf under xargs is judged read-only", c.cmd, lf.Program)
			}
		}
		// Every case is analysed; .ci/run (-tags slow) traces every one
		// (tracedSlowOnly, docs/development.md).
		if a.ReadOnly && quick.take("clean") {
			runs = append(runs, hostileCase{c.cmd, a})
			of = append(of, i)
		}
	}
	for k, found := range hostileRunAll(t, d, root, runs, filepath.Join(root, "no-script"), secret) {
		if len(found) > 0 {
			t.Errorf("judged read-only, but %q: %s", cases[of[k]].cmd, strings.Join(found, "\n\t"))
		}
	}
	// The supplied paths are a tree read of the working directory, so a
	// link there to a credential reaches the credential rules.
	a := analyze("cd clean && ls | xargs cat", opts)
	found := false
	for _, tr := range a.RecursiveReads {
		if tr.Path == filepath.Join(proj, "clean") && tr.Hidden && !tr.SkipsLinks {
			found = true
		}
	}
	if !found {
		t.Errorf("ls | xargs cat: no tree read of the working directory that follows links: %+v", a.RecursiveReads)
	}
}
