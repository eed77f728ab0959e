package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFindSelectionAgainstHostileNames (issue 26): find | xargs, find |
// xargs -d '\n', find | tr '\n' '\0' | xargs -0 and $(find …) are judged
// by the names find (and grep filters) would print (findselect.go,
// findpipe.go): a hostile name that find -name '*.py' never prints does not
// matter, one it prints does. Each read-only case runs under strace and
// must not write, run anything or open the planted secret; each case
// marked bites runs too and must show the effect the hostile name has, so
// that the table proves the names are real hazards.
func TestFindSelectionAgainstHostileNames(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-findsel-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	proj := filepath.Join(root, "home/proj")
	secret := filepath.Join(root, "home/planted-secret")
	appendTo(t, secret, "PLANTEDSECRET\n")
	for _, n := range []string{
		// mix: plain .py files beside .txt names xargs would split.
		// (mix/q exists, so that sort reads it and goes on to write.)
		"mix/a.py", "mix/sub/c.py", "mix/b.go", "mix/q --output=pwned.txt", "mix/q",
		// nl: a name with a newline then an option.
		"nl/a.py", "nl/q\n--output=pwned.py", "nl/q",
		// quote: quotes and backslashes, which xargs removes.
		"quote/it's.txt", `quote/back\slash.txt`, `quote/say "x".txt`,
		// fifo: a FIFO find -name 'a*' does not print.
		"fifo/a.txt",
		// outside: what a link in mix leads to.
		"outside dir/x y.txt",
		"top.txt",
	} {
		appendTo(t, filepath.Join(proj, n), "TODO\n")
	}
	if err := syscall.Mkfifo(filepath.Join(proj, "fifo", "p.py"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../outside dir", filepath.Join(proj, "mix", "lnk.py")); err != nil {
		t.Fatal(err)
	}
	if d.root {
		if out, err := exec.Command("chown", "-R", "-h", "65534:65534", root).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	type run struct {
		cmd       string
		ro, bites bool
		slow      bool // traced only with -tags slow (issue 25)
	}
	cases := []run{
		// find's selection leaves the hostile names out.
		{cmd: "find mix -name '*.py' | xargs sort", ro: true},
		{cmd: "find mix -name \"*.py\" -type f | xargs wc -l", ro: true},
		{cmd: "find mix -name *.py | xargs sort", ro: true}, // no *.py in the working directory: bash passes it
		{cmd: "find mix -iname '*.PY' | xargs sort", ro: true},
		{cmd: "find mix -name '*.TXT' | xargs sort", ro: true},
		{cmd: "find mix -name '*.[pg][yo]' | xargs sort", ro: true},
		{cmd: "find mix -path 'mix/sub/*' | xargs sort", ro: true},
		{cmd: "find mix -mindepth 2 -name '*.py' | xargs sort", ro: true},
		{cmd: "find mix -type d | xargs ls", ro: true},
		{cmd: "find fifo -name 'a*' | xargs cat", ro: true},
		{cmd: "find nl -name 'a*' | xargs -d '\\n' sort", ro: true},
		{cmd: "find mix | grep '\\.py$' | xargs sort", ro: true},
		{cmd: "find mix | grep -E '\\.(py|go)$' | sort | xargs sort", ro: true},
		{cmd: "wc `find mix -name '*.py'`", ro: true},
		{cmd: "sort $(find mix | grep .py$)", ro: true},
		// -d '\n' and tr '\n' '\0': blanks, quotes and backslashes are
		// literal, only a newline splits.
		{cmd: "find mix -type f | xargs -d '\\n' sort", ro: true},
		{cmd: "find mix -type f | xargs --delimiter='\\n' sort", ro: true},
		{cmd: "find mix -type f | xargs -d $'\\n' -n 1 sort", ro: true},
		{cmd: "find mix -type f | tr '\\n' '\\0' | xargs -0 sort", ro: true},
		{cmd: "find mix -type f -print0 | tr '\\0' '\\n' | xargs -d '\\n' sort", ro: true},
		{cmd: "find quote -type f | xargs -d '\\n' cat", ro: true},
		{cmd: "find quote -name '*.txt' | tr '\\n' '\\0' | xargs -0 cat", ro: true},
		{cmd: "find quote -type f | xargs cat"},
		// find's operators (-o, !, parentheses, the comma, -prune,
		// -quit), evaluated as GNU find does.
		{cmd: "find mix -name '*.py' -o -name '*.go' | xargs sort", ro: true},
		{cmd: "find mix \\( -name '*.py' -o -name '*.go' \\) -type f | xargs sort", ro: true, slow: true},
		{cmd: "find mix ! \\( -name '*.txt' -o -name q \\) | xargs ls", ro: true, slow: true},
		{cmd: "find mix ! -name '*.txt' | xargs ls", ro: true, slow: true},
		{cmd: "find mix -name '*.txt' -prune -o -print | xargs sort", ro: true, slow: true},
		{cmd: "find mix -name '*.txt' -o -name '*.py' -print | xargs sort", ro: true, slow: true},
		{cmd: "find mix -name '*.py' -o -name '*.txt' -quit | xargs sort", ro: true, slow: true},
		{cmd: "find mix -name '*.py' -o -name '*.txt' -false | xargs sort", ro: true, slow: true},
		{cmd: "find mix -name '*.txt' -prune -o -name '*.py' | xargs sort", bites: true, slow: true}, // no action: the pruned *.txt is printed
		{cmd: "find mix -name '*.py' -print -o -name '*.txt' -print | xargs sort", bites: true, slow: true},
		{cmd: "find mix -type f -name '*.py' -o -name '*.txt' | xargs sort", bites: true, slow: true}, // -a binds tighter
		{cmd: "find mix -name '*.py' , -name '*.txt' | xargs sort", bites: true, slow: true},
		{cmd: "find mix -not -name '*.py' -not -name '*.go' | xargs sort", bites: true, slow: true},
		{cmd: "find mix ! ! -name '*.txt' | xargs sort", bites: true, slow: true},
		{cmd: "find mix -name '\u2018*.txt\u2019' | xargs sort", ro: true, slow: true},    // typographic quotes: no ASCII name
		{cmd: "find mix -name '*.txt' -quit , -print | xargs sort", ro: true, slow: true}, // find exits at the first *.txt
		// -quit does not keep find from adding -print: these print the
		// hostile names (were read-only: -quit was taken as an action).
		{cmd: "find mix -type f -o -false -quit | xargs sort", bites: true},
		{cmd: "find mix -name '*.txt' -o -false -quit | xargs sort", bites: true, slow: true},
		{cmd: "find mix -false -quit , -name '*.txt' | xargs sort", bites: true, slow: true},
		{cmd: "find mix ! -name '*.py' -o -false -a -quit | xargs sort", bites: true, slow: true},
		{cmd: "sort $(find mix -type f -o -false -quit)", bites: true, slow: true},
		{cmd: "find mix \\( -name '*.py' | xargs sort"}, // find refuses it: not modelled
		{cmd: "find mix -name '*.py' -o -follow | xargs sort"},
		{cmd: "find mix -name '*.py' -o -delete | xargs sort"},
		{cmd: "find mix -name '*.py' -o -fprint mix/x | xargs sort"},
		{cmd: "find mix -name '*.py' -o -exec rm {} \\; | xargs sort"},
		// The hostile names are printed.
		{cmd: "find mix -name '*.txt' | xargs sort", bites: true},
		{cmd: "find mix -iname '*.TXT' | xargs sort", bites: true},
		{cmd: "find mix -name '*' | xargs sort", bites: true},
		{cmd: "find mix -type f | xargs sort", bites: true},
		{cmd: "find mix -name '*.py' -o -name '*.txt' | xargs sort", bites: true},
		{cmd: "find mix ! -name '*.py' | xargs sort", bites: true},
		{cmd: "find mix -not -name '*.py' | xargs sort", bites: true},
		{cmd: "find mix \\( -name '*.txt' \\) | xargs sort", bites: true},
		{cmd: "find mix | grep txt | xargs sort", bites: true},
		{cmd: "find mix | grep -v '\\.py$' | xargs sort", bites: true},
		{cmd: "find mix | grep -w txt | xargs sort", bites: true},
		{cmd: "find mix -name '*[t]' | xargs sort", bites: true},
		{cmd: "find mix -name '*\\t' | xargs sort"}, // backslash: not modelled
		{cmd: "sort `find mix -name '*.txt'`", bites: true},
		{cmd: "find nl -name '*.py' | xargs -d '\\n' sort", bites: true},
		{cmd: "find nl -type f | tr '\\n' '\\0' | xargs -0 sort", bites: true},
		{cmd: "find mix -type f | tr '\\n' '\\0' | xargs sort", bites: true},
		{cmd: "find mix -type f | xargs -d '\\t' sort"}, // another delimiter: not modelled
		{cmd: "find mix -type f | xargs -d '\\n' -0 sort"},
		{cmd: "find mix -type f | xargs -0 -d '\\n' sort"},
		{cmd: "find mix -type f | xargs -d '\\n' -E x sort"},
		{cmd: "find mix -type f | tr -d '\\n' | xargs -0 sort"},
		{cmd: "find mix -type f | tr '\\n' ' ' | xargs sort", bites: true},
		{cmd: "find mix -type f | tr '\\n' '\\0' | grep -z py | xargs -0 sort"},
		{cmd: "tr() { cat; }; find mix -type f | tr '\\n' '\\0' | xargs -0 sort"},
		{cmd: "find fifo | xargs cat"},
		{cmd: "find fifo -name '*.py' | xargs cat"},
		// -L and -follow are not modelled: every name counts.
		{cmd: "find -L mix -name '*.py' | xargs sort"},
		{cmd: "find mix -follow -name '*.py' | xargs sort"},
		{cmd: "find mix -name sub -prune | xargs sort", ro: true}, // prints mix/sub only
		// A glob bash expands first: find -name top.txt.
		{cmd: "find mix -name *.txt | xargs sort"},
		// The command itself creates a name find would print.
		{cmd: "touch 'mix/z --output=pwned.py'; find mix -name '*.py' | xargs sort"},
		{cmd: "find mix -name '*.py' | xargs sort & mkdir -p 'mix/q --output=pwned.py'"},
		// A command that writes stays not read-only.
		{cmd: "find mix -name '*.py' | xargs -d '\\n' rm"},
		{cmd: "find mix -name '*.py' | tr '\\n' '\\0' | xargs -0 sed -i s/a/b/"},
	}
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
		if !a.ReadOnly && !c.bites || !slowTests && c.slow || !quick.take(biteKind(c.bites)) {
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
