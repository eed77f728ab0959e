package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindGlobsAndXargsTextAgainstHostileNames (issue 26): globs find
// cannot take as more than one word (a pattern's value holding a character
// no primary holds, a starting point ending in "/") and xargs fed any text
// into a program every option of which is harmless are read-only. The
// fixture's project holds hostileNames, names find would take as primaries
// (-delete, +delete sorts before it), directories named like find's
// options and operators (tops/), and curly-quoted names. Every case judged
// read-only runs under strace and must not write, run another program,
// open or print the planted secret; a case marked refused is one where the
// shell hands find several names, which find must refuse before it looks
// at a file (its stderr is checked on a plain run): the traced find argv
// the analyser would not judge read-only on its own is no effect then.
// Likewise a case marked unknownOpts hands the program options it does not
// have (dirname --files0-from=list.txt), which it refuses; the traced argv
// the vocabulary does not know is no effect then either. Bites run too and
// must show an effect.
func TestFindGlobsAndXargsTextAgainstHostileNames(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-globtext-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	copyFixture(t, d, root)
	proj := filepath.Join(root, "home/proj")
	evil := filepath.Join(proj, "evil.sh")
	secret := filepath.Join(root, "home/planted-secret")
	appendTo(t, evil, "#!/bin/sh\ncat\n")
	os.Chmod(evil, 0o755)
	appendTo(t, secret, "PLANTEDSECRET\n")
	for _, n := range append(hostileNames, "-delete", "+delete", "“a.pdf”", "“b.pdf”", "‘one.x’", "q.bar") {
		appendTo(t, filepath.Join(proj, n), "TODO hostile\n")
	}
	appendTo(t, filepath.Join(proj, "list.txt"), "notes.txt\x00")
	for _, n := range []string{"-delete", "-fprint", "-L", "-Dtree", "-O3", "(", "!", ",", "sub"} {
		appendTo(t, filepath.Join(proj, "tops", n, "f.txt"), "TODO tops\n")
	}
	if err := os.Symlink(secret, filepath.Join(proj, "tops", "sub", "secret-link")); err != nil {
		t.Fatal(err)
	}
	if d.root {
		if out, err := exec.Command("chown", "-R", "65534:65534", root).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	cases := []struct {
		cmd                             string
		ro, refused, unknownOpts, bites bool
	}{
		// A pattern's value: one name is the value, several make find
		// refuse the command line.
		{cmd: `find . -name *.txt -print`, ro: true, refused: true},
		{cmd: `find . -iname *.txt -maxdepth 1 -exec wc -l {} +`, ro: true, refused: true},
		{cmd: `find . -name *.txt -print0 | xargs -0 grep -l TODO`, ro: true, refused: true},
		{cmd: `find . -name “*.pdf” -print`, ro: true, refused: true},
		{cmd: `find . -name ‘*.x’ -print0 | xargs -0 grep -l TODO`, ro: true},
		{cmd: `find . -name *.bar -maxdepth 2 -print`, ro: true},
		{cmd: `find . -path ./*.bar -o -name *.zzz -print`, ro: true},
		// Letters only: a second name may be a primary (+delete -delete).
		{cmd: `find . -name ?delete -print`, bites: true},
		{cmd: `find . -name *rf -print`},
		{cmd: `find . -name [+-]delete -print`},
		{cmd: `shopt -s nullglob; find . -name *.zzz -print`},
		// Starting points ending in "/": -delete/, -L/, -O3/ make find stop;
		// (/, !/ and ,/ are paths.
		{cmd: `cd tops && find */ -type f`, ro: true, refused: true},
		{cmd: `cd tops && find */ -maxdepth 1 -name '*.txt' -exec grep -c TODO {} \;`, ro: true, refused: true},
		{cmd: `cd tops && find s*/ -type f -print0 | xargs -0 wc -l`, ro: true},
		{cmd: `cd tops && find * -maxdepth 0`},
		{cmd: `cd tops/sub && find . * -maxdepth 1`, ro: true}, // no name there find would take for an option
		{cmd: `cd tops/sub && find * -type f -exec cat {} +`},  // a glob root is no known root for -exec
		{cmd: `cd tops && find . *`},
		{cmd: `cd tops && find */ -delete`},
		// xargs fed any text (names like options, blanks, newlines, quotes)
		// into a program every option of which is harmless.
		{cmd: `ls | xargs`, ro: true},
		{cmd: `ls | xargs -n 1 echo`, ro: true},
		{cmd: `ls | xargs dirname`, ro: true, unknownOpts: true},
		{cmd: `ls -1 | xargs -n 2 basename`, ro: true, unknownOpts: true},
		{cmd: `cat notes.txt | xargs -d '\n' -r basename -a`, ro: true},
		{cmd: `printf '%s\0' -- --help -v '-t /' | xargs -0 printf '[%s]\n'`, ro: true},
		{cmd: `echo 'test/90_2a5/Windows' | xargs dirname | xargs basename`, ro: true},
		{cmd: `ls | xargs mktemp -u`, ro: true, unknownOpts: true},
		{cmd: `xargs -a list.txt -0 dirname`, ro: true},
		{cmd: `ls | xargs sort`, bites: true}, // sort --output=pwned.txt
		{cmd: `ls | xargs cat`},
		{cmd: `ls | xargs wc -l`},
		{cmd: `ls | xargs sh`},
		{cmd: `ls | xargs sh -c 'echo x'`},
		{cmd: `ls | xargs -I{} dirname {}`},
		{cmd: `ls | xargs -o dirname`},
		{cmd: `ls | xargs nice cat`},
		{cmd: `ls | xargs env dirname`},
		{cmd: `ls | xargs ./evil.sh`},
		{cmd: `ls | xargs mktemp`, bites: true}, // creates files
		{cmd: `ls | xargs python3`},
		// perl is never read-only (docs/shell.md, "Wrappers"): the one-liners
		// a token subset once allowed, and what ran through it.
		{cmd: `ls | perl -ne 'print $1 if m/\.([^.\/]+)$/' | sort -u`},
		{cmd: `ls | perl -F'\n' -0777 -anE 'say join ",", @F'`},
		{cmd: `printf '|touch pwned\n%s\n' '"$(touch pwned)"' | perl -lane 'print $F[0], " $1" if /(touch)/'`},
		{cmd: `perl -e 'print "$x[1][system(q(touch pwned))]"'`, bites: true},
		{cmd: `perl -e '$h{a} %system "touch pwned"'`, bites: true},
		{cmd: `perl -ne 'print if /TODO/' -- notes.txt list.txt - < notes.txt`},
		{cmd: `ls -l | perl -n -a -e '$sum+=$F[4]; print "$sum\n"'`},
		{cmd: `perl -ne 'print' '|touch pwned'`, bites: true},
		{cmd: `perl -e 'print "$F[ system(q(touch pwned)) ]"'`, bites: true},
		{cmd: `perl -e 'print "@{[ system(q(touch pwned)) ]}"'`, bites: true},
		{cmd: `perl -e '$x="ARGV"; push @$x, "|touch pwned"; while (<>) {}'`, bites: true},
		{cmd: `perl -F'/x/;system(q(touch pwned));#' -ane 'print' notes.txt`, bites: true},
		{cmd: `echo x | perl -pe 's/x/system("touch pwned")/e'`, bites: true},
		{cmd: `perl -ne 'print' ./*.txt`},
		{cmd: `for f in ./*.txt; do perl -ne 'print' "$f"; done`},
		{cmd: `ls | xargs perl -ne 'print'`},
		// The independent review of that subset (issue 26): each ran a
		// program or wrote while the subset took it for read-only.
		{cmd: `perl '-F, -esystem(q(touch pwned));' -ane 'print' notes.txt`, bites: true},
		{cmd: `perl '-F, -i' -pe 's/TODO/DONE/' notes.txt`, bites: true},
		{cmd: `perl -e 'print 1' -e '/ 2; system "touch pwned"; 3 / 1'`, bites: true},
		{cmd: "perl -e '1;\n=for x \"\n=cut\nsystem q(touch pwned); #\"'", bites: true},
		{cmd: `perl -e '$x++ / 2; system "touch pwned"; 1 / 1'`, bites: true},
		{cmd: `perl -e 'print 1./ 2; system "touch pwned"; 1 / 1'`, bites: true},
		{cmd: `perl -e 'print $_'\''x; system "touch pwned"; #'\'`, bites: true},
		{cmd: `perl -e 'print "$_::x[system(q(touch pwned))]"'`, bites: true},
		{cmd: `perl -e 'print "@-[system(q(touch pwned))]"'`, bites: true},
		{cmd: `perl -e 'print "@1[system(q(touch pwned))]"'`, bites: true},
		{cmd: `echo pwned | perl -lne '$s = "CORE::mkdir"; print sort($s 1, 2)'`, bites: true},
		{cmd: `perl -lne 'my ($a, $b) = split /,/; print $b if $_ =~ /TODO/; $n++ / 2' notes.txt`},
		// read: a quoted value of -d or -p is text whatever it holds;
		// -e and -i only start readline on a terminal, which stdin is not.
		{cmd: `read -d "$(printf '\004')" x < notes.txt; echo "$x"`, ro: true},
		{cmd: `read -rd "$(ls | head -n 1)" -p "$(echo -rf --x)" x < notes.txt; echo "$x"`, ro: true},
		{cmd: `read -e -p "Do that? [Y,n]" -i Y input < notes.txt; echo "$input"`, ro: true},
		{cmd: `ls | { read -e -i "$(echo -a PATH)" y; echo "$y"; }`, ro: true},
		{cmd: `read -d $(echo -a PATH) y < notes.txt`},
		{cmd: `read -e x < /dev/tty`},
		{cmd: `read -ei Y x < notes.txt`},
		{cmd: `read -d "$(echo x)" "$(echo PATH)" < notes.txt`},
	}
	opts := realWorldOpts(root)
	var runs []hostileCase
	var of []int              // the case of each run
	quick := tracedSlowOnly() // TestHostileRunAllKeepsCommandsApart proves the runner quick
	for i, c := range cases {
		a := analyze(c.cmd, opts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
		if !a.ReadOnly && !c.bites {
			continue
		}
		// Every case is analysed; .ci/run (-tags slow) traces every one
		// (tracedSlowOnly, docs/development.md).
		kind := biteKind(c.bites)
		if c.refused {
			kind = "refused"
		} else if c.unknownOpts {
			kind = "unknownOpts"
		}
		if !quick.take(kind) {
			continue
		}
		if c.refused || c.unknownOpts {
			run := exec.Command(d.bash, "-c", c.cmd)
			run.Dir = proj
			run.Env = []string{"LANG=C.UTF-8", "PATH=/usr/bin:/bin", "HOME=" + filepath.Join(root, "home")}
			out, _ := run.CombinedOutput()
			switch o := string(out); {
			case c.refused && !strings.Contains(o, "paths must precede expression") && !strings.Contains(o, "unknown predicate"):
				t.Errorf("%q: find does not refuse the names the glob gives: %s", c.cmd, out)
			case c.unknownOpts && !strings.Contains(o, "unrecognized option") && !strings.Contains(o, "invalid option"):
				t.Errorf("%q: no option the program refuses reaches it: %s", c.cmd, out)
			}
		}
		runs = append(runs, hostileCase{c.cmd, a})
		of = append(of, i)
	}
	for k, found := range hostileRunAll(t, d, root, runs, evil, secret) {
		c, a := cases[of[k]], runs[k].a
		var bad []string
		for _, e := range found {
			if c.refused && strings.HasPrefix(e, "executes find ") ||
				c.unknownOpts && strings.HasPrefix(e, "executes ") && strings.Contains(e, "is not in the read-only vocabulary") {
				continue
			}
			bad = append(bad, e)
		}
		switch {
		case a.ReadOnly && len(bad) > 0:
			t.Errorf("judged read-only, but %q: %s", c.cmd, strings.Join(bad, "\n\t"))
		case c.bites && len(bad) == 0:
			t.Errorf("%q: the planted names do not bite (no effect): the case proves nothing", c.cmd)
		}
	}
}
