package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A sh -c script that find -exec or xargs -I completes by pasting a path
// into its text is read-only only where every place it pastes into keeps
// a path of plain shell text one literal word of an argument, and the
// script is read-only with each such place a path under the roots
// (pastescript.go; docs/shell.md, "Values and where they come from").
// Here the roots do not exist (find hands on nothing): the shape of the
// script decides. TestPastedScriptNames checks the names.
func TestPastedScriptPlaces(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cmd   string
		ro    bool
		trees string // treesOf, "" unchecked
	}{
		// The NL2Bash commands of issue 26.
		{`find . -exec sh -c 'echo {} | grep -qi /path/to/something' \; -print`, true, ""},
		{`find . -type l -exec sh -c "file -b {} | grep -q ^broken" \; -print`, true, "/home/u/proj hidden"},
		{`find . -type d -name "*log*" | xargs -I {} sh -c "echo {};ls -la {} | tail -2"`, true, ""},
		{`find . -maxdepth 1 -type d -print0 | xargs -0 -I {} sh -c 'echo -e $(find "{}" -printf "\n" | wc -l) "{}"' | sort -n`, true, ""},
		{`find . -maxdepth 1 -type d -print0 | xargs -0 -I {} sh -c 'echo  $(find {} | wc -l) {}' | sort -n`, true, ""},
		// Each place as find -exec CMD {} \; judges it: a read of one
		// path is a read of the roots' trees.
		{`find src -exec sh -c 'cat {}' \;`, true, "/home/u/proj/src hidden"},
		{`find src -exec bash -c 'wc -l "{}"; head -n 1 '"'"'{}'"'"'' \;`, true, "/home/u/proj/src hidden"},
		{`find src -execdir sh -c 'cat {}' \;`, true, "/home/u/proj/src hidden"},
		{`find src -exec dash -c 'test -f {} && cat {}' \;`, true, ""},
		{`find src -print0 | xargs -0 -I% sh -c 'cat %'`, true, ""},
		{`find src | xargs -d '\n' -I{} sh -c 'cat {} | wc -l'`, true, ""},
		{`find src -exec sh -c 'echo "{}: $(wc -l < {})"' \;`, false, ""}, // a redirection's word is no place
		{`find src -exec sh -c 'echo "{}: $(cat {} | wc -l)"' \;`, true, ""},
		// The command the script runs must be read-only with the path.
		{`find src -exec sh -c 'cat {} > out' \;`, false, ""},
		{`find src -exec sh -c 'rm {}' \;`, false, ""},
		{`find src -exec sh -c 'cat {}.bak' \;`, false, ""},
		{`find src -exec sh -c 'cat x{}' \;`, false, ""},
		{`find src -exec sh -c 'cat {}/../..' \;`, false, ""},
		{`find src -exec sh -c 'git -C {} log' \;`, false, ""},
		{`find src -exec sh -c 'awk -f {} x' \;`, false, ""},
		{`find src -exec sh -c 'python3 {}' \;`, false, ""},
		// A place that is no literal text of an argument: the command
		// name, a shell, a wrapper, a builtin that reads names, code, a
		// redirection, an assignment, arithmetic, [[ ]], a loop's words.
		{`find src -exec sh -c '{}' \;`, false, ""},
		{`find src -exec sh -c './{}' \;`, false, ""},
		{`find src -exec sh -c 'sh {}' \;`, false, ""},
		{`find src -exec sh -c 'bash -c "cat {}"' \;`, false, ""},
		{`find src -exec bash -c 'source {}' \;`, false, ""},
		{`find src -exec bash -c '. {}' \;`, false, ""},
		{`find src -exec bash -c 'eval cat {}' \;`, false, ""},
		{`find src -exec sh -c 'env cat {}' \;`, false, ""},
		{`find src -exec sh -c 'xargs cat {}' \;`, false, ""},
		{`find src -exec sh -c 'nice cat {}' \;`, false, ""},
		{`find src -exec sh -c 'command cat {}' \;`, false, ""},
		{`find src -exec bash -c 'let {}' \;`, false, ""},
		{`find src -exec bash -c 'printf -v {} x' \;`, false, ""},
		{`find src -exec bash -c 'read {}' \;`, false, ""},
		{`find src -exec bash -c 'export {}' \;`, false, ""},
		{`find src -exec bash -c 'cat < {}' \;`, false, ""},
		{`find src -exec bash -c 'x={}; cat "$x"' \;`, false, ""},
		{`find src -exec bash -c 'echo $(( {} ))' \;`, false, ""},
		{`find src -exec bash -c '[[ {} -eq 1 ]]' \;`, false, ""},
		{`find src -exec bash -c 'for f in {}; do cat "$f"; done' \;`, false, ""},
		{`find src -exec bash -c 'cat <<E
{}
E' \;`, false, ""},
		{`find src -exec bash -c 'echo # {}' \;`, false, ""},
		{`find src -exec bash -c 'f() { cat "$1"; }; f {}' \;`, false, ""},
		// Neighbours that change how the pasted text is read: a tilde
		// prefix, brace expansion, a glob, a parameter on the left, an
		// escape, $"…" and $'…', an extended glob or a descriptor on
		// the right.
		{`find src -exec bash -c 'cat ~{}' \;`, false, ""},
		{`find src -exec bash -c 'cat {x,{}}' \;`, false, ""},
		{`find src -exec bash -c 'cat {}*' \;`, false, ""},
		{`find src -exec bash -c 'cat $x{}' \;`, false, ""},
		{`find src -exec bash -c 'cat \{}' \;`, false, ""},
		{`find src -exec bash -c 'cat $"{}"' \;`, false, ""},
		{`find src -exec bash -c 'cat {} $'"'"'\x41'"'"'' \;`, false, ""},
		{`find src -exec bash -c 'cat {}<x' \;`, false, ""},
		{`find src -exec bash -c 'cat {}>x' \;`, false, ""},
		{`find 5 -maxdepth 0 -exec bash -c 'cat {}2<x' \;`, false, ""},
		{`find src -print0 | xargs -0 -I% sh -c 'echo a$%'`, false, ""},
		{`find src -print0 | xargs -0 -I% sh -c 'echo "a$%"'`, false, ""},
		// The script moves the shell before it uses the path.
		{`find src -exec sh -c 'cd /tmp; cat {}' \;`, false, ""},
		{`find src -exec sh -c 'cd /tmp && cat {}' \;`, false, ""},
		{`find src -exec env -C /tmp sh -c 'cat {}' \;`, false, ""},
		// A find inside with its own -exec, whose {} is filled too.
		{`find src -exec sh -c 'find {} -exec cat {} \;' \;`, false, ""},
		{`find src -print0 | xargs -0 -I{} sh -c 'find {} -name x -exec cat {} +'`, false, ""},
		// -exec … + with a {} inside a word: GNU find refuses it.
		{`find src -exec sh -c 'cat {}' {} +`, false, ""},
		// Not a sh-family shell, or the paths are not known.
		{`find src -exec zsh -c 'cat {}' \;`, false, ""},
		{`find $D -exec sh -c 'cat {}' \;`, false, ""},
		{`find * -exec sh -c 'cat {}' \;`, false, ""},
		{`cat list | xargs -I{} sh -c 'cat {}'`, false, ""},
		{`ls | xargs -I{} sh -c 'cat {}'`, false, ""},
		{`find src | xargs -I{} sh -c 'cat {}' < list`, false, ""},
		// An argument of the script, not its text: $1 is only known at
		// run time (unchanged).
		{`find src -exec sh -c 'cat "$1"' sh {} \;`, false, ""},
		// xargs -I with a placeholder that is part of other words.
		{`find src -print0 | xargs -0 -I a sh -c 'cat a'`, false, ""},
		{`find src -print0 | xargs -0 -Ix sh -c 'echo x; cat "$x"'`, false, ""},
		// find's starting point is the path xargs -I supplies, not the
		// word {} (also without a script).
		{`find ~ -print0 | xargs -0 -I{} find {} -exec cat {} \;`, false, ""},
	}
	for _, c := range cases {
		a := analyze(c.cmd, conformanceOpts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(append(a.NotReadOnly, a.Reasons...), "; "))
		}
		if c.trees != "" {
			if got := treesOf(a); got != c.trees {
				t.Errorf("%q: trees %q, want %q", c.cmd, got, c.trees)
			}
		}
	}
}

