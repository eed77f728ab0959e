package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/permopa/permopa/builtins/paths"
)

// substFixture is a project for the substitution tables: plain names,
// a tree per hostile name (a blank, a tab, a newline, a glob character
// before an option), a FIFO, and a link to the home's ~/.ssh.
func substFixture(t *testing.T, root string) (proj, home string) {
	t.Helper()
	home = filepath.Join(root, "home")
	proj = filepath.Join(home, "proj")
	for _, n := range []string{"web/a.php", "web/b.php", "web/sub/c.php", "a.php", "plain/-rf", "plain/--output=pwned.txt", "plain/x.txt"} {
		appendTo(t, filepath.Join(proj, n), "TODO\n")
	}
	for i, n := range substHostileNames {
		appendTo(t, filepath.Join(proj, "bad"+string(rune('a'+i)), n), "TODO hostile\n")
	}
	appendTo(t, filepath.Join(home, ".ssh", "id_rsa"), "SECRET\n")
	os.MkdirAll(filepath.Join(proj, "linked"), 0o755)
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(proj, "linked", "k")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(proj, "fifo"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(proj, "fifo", "p"), 0o644); err != nil {
		t.Fatal(err)
	}
	return proj, home
}

// substHostileNames split, glob or turn into options once an unquoted
// substitution of find's paths is split and globbed.
var substHostileNames = []string{"q --output=pwned.txt", "q\t--output=pwned.txt", "q\n--output=pwned.txt", "*", "q?", "[x]"}

