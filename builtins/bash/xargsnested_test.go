package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestXargsRunsAppendedCommand (issue 26): an xargs with no command of its
// own, run by an outer xargs that appends words (directly or through a
// transparent wrapper), runs the first appended word as its command, not
// echo: find . -name '*.sh' | xargs xargs ran ./run.sh and was judged
// read-only. Judged on a tree holding an executable script, and run under
// strace with -tags slow (judged quick; TestHostileRunAllKeepsCommandsApart
// proves the runner quick).
func TestXargsRunsAppendedCommand(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-xargsxargs-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	proj := filepath.Join(root, "home/proj")
	secret := filepath.Join(root, "home/planted-secret")
	appendTo(t, secret, "PLANTEDSECRET\n")
	appendTo(t, filepath.Join(proj, "run.sh"), "#!/bin/sh\necho pwned > pwned.txt\n")
	if err := os.Chmod(filepath.Join(proj, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	appendTo(t, filepath.Join(proj, "b.txt"), "TODO\n")
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
		{cmd: "find . -name '*.sh' | xargs xargs", bites: true},
		{cmd: "find . -name '*.sh' -print0 | xargs -0 xargs -0", bites: true},
		{cmd: "find . -name '*.sh' | xargs -n1 xargs -n1", bites: true},
		{cmd: "find . -name '*.sh' | xargs -r xargs -r"}, // the inner -r: no input, nothing runs
		{cmd: "find . -name '*.sh' | xargs nice xargs", bites: true},
		{cmd: "find . -name '*.sh' | xargs timeout 5 xargs", bites: true},
		{cmd: "find . -name '*.sh' | xargs command xargs"}, // no program command here
		{cmd: "find . -name '*.sh' | xargs stdbuf -oL xargs", bites: true},
		{cmd: "ls | xargs xargs -0"}, // ls prints run.sh: looked up in PATH
		// With a command of its own, the appended words are its operands.
		{cmd: "find . -name '*.sh' | xargs xargs echo", ro: true},
		{cmd: "echo | xargs", ro: true},
	}
	opts := realWorldOpts(root)
	var runs []hostileCase
	var bites []bool
	for _, c := range cases {
		a := analyze(c.cmd, opts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
		// Every row is judged; the traced proof runs with -tags slow only
		// (tracedSlowOnly: TestHostileRunAllKeepsCommandsApart proves the runner quick).
		if !a.ReadOnly && !c.bites || !slowTests {
			continue
		}
		runs = append(runs, hostileCase{c.cmd, a})
		bites = append(bites, c.bites)
	}
	for i, bad := range hostileRunAll(t, d, root, runs, filepath.Join(proj, "run.sh"), secret) {
		c := runs[i]
		switch {
		case c.a.ReadOnly && len(bad) > 0:
			t.Errorf("judged read-only, but %q: %s", c.cmd, strings.Join(bad, "\n\t"))
		case bites[i] && len(bad) == 0:
			t.Errorf("%q: the script does not run (no effect): the case proves nothing", c.cmd)
		}
	}
}
