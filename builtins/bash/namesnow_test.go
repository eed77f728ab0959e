package bash

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNamesCreatedInTheSameCommand: a verdict that rests on names listed
// at decision time is judged again without the listing when the same
// command may create a name the listing would object to (namesnow.go),
// whether the names reach the program under a root (find | xargs,
// $(find)), as find's words (find *) or as bare operands (a glob operand,
// $(ls)), where "@", "+" and "=" matter too. A write of a tame name keeps
// the leaf read-only.
func TestNamesCreatedInTheSameCommand(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	proj, home := filepath.Join(root, "p"), filepath.Join(root, "home")
	for _, f := range []string{"notes.txt", "src/a.txt", "src/sub/b.txt", "eq/a=b", "sp/q --x=y"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(proj, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := Options{Cwd: proj, Home: home, ShellPerCall: true}
	for _, c := range []struct {
		cmd, leaf string
		ro        bool
	}{
		// Bare operands: only a name that means what ./name means is tame.
		{`du -sh *`, "du", true},
		{`touch new.txt; du -sh *`, "du", true},
		{`touch ./-n; du -sh *`, "du", false},
		{`du -sh * & mkdir -- -R`, "du", false},
		{`touch ./@x; strings *`, "strings", false}, // binutils reads options from the file x
		{`touch ./+1; sort *`, "sort", false},       // an obsolete key
		{`echo > a=b; wc -l *`, "wc", false},
		{`touch ./@x; cat $(ls)`, "cat", false},
		{`touch ./-n; cat $(ls)`, "cat", false},
		{`mkdir d; cat $(ls)`, "cat", true},
		{`strings $(ls)`, "strings", true},
		{`touch 'a=b'; cat "$(ls)"`, "cat", false},
		{`cd eq && cat "$(ls)"`, "cat", false}, // a=b: an assignment to awk or env
		{`cd sp && cat "$(ls)"`, "cat", true},  // one word, no option, no assignment
		{`cd sp && cat $(ls)`, "cat", false},   // q and --x=y
		// Under a root: the name splits or is an option.
		{`find src | xargs wc -l`, "wc", true},
		{`mkdir -p src/c/d && find src | xargs wc -l`, "wc", true},
		{`touch src/@x src/+1; find src | xargs wc -l`, "wc", true}, // src/@x: no option
		{`touch 'src/a b'; find src | xargs wc -l`, "wc", false},
		{`mkdir -p "src/a --files0-from=notes.txt"; find src | xargs wc`, "wc", false},
		{`find src | xargs wc -l & mkdir 'src/a b'`, "wc", false},
		{`cp notes.txt src/n.txt; find src | xargs wc -l`, "wc", false}, // only touch, mkdir, rm, rmdir and redirections are read for names
		{`touch 'src/a b'; sort $(find src)`, "sort", false},
		{`mkfifo src/f; cat "$(find src -name a.txt)"`, "cat", false}, // cat would block on it
		{`sort $(find src) > "src/q --output=x"`, "sort", false},
		{`{ sort $(find src); } > "src/q --output=x"`, "sort", false}, // bash opens the file before sort's words expand
		// find's own words: "-" first or an operator.
		{`touch ./+te; find * -maxdepth 0`, "find", true},
		{`touch ./-delete; find * -maxdepth 0`, "find", false},
		{`touch ./'('; find * -maxdepth 0`, "find", false},
		{`touch -- -fprint; find . -newer *nt`, "find", false},
		// A part permopa cannot see may create anything.
		{`eval "$x"; du -sh *`, "du", false},
		{`echo > "$x"; du -sh *`, "du", false},
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