// The names find would paste are read at decision time: one that is not
// plain shell text (shellInertByte) keeps the script from being
// read-only wherever it is pasted, and a name find does not hand on (its
// selection, -maxdepth) does not matter. The real tree is built here;
// TestPastedScriptAgainstHostileNames runs the commands.
func TestPastedScriptNames(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	proj := filepath.Join(root, "home/proj")
	for _, n := range pastedHostileNames {
		appendTo(t, filepath.Join(proj, "h", pasteDirOf(n), n), "x\n")
	}
	for _, n := range []string{"plain/a.txt", "plain/sub/b-1,2+c@d%e.go", "plain/-rf", "plain/sub/-n"} {
		appendTo(t, filepath.Join(proj, n), "x\n")
	}
	if err := os.MkdirAll(filepath.Join(proj, "fifo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(proj, "fifo/p"), 0o644); err != nil && !os.IsExist(err) {
		t.Fatal(err)
	}
	appendTo(t, filepath.Join(proj, "fifo/a.txt"), "x\n")
	opts := realWorldOpts(root)
	ro := func(cmd string, want bool) {
		t.Helper()
		a := analyze(cmd, opts)
		if a.ReadOnly != want {
			t.Errorf("%q: read-only = %v, want %v (%s)", cmd, a.ReadOnly, want, strings.Join(append(a.NotReadOnly, a.Reasons...), "; "))
		}
	}
	for _, form := range pastedForms {
		ro(strings.ReplaceAll(form, "DIR", "plain"), true)
		ro(strings.ReplaceAll(form, "DIR", "fifo"), false)
		for _, n := range pastedHostileNames {
			ro(strings.ReplaceAll(form, "DIR", "h/"+pasteDirOf(n)), false)
		}
	}
	// find's selection: the FIFO and the hostile names are not handed on.
	ro(`find fifo -name '*.txt' -exec sh -c 'cat {}' \;`, true)
	ro(`find h -maxdepth 0 -exec sh -c 'ls {}' \;`, true)
	ro(`find h -maxdepth 1 -exec sh -c 'ls {}' \;`, true)
	ro(`find h -maxdepth 2 -exec sh -c 'ls {}' \;`, false)
	ro(`find h/d0 -type f -name '*.txt' -exec sh -c 'cat {}' \;`, true)
	ro(`find h/d0 -type f -exec sh -c 'cat {}' \;`, false)
	ro(`find h/d0 -name '*.txt' -o -type f -exec sh -c 'cat {}' \;`, false)
	ro(`find h -type f -name zz -exec sh -c 'cat {}' \;`, false) // a newline, a byte beyond ASCII: taken as selected
	// The command itself creates a name find would paste.
	// The names are ones plain xargs would take whole, and so tame for
	// the rows that only split (namesnow.go's listedText): the script's
	// leaves must not be read-only (touch and mkdir themselves never are).
	leafRO := func(cmd, prog string, want bool) {
		t.Helper()
		for _, l := range analyze(cmd, opts).Leaves {
			if l.Program == prog && l.ReadOnly != want {
				t.Errorf("%q: %s read-only = %v, want %v (%s)", cmd, prog, l.ReadOnly, want, l.Reason)
			}
		}
	}
	leafRO(`touch 'plain/a;id'; find plain -exec sh -c 'echo {}' \;`, "echo", false)
	leafRO(`mkdir -p 'plain/$(id)'; find plain -print0 | xargs -0 -I{} sh -c 'echo {}'`, "echo", false)
	leafRO(`find plain -exec sh -c 'echo {}' \; & touch 'plain/a&&b'`, "echo", false)
	leafRO(`mkdir -p 'plain/$(id)'; find plain -print0 | xargs -0 -I{} echo {}`, "echo", true) // an argument, not text
	// A link to ~/.ssh: the pasted form is judged as find -exec CMD {} \;
	// is (the same verdict and recursive reads, whose walk the
	// credential check follows: docs/reads.md).
	appendTo(t, filepath.Join(root, "home/.ssh/id_rsa"), "KEY\n")
	appendTo(t, filepath.Join(proj, "linked/a.txt"), "x\n")
	if err := os.Symlink("../../.ssh", filepath.Join(proj, "linked/keys")); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{
		{`find linked -exec cat {} \;`, `find linked -exec sh -c 'cat {}' \;`},
		{`find linked -name '*.txt' -exec cat {} \;`, `find linked -name '*.txt' -exec sh -c 'cat {}' \;`},
		{`find linked -print0 | xargs -0 -I{} cat {}`, `find linked -print0 | xargs -0 -I{} sh -c 'cat {}'`},
	} {
		argv, pasted := analyze(pair[0], opts), analyze(pair[1], opts)
		if argv.ReadOnly != pasted.ReadOnly || treesOf(argv) != treesOf(pasted) {
			t.Errorf("%q: read-only %v, trees %q; %q: read-only %v, trees %q", pair[0], argv.ReadOnly, treesOf(argv), pair[1], pasted.ReadOnly, treesOf(pasted))
		}
	}
	// A plain name keeps the script's leaves read-only (touch itself is
	// not).
	a := analyze(`touch plain/c.txt; find plain -exec sh -c 'echo {}' \;`, opts)
	for _, l := range a.Leaves {
		if l.Program == "echo" && !l.ReadOnly {
			t.Errorf("touch plain/c.txt; …: echo {} is not read-only: %s", l.Reason)
		}
	}
}

// pastedHostileNames are names that are shell syntax where a path is
// pasted into a script (each in a directory of its own, pasteDirOf).
var pastedHostileNames = []string{
	"$(touch pwned)", "`touch pwned`", "a;touch pwned", "a|touch pwned", "a b", "~root", "a=b", "{a,b}", "*",
	"a&&touch${IFS}pwned", "a\ntouch pwned", "it's", `say "x"`, `back\slash`, "#x", "!x", "a:b", "caf\u00e9",
	"a\tb", "a<b", "a>b", "(x)", "[x]", "?x", "a^b", "'$(touch pwned)'", "a -opwned",
}

// pasteDirOf is a plain directory name for each hostile name.
func pasteDirOf(n string) string {
	for i, h := range pastedHostileNames {
		if h == n {
			return "d" + strconv.Itoa(i)
		}
	}
	return "dz"
}

// pastedForms are the ways a path is pasted into a script (DIR: the
// starting point).
var pastedForms = []string{
	`find DIR -exec sh -c 'echo {}' \;`,
	`find DIR -exec bash -c 'cat "{}" >/dev/null' \;`,
	`find DIR -execdir sh -c "echo '{}'" \;`,
	`find DIR -print0 | xargs -0 -I{} sh -c 'echo {}'`,
	`find DIR | xargs -d '\n' -I{} sh -c 'echo {}'`,
	`find DIR | tr '\n' '\0' | xargs -0 -I{} sh -c 'wc -c {}'`,
}

// pastedRun is a command of the traced proofs: judged ro (or not), and
// when bites, run to show the hostile name's effect.
type pastedRun struct {
	cmd       string
	ro, bites bool
}

// pastedProof builds a tree with plain names, the hostile names (under
// h/, each in its own directory), an executable script (run/evil.sh,
// which creates pwned-evil) and a planted secret, judges each command and
// runs it under strace (hostileRunAll): a read-only one must not write,
// run anything or open the secret; one marked bites must show an effect,
// so that the table proves the hazard is real.
func pastedProof(t *testing.T, cases []pastedRun) {
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-pasted-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	proj := filepath.Join(root, "home/proj")
	secret := filepath.Join(root, "home/planted-secret")
	appendTo(t, secret, "PLANTEDSECRET\n")
	for _, n := range pastedHostileNames {
		appendTo(t, filepath.Join(proj, "h", pasteDirOf(n), n), "x\n")
	}
	for _, n := range []string{"plain/a.txt", "plain/sub/b-1,2+c@d%e.go", "plain/-rf", "plain/sub/-n"} {
		appendTo(t, filepath.Join(proj, n), "x\n")
	}
	appendTo(t, filepath.Join(proj, "run/evil.sh"), "#!/bin/sh\ntouch pwned-evil\n")
	os.Chmod(filepath.Join(proj, "run/evil.sh"), 0o755)
	if d.root {
		if out, err := exec.Command("chown", "-R", "-h", "65534:65534", root).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	opts := realWorldOpts(root)
	var runs []hostileCase
	var bites []bool
	for _, c := range cases {
		a := analyze(c.cmd, opts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(append(a.NotReadOnly, a.Reasons...), "; "))
		}
		// Every row is judged; the traced proof runs with -tags slow only
		// (tracedSlowOnly: TestHostileRunAllKeepsCommandsApart proves the runner quick).
		if !a.ReadOnly && !c.bites || !slowTests {
			continue
		}
		runs = append(runs, hostileCase{c.cmd, a})
		bites = append(bites, c.bites)
	}
	for i, bad := range hostileRunAll(t, d, root, runs, filepath.Join(proj, "run/evil.sh"), secret) {
		c := runs[i]
		switch {
		case c.a.ReadOnly && len(bad) > 0:
			t.Errorf("judged read-only, but %q: %s", c.cmd, strings.Join(bad, "\n\t"))
		case bites[i] && len(bad) == 0:
			t.Errorf("%q: the hostile name does not bite (no effect): the case proves nothing", c.cmd)
		}
	}
}

// TestPastedScriptAgainstHostileNamesQuick is the quick suite's case per
// mechanism (find -exec, xargs -I, a name that is code), judged in process
// (traced only with -tags slow: TestHostileRunAllKeepsCommandsApart proves
// the runner quick); TestPastedScriptAgainstHostileNames (-tags slow) runs
// the whole table.
func TestPastedScriptAgainstHostileNamesQuick(t *testing.T) {
	t.Parallel()
	pastedProof(t, []pastedRun{
		{cmd: `find plain -exec sh -c 'cat {} | grep -q x' \; -print`, ro: true},
		{cmd: `find plain -type f -print0 | xargs -0 -I {} sh -c 'echo {}; wc -l {} | tail -1'`, ro: true},
		{cmd: `find h/` + pasteDirOf("$(touch pwned)") + ` -exec sh -c 'echo {}' \;`, bites: true},
	})
}
