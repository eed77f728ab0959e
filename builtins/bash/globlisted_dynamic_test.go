package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGlobOperandsListedNow (issue 26): a glob operand that may match a
// name starting with "-" (du -sh *, grep -insr x *, ls -d */, wc -l *.txt)
// is judged as the glob, as ./* is, when no name in the working directory
// starts with "-" at decision time; a directory holding one, a shopt, or
// another part of the command that may create names keeps it cautious.
// The read-only cases run under strace in a directory of hostile but
// option-free names (blanks, quotes, a newline, a hidden link to a secret)
// and must not open the secret, write or run anything; the bites run in a
// directory whose planted names turn into options and must show it.
func TestGlobOperandsListedNow(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-globlisted-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	proj := filepath.Join(root, "home/proj")
	secret := filepath.Join(root, "home/planted-secret")
	appendTo(t, secret, "PLANTEDSECRET\n")
	clean := filepath.Join(proj, "clean")
	for _, n := range []string{"notes.txt", "a b.txt", "it's.txt", "q\"uote.txt", "new\nline.txt", "x-rf.txt", "sub/f.txt", "_u.txt"} {
		appendTo(t, filepath.Join(clean, n), "TODO pattern\n")
	}
	// Hidden, so * does not match it (a link the glob matches is an
	// operand, judged as ./* is): an option's value could name it.
	os.Symlink(secret, filepath.Join(clean, ".k"))
	hostile := filepath.Join(proj, "hostile")
	for _, n := range []string{"--files0-from=.k"} { // alone: with another operand wc and du refuse
		appendTo(t, filepath.Join(hostile, n), "TODO pattern\n")
	}
	os.Symlink(secret, filepath.Join(hostile, ".k"))
	// Names that mean more than a file to some program without a "-":
	// binutils' @FILE, sort's obsolete +POS, make's and awk's NAME=VALUE,
	// find's operators.
	for _, n := range []string{"at/@.k", "plus/+1", "eq/SHELL=x", "paren/("} {
		appendTo(t, filepath.Join(proj, n), "x\n")
	}
	// A name that is awk code when it stands where awk's program does.
	appendTo(t, filepath.Join(proj, "awkcode", `BEGIN{system("touch pwned")}`), "x\n")
	os.MkdirAll(filepath.Join(proj, "dashdir", "-R"), 0o755)
	appendTo(t, filepath.Join(proj, "dashdir", "notes.txt"), "x\n")
	if d.root {
		if out, err := exec.Command("chown", "-R", "-h", "65534:65534", root).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	opts := realWorldOpts(root)
	cases := []struct {
		cmd       string
		ro, bites bool
	}{
		{cmd: "cd clean && du -sh *", ro: true},
		{cmd: `cd clean && grep -insr "pattern" *`, ro: true},
		{cmd: "cd clean && ls -d */", ro: true},
		{cmd: "cd clean && wc -l *.txt", ro: true},
		{cmd: "cd clean && wc -c ?*", ro: true},
		{cmd: "cd clean && du -s [!n]*", ro: true},
		{cmd: "cd clean && grep -l TODO * | sort", ro: true},
		// A name starting with "-" now: the glob may be an option.
		{cmd: "cd hostile && du -sh *", bites: true},
		{cmd: "cd hostile && wc -l *", bites: true},
		{cmd: "cd dashdir && ls -d */"},
		// Where the program reads the first name as code, a filter or a
		// pattern, the names are not files (judged as before).
		{cmd: "cd awkcode && awk *", bites: true},
		{cmd: "cd clean && jq *"},
		{cmd: "cd clean && grep *"},
		{cmd: "cd at && strings *"},
		{cmd: "cd plus && sort *"},
		{cmd: "cd eq && wc -l *"},
		{cmd: "cd paren && find . *"},
		// The same command line may create one first, or at once.
		{cmd: "cd clean && touch ./--files0-from=.k && wc -l *"},
		{cmd: "cd clean && wc -l * & touch ./--files0-from=.k"},
		{cmd: "cd clean && echo x > ./-n; du -sh *"},
		{cmd: "cd clean && du -sh * | tee ./-x"},
		{cmd: "cd clean && mkdir -- -R; ls -d */"},
		{cmd: "cd clean && ln -s .k ./--files0-from=.k; wc -l *"},
		// A shopt changes what the glob matches; a directory not known.
		{cmd: "cd clean && shopt -s dotglob; du -sh *"},
		{cmd: "cd $x && du -sh *"},
		{cmd: "cd clean && eval x; du -sh *"},
	}
	var runs []hostileCase
	var of []int
	quick := tracedSlowOnly() // TestHostileRunAllKeepsCommandsApart proves the runner quick
	for i, c := range cases {
		a := analyze(c.cmd, opts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
		// The leaf of the glob's program itself is not read-only either
		// (rules judge leaves): its names may come from the other part.
		for _, lf := range a.Leaves {
			if lf.ReadOnly && !c.ro && lf.Program == globProgram(c.cmd) {
				t.Errorf("%q: the %s leaf is judged read-only", c.cmd, lf.Program)
			}
		}
		// Every case is analysed; .ci/run (-tags slow) traces every one
		// (tracedSlowOnly, docs/development.md).
		if (a.ReadOnly || c.bites) && quick.take(biteKind(c.bites)) {
			runs = append(runs, hostileCase{c.cmd, a})
			of = append(of, i)
		}
	}
	for k, found := range hostileRunAll(t, d, root, runs, filepath.Join(root, "no-script"), secret) {
		c, a := cases[of[k]], runs[k].a
		var bad []string
		bad = append(bad, found...)
		switch {
		case a.ReadOnly && len(bad) > 0:
			t.Errorf("judged read-only, but %q: %s", c.cmd, strings.Join(bad, "\n\t"))
		case c.bites && len(bad) == 0:
			t.Errorf("%q: the planted names do not bite (no effect): the case proves nothing", c.cmd)
		}
	}
	// A cached analysis is dropped when a name appears in the directory.
	a := Analyze("cd clean && du -sh *", opts)
	if !a.ReadOnly {
		t.Fatalf("cd clean && du -sh *: not read-only: %s", strings.Join(a.NotReadOnly, "; "))
	}
	appendTo(t, filepath.Join(clean, "--files0-from=.k"), "")
	if a := Analyze("cd clean && du -sh *", opts); a.ReadOnly {
		t.Errorf("cd clean && du -sh *: still read-only after a name starting with - was created (stale cache)")
	}
}

// globProgram is the program of the part of cmd that holds a glob "*".
func globProgram(cmd string) string {
	for _, part := range strings.FieldsFunc(cmd, func(r rune) bool { return r == ';' || r == '&' || r == '|' }) {
		if f := strings.Fields(part); len(f) > 1 && strings.Contains(part, "*") {
			return f[0]
		}
	}
	return ""
}