// TestSubstValues: a command substitution whose producer is known
// (issue 26, substvalues.go) gives its words a provenance: find's paths
// are paths under its roots (judged as those roots), date +FMT and wc
// give numbers, and a quoted run-time word after an option taking a text
// value is that value. Every other producer, shape or option keeps the
// caution of a word only known at run time.
func TestSubstValues(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	proj, home := substFixture(t, root)
	opts := Options{Cwd: proj, Home: home, ShellPerCall: true}
	cases := []struct {
		cmd string
		ro  bool
	}{
		// find's paths, unquoted and quoted, through line filters.
		{"wc -l $(find web -name '*.php')", true},
		{"wc -l `find web -name \"*.php\"`", true},
		{`cat "$(find web -name a.php)"`, true},
		{"cat `find web/sub -name '*.php'`", true},
		{"wc -l $(find web -name '*.php' | grep -v sub | sort -r | head -n 3)", true},
		{"grep -n TODO $(find plain -type f)", true}, // ./plain/-rf is no option
		{`md5sum $(find web -maxdepth 1 -name '*.php')`, true},
		{"cat $(find plain -type f -print0)", false},    // NUL-ended: one word
		{"cat $(find plain -printf '%p\\n')", false},    // printf: any text
		{"cat $(find plain | sed s/x/-rf/)", false},     // sed changes the lines
		{"cat $(find plain | grep -o x)", false},        // -o prints parts of lines
		{"cat $(find plain | grep -c x)", false},        // a count, not a path
		{"cat $(find plain | grep x other.txt)", false}, // grep reads a file, not the pipe
		{"cat $(find plain |& grep x)", false},          // stderr into the pipe
		{"cat $(find $x)", false},                       // root only known at run time
		{"cat $(find plain -name x -exec echo -rf \\;)", false},
		{"IFS=/; cat $(find plain)", false},            // IFS splits elsewhere
		{"shopt -s extglob; cat $(find plain)", false}, // @(x) would glob
		{"rm $(find plain -name x.txt)", false},        // a write
		{"sort $(find plain -type f)", true},           // ./plain/--output=pwned.txt is a file
		{"uniq $(find plain -name x.txt)", false},      // two words: uniq IN OUT writes
		{"grep -r x $(find . -maxdepth 0)", false},     // no word: grep -r reads . whole
		{`ls $(find ~/.ssh)`, true},                    // the policy's: a credential tree (below)
		// Hostile names: a blank, a tab or a newline splits; a glob globs;
		// a FIFO blocks. Quoted, the substitution is one word.
		{"cat $(find bada)", false},
		{"cat $(find badb)", false},
		{"cat $(find badc)", false},
		{"cat $(find badd)", false},
		{"cat $(find bade)", false},
		{"cat $(find badf)", false},
		{`cat "$(find bada)"`, true},
		{`cat "$(find fifo)"`, false},
		{"cat $(find bada -maxdepth 0)", true}, // find prints bada only
		// A name the command itself may create before the substitution
		// runs is not on disk when the decision is made.
		{`touch "./plain/q --output=pwned.txt"; sort $(find plain)`, false},
		{`for i in 1 2; do sort $(find plain); echo > "plain/q --output=x"; done`, false},
		{`mkdir -p d && cat "$(find plain -name x.txt)"`, false},
		// A for loop over find's paths: each value is one path under the
		// roots, quoted or not (no name splits or globs).
		{"for f in $(find web -name '*.php'); do wc -l $f; done", true},
		{"for f in `find web -name '*.php'` x.txt; do grep -n TODO \"$f\"; done", true},
		{"for f in $(find bada); do cat \"$f\"; done", false},                 // a blank splits the list
		{`for f in "$(find web -name '*.php')"; do cat $f; done`, false},      // one item, split by $f
		{"for f in $(find web -name '*.php'); do f=-rf; cat $f; done", false}, // assigned in the body
		{"for f in $(find web -name '*.php'); do rm $f; done", false},
		{"for n in $(date +%s); do cat $n; done", false},
		// A function or alias named as the producer prints what it likes.
		{"date() { echo 'a[$(touch pwned)]'; }; echo $(( $(date +%s) ))", false},
		{"find() { echo -rf; }; cat $(find web -name x)", false},
		{"grep() { echo -rf; }; cat $(find web | grep x)", false},
		{"hash -p ./x date; echo $(( $(date +%s) ))", false},
		// ls with no operand: the names in the working directory.
		{"cat $(ls -t | head -1)", true},
		{`wc -l "$(ls -A | grep php)"`, true},
		{"cd plain && cat $(ls)", false}, // -rf
		{"cd bada && cat $(ls)", false},  // a blank
		{`cd bada && cat "$(ls)"`, true}, // one word
		{"cat $(ls -a)", false},          // .. is the parent
		{"cat $(ls -l)", false},
		{"cat $(ls -d)", false},
		{"cat $(ls -F)", false},
		{"cat $(ls web)", false}, // names in web, read here
		{"ls() { echo -rf; }; cat $(ls)", false},
		{"touch ./-rf; cat $(ls)", false},
		// Numbers.
		{`cal $(date +"%m %Y")`, true},
		{`echo $(($(date +%s) / 60 / 60 / 24))`, true},
		{`echo $(( $(ls | wc -l) + 1 ))`, true},
		{`head -n $(wc -l < a.php) a.php`, true},
		{`TODAY=$(date -d "$(date +%F)" +%s)`, true},
		{`echo $(( $(date +%b) ))`, false},   // a month name: a variable bash evaluates
		{`echo $(( $(date +%d_) ))`, false},  // _ is a name
		{`echo $(( $(date +%z) ))`, false},   // not in the numeric set
		{`echo $(( $(cat a.php) ))`, false},  // any text
		{`cal $(date +%z)`, false},           // -0500 is an option
		{`cal $(date +-%d)`, false},          // a literal - first
		{`cal $(date "+%d -%m")`, false},     // - after a blank
		{`cat $(date +%s)`, false},           // a number as a path: unknown
		{`cal $(wc -l a.php)`, false},        // wc prints the name too
		{`cal $(wc --files0-from=x)`, false}, // wc reads names from x
		{`head -n $(date +%d) a.php`, true},
		// A quoted run-time word as an option's text value.
		{`find . -name "$x"`, true},
		{`find /tmp -maxdepth 1 -name "$USER.*"`, true},
		{`find -regex "$rx"`, true},
		{`grep -e "$x" a.php`, true},
		{`cut -d "$d" -f 1 a.php`, true},
		{`head -n "$n" a.php`, true},
		{`grep -e $x a.php`, false},          // unquoted: splits
		{`grep "$x" a.php`, false},           // an operand may be an option
		{`grep -e -e "$x"`, false},           // -e's value is "-e": "$x" is a file
		{`find . -newer "$x"`, false},        // a file find stats
		{`find . -newermt "$x"`, false},      // TZ="FILE" opens FILE
		{`date -d "$x"`, false},              // TZ="FILE" opens FILE
		{`find . -fprint "$x"`, false},       // a write
		{`find . -name "$x" -delete`, false}, // a write
		{`cut -d "$d" -f "$f" $x`, false},
	}
	for _, c := range cases {
		a := analyze(c.cmd, opts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
	}
	// find's paths are judged as its roots: ~/.ssh is a credential tree
	// for the policy, and so is a project holding a link to it.
	for _, cmd := range []string{`cat $(find ~/.ssh)`, "cat $(find linked)", `wc -c "$(find linked -name k)"`, "cd linked && cat $(ls)"} {
		a := analyze(cmd, opts)
		if !a.ReadOnly {
			t.Errorf("%q: not read-only (%s); the credential check is the policy's", cmd, strings.Join(a.NotReadOnly, "; "))
		}
		cred := false
		for _, tr := range a.RecursiveReads {
			if tr.NamesOnly {
				continue
			}
			v := (*paths.Classifier)(nil).CheckTree(paths.Tree{Root: paths.ResolvePath(tr.Path, "/", home), Hidden: tr.Hidden}, home, nil)
			cred = cred || v.Credential
		}
		if !cred {
			t.Errorf("%q: the trees it reads (%v) do not reach the credential ~/.ssh/id_rsa", cmd, a.RecursiveReads)
		}
	}
}

// TestSubstValuesAgainstHostileNames runs, under strace in the dynamic
// check's fixture, every substitution the analysis follows over trees
// holding hostile names: none may write, run another program or open the
// planted secret. The bites (the same substitutions over names with a
// blank, tab or newline before --output=F, which sort then takes as its
// option) must show an effect, so that the names are known to bite.
func TestSubstValuesAgainstHostileNames(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-subst-")
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
	for _, n := range []string{"a.txt", "-rf", "--output=pwned.txt", "-n", "sub/--files0-from=list.txt", "sub/b.txt"} {
		appendTo(t, filepath.Join(proj, "plain", n), "TODO plain\n")
	}
	appendTo(t, filepath.Join(proj, "list.txt"), filepath.Join(root, "home/planted-secret")+"\x00")
	for _, n := range []string{"a.txt", "b.txt"} {
		appendTo(t, filepath.Join(proj, "lsok", n), "TODO\n")
	}
	// binutils' strings reads its options from the file a name "@FILE"
	// names, and prints the words it does not know: the secret's.
	appendTo(t, filepath.Join(proj, "lsat", "@.k"), "x\n")
	os.Symlink(secret, filepath.Join(proj, "lsat", ".k"))
	for i, n := range substHostileNames {
		appendTo(t, filepath.Join(proj, "bad"+string(rune('a'+i)), "a.txt"), "TODO\n")
		appendTo(t, filepath.Join(proj, "bad"+string(rune('a'+i)), n), "TODO hostile\n")
	}
	if d.root {
		if out, err := exec.Command("chown", "-R", "65534:65534", root).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	type run struct {
		cmd       string
		ro, bites bool
	}
	cases := []run{
		{cmd: "wc -l $(find plain -type f)", ro: true},
		{cmd: "cat $(find plain -type f)", ro: true},
		{cmd: "sort $(find plain -type f)", ro: true},
		{cmd: "grep -n TODO $(find plain -type f | grep -v a.txt | sort | head -n 5)", ro: true},
		{cmd: `head -n 1 "$(find plain -name a.txt)"`, ro: true},
		{cmd: "md5sum `find plain -name '*.txt'`", ro: true},
		{cmd: `cal $(date +"%m %Y"); echo $(($(date +%s) / 60)); head -n $(wc -l < plain/a.txt) plain/a.txt`, ro: true},
		{cmd: `find plain -name "$(echo a.txt)"; grep -e "$(echo --output=pwned.txt)" plain/a.txt`, ro: true},
		{cmd: `sort "$(find bada -name 'q*')"`, ro: true}, // one word: a file
		{cmd: "for f in $(find plain -type f); do sort $f; head -n 1 \"$f\"; done", ro: true},
		{cmd: "for f in $(find bada -type f); do sort $f; done", bites: true},
		{cmd: "cd lsok && wc -l $(ls -t | head -n 5) && sort \"$(ls)\" && cat $(ls -r)", ro: true},
		{cmd: "cd plain && sort $(ls)", bites: true}, // --output=pwned.txt
		{cmd: "cd lsat && strings $(ls)", bites: true},
	}
	for i := range substHostileNames {
		dir := "bad" + string(rune('a'+i))
		cases = append(cases, run{cmd: "sort $(find " + dir + " -type f)", bites: i < 3})
	}
	cases = append(cases,
		run{cmd: `touch "plain/q --output=pwned.txt"; sort $(find plain -type f)`, bites: true},
		run{cmd: `wc $(echo --files0-from=list.txt)`, bites: true}, // an unknown producer: any option
	)
	opts := realWorldOpts(root)
	var runs []hostileCase
	var bites []bool
	quick := tracedSlowOnly() // TestHostileRunAllKeepsCommandsApart proves the runner quick
	for _, c := range cases {
		a := analyze(c.cmd, opts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
		// Every case is analysed; .ci/run (-tags slow) traces every one
		// (tracedSlowOnly, docs/development.md).
		if !a.ReadOnly && !c.bites || !quick.take(biteKind(c.bites)) {
			continue
		}
		runs = append(runs, hostileCase{c.cmd, a})
		bites = append(bites, c.bites)
	}
	for i, bad := range hostileRunAll(t, d, root, runs, evil, secret) {
		c := runs[i]
		switch {
		case c.a.ReadOnly && len(bad) > 0:
			t.Errorf("judged read-only, but %q: %s", c.cmd, strings.Join(bad, "\n\t"))
		case bites[i] && len(bad) == 0:
			t.Errorf("%q: the planted names do not bite (no effect): the case proves nothing", c.cmd)
		}
	}
}

// TestSubstListingGuard: a command that may create a name the listing of
// a substitution would object to is judged without the listing
// (namesnow.go; a host that allows writes in the project would otherwise
// run sort over the name touch made: sort --output=pwned.txt); a tame
// name keeps it.
func TestSubstListingGuard(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	proj, home := substFixture(t, root)
	opts := Options{Cwd: proj, Home: home, ShellPerCall: true}
	for _, c := range []struct {
		cmd  string
		ro   bool
		leaf string
	}{
		{`touch "./plain/q --output=pwned.txt"; sort $(find plain)`, false, "sort"},
		{`sort $(find plain); echo x > "plain/q --output=pwned.txt"`, false, "sort"},
		// bash expands a simple command's words before it opens its file,
		// but a group's file first; any write of a name that is not tame
		// has the command judged without the listing (namesnow.go).
		{`sort $(find plain) > "plain/q --output=pwned.txt"`, false, "sort"},
		{`{ sort $(find plain); } > "plain/q --output=pwned.txt"`, false, "sort"},
		{`sort $(find plain); ls`, true, "sort"},
		{`sort "$(find plain -name x.txt)"; mkdir d`, true, "sort"}, // d is tame
		{`sort "$(find plain -name x.txt)"; mkfifo plain/f`, false, "sort"},
		{`cal $(date +%m); mkdir d`, true, "cal"}, // numbers: no listing
	} {
		a := analyze(c.cmd, opts)
		found := false
		for _, lf := range a.Leaves {
			if lf.Program == c.leaf {
				found = true
				if lf.ReadOnly != c.ro {
					t.Errorf("%q: leaf %s read-only = %v, want %v (%s)", c.cmd, c.leaf, lf.ReadOnly, c.ro, lf.Reason)
				}
			}
		}
		if !found {
			t.Errorf("%q: no leaf %s", c.cmd, c.leaf)
		}
	}
}
