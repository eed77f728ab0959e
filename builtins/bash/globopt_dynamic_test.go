package bash

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGlobOptionsAgainstHostileNames: a glob that starts with a
// metacharacter (cat *) matches any name in the project, an option
// included, so the program is read-only only when no option of it reads
// a file it is not given as an operand, writes, runs anything or changes
// what else is read (docs/shell.md, "Read-only"). Each case runs in its own
// directory of the project, which holds names that turn into options of
// that program (an unknown option would make it stop before doing
// anything) and .k, a link to a secret outside the project. Commands judged
// read-only are run under strace and must not open the secret, print it,
// write or run anything; those that must not be read-only and bite are run
// too and must show the effect, so that the planted names are known to
// work.
func TestGlobOptionsAgainstHostileNames(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-globopt-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	proj := filepath.Join(root, "home/proj")
	secret := filepath.Join(root, "home/planted-secret")
	appendTo(t, secret, "PLANTEDSECRET\n")
	// every holds the names of every case, for the programs that must stay
	// read-only whatever the names. .k, the link to the secret, is hidden:
	// * does not match it (a link the glob matches is read as an operand,
	// which is another matter), an option's value names it.
	every := []string{
		"--files0-from=.k", "--file=.k", "-f.k", "-c", "@.k", "--exclude-from=.k", "-X.k",
		"--relative-to=.k", "--output=pwned.txt", "-o", "-rf", "-R", "-aRL", "--help", "notes.txt",
	}
	cases := []struct {
		cmd   string
		names []string // nil: every
		ro    bool
		bites bool
	}{
		{cmd: `cat *`, ro: true},
		{cmd: `cat -n *.txt`, ro: true},
		{cmd: `head *`, ro: true},
		{cmd: `head -n 3 *`, ro: true},
		{cmd: `tail -n 1 *`, ro: true},
		{cmd: `tac *`, ro: true},
		{cmd: `nl *`, ro: true},
		{cmd: `stat *`, ro: true},
		{cmd: `cut -c 1-3 *`, ro: true},
		{cmd: `od -c *`, ro: true},
		{cmd: `readlink *`, ro: true},
		{cmd: `rev *`, ro: true},
		{cmd: `wc -l ./*`, ro: true}, // ./--files0-from=.k is a file
		{cmd: `grep -n TODO ./*`, ro: true},
		{cmd: `grep -e TODO -- *`, ro: true},
		{cmd: `md5sum -- *`, ro: true},
		{cmd: `wc -l -- *`, ro: true},
		{cmd: `du -sh -- *`, ro: true},
		// A bracket that cannot match "-" cannot be an option.
		{cmd: `wc -l [n]otes.txt`, ro: true},
		{cmd: `grep -c TODO [[:alnum:]]*`, ro: true},
		{cmd: `grep -l TODO [[:lower:]]*`, ro: true},

		// wc --files0-from=F reads the names F lists and prints each it
		// cannot open: the secret. (With another operand wc refuses.)
		{cmd: `wc -l *`, names: []string{"--files0-from=.k"}, bites: true},
		{cmd: `wc *.txt`, names: []string{"--files0-from=.k.txt"}, bites: true},
		{cmd: `wc -c ?*`, names: []string{"--files0=.k"}, bites: true}, // an abbreviation
		{cmd: `wc -l [-]*`, names: []string{"--files0-from=.k"}, bites: true},
		{cmd: `wc -l [!n]*`, names: []string{"--files0-from=.k"}, bites: true},
		{cmd: `wc -l [[:punct:]]*`, names: []string{"--files0-from=.k"}, bites: true},
		{cmd: `wc -l [+--]*`, names: []string{"--files0-from=.k"}, bites: true},
		{cmd: `du -sh *`, names: []string{"--files0-from=.k"}, bites: true},
		{cmd: `du -s ?*`, names: []string{"-X.k", "notes.txt"}, bites: true}, // --exclude-from, glued
		{cmd: `grep TODO *`, names: []string{"--file=.k", "notes.txt"}, bites: true},
		{cmd: `grep -n TODO *`, names: []string{"-f.k", "notes.txt"}, bites: true},
		{cmd: `grep -l TODO *`, names: []string{"--exclude-from=.k", "notes.txt"}, bites: true},
		// md5sum -c checks the files a list names: sums names .k.
		{cmd: `md5sum *`, names: []string{"-c", "sums"}, bites: true},
		{cmd: `sha256sum *`, names: []string{"--check", "sums"}, bites: true},
		// strings, like binutils, reads more arguments from @FILE.
		{cmd: `strings *`, names: []string{"@.k", "notes.txt"}, bites: true},
		{cmd: `sort *`, names: []string{"--output=pwned.txt", "notes.txt"}, bites: true},
		{cmd: `file *`, names: []string{"--files-from=.k", "notes.txt"}, bites: true},
		{cmd: `realpath *`, names: []string{"--relative-to=.k", "notes.txt"}},
		// ls -R and -L read what the analysis would not report (a tree).
		{cmd: `ls *`, names: []string{"-aRL", "notes.txt"}},
		{cmd: `ls -d */`, names: []string{"-RI", "notes.txt"}},
		// Run-time words are judged the same way.
		{cmd: `f=--files0-from=.k; wc -l $f`, names: []string{"notes.txt"}, bites: true},
		{cmd: `grep TODO $(ls)`, names: []string{"--file=.k", "notes.txt"}, bites: true},
	}
	for i, c := range cases {
		p := filepath.Join(proj, fmt.Sprint("c", i))
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		names := c.names
		if names == nil {
			names = every
		}
		for _, n := range names {
			switch {
			case n == "sums":
				// A list md5sum -c and sha256sum --check read: it names .k.
				appendTo(t, filepath.Join(p, "sums"), strings.Repeat("0", 32)+"  .k\n"+strings.Repeat("0", 64)+"  .k\n")
			case strings.HasPrefix(n, "-R"):
				// A directory (ls -d */), with a link to the secret's.
				if err := os.Mkdir(filepath.Join(p, n), 0o755); err != nil {
					t.Fatal(err)
				}
			default:
				appendTo(t, filepath.Join(p, n), "TODO hostile\n")
			}
		}
		for _, k := range []string{".k", ".k.txt"} {
			if err := os.Symlink(secret, filepath.Join(p, k)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if d.root {
		if out, err := exec.Command("chown", "-R", "-h", "65534:65534", root).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	opts := realWorldOpts(root)
	var runs []hostileCase
	var of []int              // the case of each run
	quick := tracedSlowOnly() // TestHostileRunAllKeepsCommandsApart proves the runner quick
	for i, c := range cases {
		cmd := fmt.Sprintf("cd c%d && %s", i, c.cmd)
		a := analyze(cmd, opts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)", cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
		if !a.ReadOnly && !c.bites {
			continue
		}
		// Every case is analysed; .ci/run (-tags slow) traces every one
		// (tracedSlowOnly, docs/development.md), dynamicBatch to a
		// strace run (hostileRunAll).
		if !quick.take(biteKind(c.bites)) {
			continue
		}
		runs = append(runs, hostileCase{cmd, a})
		of = append(of, i)
	}
	for k, found := range hostileRunAll(t, d, root, runs, filepath.Join(root, "no-script"), secret) {
		c, cmd, a := cases[of[k]], runs[k].cmd, runs[k].a
		var bad []string
		for _, e := range found {
			// The program's own argv holds the planted names, which the
			// vocabulary calls unknown options (cat --file=.k): what
			// counts is what the program then does, in the rest of the
			// trace and its output.
			if a.ReadOnly && strings.HasPrefix(e, "executes "+strings.Fields(c.cmd)[0]+" ") {
				continue
			}
			bad = append(bad, e)
		}
		switch {
		case a.ReadOnly && len(bad) > 0:
			t.Errorf("judged read-only, but %q: %s", cmd, strings.Join(bad, "\n\t"))
		case c.bites && len(bad) == 0:
			t.Errorf("%q: the planted names do not bite (no effect): the case proves nothing", cmd)
		}
	}
}

// TestGlobMayBeOption: which glob words may match a name starting with
// "-" (and so stand for an option).
func TestGlobMayBeOption(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"*": true, "*.txt": true, "?": true, "?*": true,
		"[-]*": true, "[!a]*": true, "[^a]*": true, "[+--]x": true, "[a-z]*": true, "[[:punct:]]*": true,
		"[[:graph:]]": true, "[[:print:]]": true, "[[=-=]]": true, "[[.-.]]": true, "[[:alpha:]-]": true,
		"[\\-]": true, "[]-]x": true, "[[:bogus:]]": true, "[[:alpha:]": true, "[s]tr[-]": true,
		"[s]tring": false, "[[:alnum:]]*": false, "[[:digit:][:lower:]]*": false, "[]x]": false,
		"[abc]*.go": false, "[x": false, "[[:alpha:": false, "./*": false, "src/*.go": false, "a*": false, "": false,
	} {
		if got := globMayBeOption(s); got != want {
			t.Errorf("globMayBeOption(%q) = %v, want %v", s, got, want)
		}
	}
}
