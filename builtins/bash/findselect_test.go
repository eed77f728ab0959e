package bash

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/permopa/permopa/builtins/paths"
)

// selectionTree builds a tree of hostile names for the selection tests:
// blanks, newlines, quotes, backslashes, a leading "-" and ".", upper
// case, bracket characters, bytes beyond ASCII, a FIFO, links to a file,
// a directory and nowhere.
func selectionTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, n := range []string{
		"a.py", "B.PY", ".hidden.py", "-rf.py", "my file.txt", "src/x.go", "src/y.c", "src/z.h", "src/Q.C",
		"sub dir/a.py", "sub dir/b.txt", "nl\ndir/c.py", "q\n--output=x.py", "it's.py", `back\slash.py`,
		"caf\u00e9.py", "brack[et].py", "p|pe.c", "d.cc", "deep/er/est.go", "deep/er/a b.go.txt",
		"\u2018q.c\u2019",
	} {
		p := filepath.Join(root, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.py"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"lnk.py": "a.py", "lnkdir": "src", "gone.py": "missing"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestFindSelectionAgainstGNUFind (issue 26): what the selection model
// (findselect.go) says find prints, against what GNU find prints in a tree
// of hostile names. Every path find prints must be selected (the check of
// names relies on it); where the expression is modelled, nothing else is
// (the model is exact on paths that do not pass through a link, which find
// -P never follows); an expression that is not modelled selects all.
func TestFindSelectionAgainstGNUFind(t *testing.T) {
	if _, err := exec.LookPath("find"); err != nil {
		t.Skip("no find")
	}
	root := selectionTree(t)
	cases := []struct {
		expr     []string
		modelled bool
	}{
		// (A narrowing test, -size or -newer, is taken as true: a
		// superset, not exact.)
		{[]string{"-name", "*.py"}, true},
		{[]string{"-name", "*.PY"}, true},
		{[]string{"-iname", "*.py"}, true},
		{[]string{"-name", "*"}, true},
		{[]string{"-name", ".*"}, true},
		{[]string{"-name", "?.py"}, true},
		{[]string{"-name", "*.[h|c|cpp|php|cc]"}, true},
		{[]string{"-name", "*.[!c]"}, true},
		{[]string{"-iname", "*.[c]"}, true},
		{[]string{"-name", "*.[^c]"}, true}, // POSIXLY_CORRECT makes ^ a member: either value, every path
		{[]string{"-name", "*[]]*"}, true},
		{[]string{"-name", "a.py", "-type", "f"}, true},
		{[]string{"-type", "f"}, true},
		{[]string{"-type", "d"}, true},
		{[]string{"-type", "l"}, true},
		{[]string{"-path", "./src/*"}, true},
		{[]string{"-path", "*/er/*"}, true},
		{[]string{"-ipath", "./SRC/*"}, true},
		{[]string{"-wholename", "./sub*"}, true},
		{[]string{"-mindepth", "2", "-name", "*.py"}, true},
		{[]string{"-mindepth", "3", "-mindepth", "1", "-name", "*.py"}, true},
		{[]string{"-name", "*.go", "-print"}, true},
		{[]string{"-type", "d", "-print0"}, true},
		{[]string{"-name", "*.py", "-a", "-size", "-10k"}, true},
		{[]string{"-name", "*.py", "-perm", "-u+r"}, true},
		// Operators, as GNU find 4.9 parses and evaluates them.
		{[]string{"-name", "*.go", "-o", "-name", "*.txt"}, true},
		{[]string{"-name", "*.go", "-or", "-name", "*.txt", "-o", "-type", "l"}, true},
		{[]string{"!", "-name", "*.py"}, true},
		{[]string{"-not", "-name", "*.py"}, true},
		{[]string{"!", "!", "-name", "*.py"}, true},
		{[]string{"(", "-name", "*.py", ")"}, true},
		{[]string{"-type", "f", "(", "-name", "*.py", "-o", "-name", "*.c", ")"}, true},
		{[]string{"-type", "f", "-name", "*.py", "-o", "-name", "*.c"}, true}, // -a binds tighter: every *.c
		{[]string{"(", "-name", "*.py", "-o", "-name", "*.c", ")", "-a", "!", "-type", "l"}, true},
		{[]string{"-name", "*.go", "-print", "-o", "-name", "*.txt", "-print"}, true},
		{[]string{"!", "-name", "*.py", "-o", "-print"}, true},
		{[]string{"-name", "*.py", ",", "-name", "*.txt"}, true}, // the comma's value is the right side's
		{[]string{"-name", "*.py", "-print", ",", "-name", "*.txt", "-print"}, true},
		{[]string{"-name", "src", "-prune", "-o", "-name", "*.go", "-print"}, true},
		{[]string{"-name", "src", "-prune", "-o", "-name", "*.c"}, true}, // no action: src itself is printed
		{[]string{"-name", "*.py", "-quit"}, true},                       // find exits before the -print it adds
		// -quit does not keep find from adding -print (these print).
		{[]string{"-true", "-o", "-quit"}, true},
		{[]string{"-type", "f", "-o", "-false", "-quit"}, true},
		{[]string{"-name", "*.txt", "-o", "-false", "-quit"}, true},
		{[]string{"-mindepth", "1", "-type", "f", "-o", "-false", "-a", "-quit"}, true},
		{[]string{"-false", "-quit", ",", "-name", "*.txt"}, true},
		{[]string{"(", "-type", "f", "-o", "-type", "l", ")", "-o", "-name", "*.py", "-quit"}, true},
		{[]string{"!", "-quit", "-o", "-type", "f"}, true},
		{[]string{"-true", "-o", "-name", "*.py"}, true},
		{[]string{"-false", "-o", "-name", "*.py"}, true},
		{[]string{"-mindepth", "2", "-o", "-name", "*.py"}, true}, // an option: global, true
		{[]string{"!", "-name", "*.[^c]"}, true},                  // a pattern not modelled: either value
		{[]string{"!", "-name", "*.py", "-a", "!", "-name", "*.txt"}, true},
		{[]string{"-print", "-name", "*.py"}, true},
		{[]string{"-name", "*.py", "-print0"}, true},
		{[]string{"-print0", "-name", "*.py"}, true},
		// Typographic quotes: a literal beyond ASCII matches no ASCII
		// name; folded (-iname) it is not modelled.
		{[]string{"-name", "\u2018*.c\u2019"}, true},
		{[]string{"-path", "*\u2019"}, true},
		{[]string{"-iname", "\u2018*.c\u2019"}, true},
		// Not modelled: every path may be printed.
		{[]string{"(", ")", "-o", "-name", "*.py"}, false},
		{[]string{"(", "-name", "*.py"}, false},
		{[]string{"-name", "*.py", ")"}, false},
		{[]string{"-o", "-name", "*.py"}, false},
		{[]string{"-name", "*.py", "-o"}, false},
		{[]string{"!"}, false},
		{[]string{"-follow", "-name", "*.py"}, false},
		{[]string{"-name", "*.py", "-o", "-follow"}, false},
	}
	// Superset cases: -prune's subtree, -quit's later entries and the tests
	// not evaluated are walked, so the model selects more than find prints.
	superset := func(expr []string) bool {
		return slices.Contains(expr, "-size") || slices.Contains(expr, "-prune") || slices.Contains(expr, "-quit") || slices.Contains(expr, "*.[^c]") || slices.Contains(expr, "-iname") && strings.Contains(strings.Join(expr, ""), "\u2018")
	}
	var walked []paths.Entry
	l := paths.ListTree(paths.Tree{Root: paths.ResolvePath(root, "/", ""), Hidden: true})
	if !l.Complete {
		t.Fatal(l.Why)
	}
	walked = l.Entries
	throughLink := func(rel string) bool {
		for d := filepath.Dir(rel); d != "."; d = filepath.Dir(d) {
			if fi, err := os.Lstat(filepath.Join(root, d)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				return true
			}
		}
		return false
	}
	w := &walker{}
	for _, c := range cases {
		argv := append([]string{"find", "."}, c.expr...)
		sel := w.findSelectionOf(wordsOf(argv), state{}, nil)
		if (sel != nil) != c.modelled {
			t.Errorf("%q: modelled = %v, want %v", argv, sel != nil, c.modelled)
		}
		if sel == nil {
			continue // every path selected
		}
		run := append(append([]string{"."}, "("), c.expr...)
		run = append(run, ")", "-print0")
		// Only -print keeps find from adding its own (-quit does not).
		if slices.Contains(c.expr, "-print") {
			run = append([]string{"."}, c.expr...)
			for i, a := range run {
				if a == "-print" {
					run[i] = "-print0"
				}
			}
		}
		cmd := exec.Command("find", run...)
		cmd.Dir = root
		out, _ := cmd.Output() // a broken link makes -follow fail, with its output
		printed := map[string]bool{}
		for _, p := range strings.Split(string(out), "\x00") {
			if rel, ok := strings.CutPrefix(p, "./"); ok {
				printed[rel] = true
			}
		}
		if len(printed) == 0 && !slices.Contains(c.expr, "-quit") {
			t.Fatalf("%q printed nothing: the case proves nothing", run)
		}
		for _, e := range walked {
			se := selEntry{rel: e.Rel, depth: strings.Count(e.Rel, "/") + 1, dir: e.Dir, link: e.Target != "", special: e.Special}
			got := sel.selects(se)
			if printed[e.Rel] && !got {
				t.Errorf("%q prints %q, which the model leaves out", run, e.Rel)
			}
			if got && !printed[e.Rel] && !superset(c.expr) && !throughLink(e.Rel) && asciiText(e.Rel) {
				t.Errorf("%q does not print %q, which the model selects (not exact)", run, e.Rel)
			}
		}
	}
}

// TestGrepLineTestAgainstGNUGrep (issue 26): the line tests of grep
// filters against GNU grep on lines of hostile paths. Where a pattern is
// modelled the test says exactly which lines grep prints; otherwise it is
// nil (every line may pass).
func TestGrepLineTestAgainstGNUGrep(t *testing.T) {
	if _, err := exec.LookPath("grep"); err != nil {
		t.Skip("no grep")
	}
	lines := []string{"./a.py", "./B.PY", "./.hidden.py", "./-rf.py", "./my file.txt", "./src/x.go", "./x.php",
		"./y.phpx", "./a.php.txt", "./it's.py", `./back\slash.py`, "./brack[et].py", "./p|pe.c", "./d.cc", "./sql",
		"./a+b.c", "./a?b", "./(x)", "./a{1}", "./$HOME", "./^x", ".", "./Makefile", "./dba_2pc_pending.sql", "./aaa"}
	cases := []struct {
		args     []string
		modelled bool
	}{
		{[]string{"grep", ".php$"}, true},
		{[]string{"grep", "-v", ".php$"}, true},
		{[]string{"grep", `\.py$`}, true},
		{[]string{"grep", "-i", "PY"}, true},
		{[]string{"grep", "-x", `./a\.py`}, true},
		{[]string{"grep", "-F", "."}, true},
		{[]string{"grep", "-F", "a+b"}, true},
		{[]string{"grep", "-Fx", "./sql"}, true},
		{[]string{"grep", "sql"}, true},
		{[]string{"grep", "-e", "src"}, true},
		{[]string{"grep", "--regexp=src", "--invert-match"}, true},
		{[]string{"grep", "a+b"}, true},
		{[]string{"grep", "a?b"}, true},
		{[]string{"grep", "(x)"}, true},
		{[]string{"grep", "a{1}"}, true},
		{[]string{"grep", "a|b"}, true},
		{[]string{"grep", "-E", "a+b"}, true},
		{[]string{"grep", "-E", `\.(py|go)$`}, true},
		{[]string{"grep", "-E", "^./(a|B)"}, true},
		{[]string{"egrep", "x|y"}, true},
		{[]string{"fgrep", "a|b"}, true},
		{[]string{"grep", "[pq]"}, true},
		{[]string{"grep", "[^a-z]"}, false},
		{[]string{"grep", "a*"}, true},
		{[]string{"grep", "-E", "a*$"}, true},
		{[]string{"grep", `\$HOME`}, true},
		{[]string{"grep", ""}, true},
		// Not modelled.
		{[]string{"grep", "*a"}, false},
		{[]string{"grep", `\w`}, false},
		{[]string{"grep", `a\|b`}, false},
		{[]string{"grep", `\(a\)`}, false},
		{[]string{"grep", "-E", "a{2}"}, false},
		{[]string{"grep", "-w", "a"}, false},
		{[]string{"grep", "-P", "a"}, false},
		{[]string{"grep", "[[:alpha:]]"}, false},
		{[]string{"grep", "a^b"}, false},
		{[]string{"grep", "-e", "a", "-e", "b"}, false},
		{[]string{"grep", "-m", "1", "a"}, false},
		{[]string{"grep", "-E", "-F", "a+"}, false},
		{[]string{"egrep", "-F", "a+"}, false},
		{[]string{"grep", "-i", "[p]Y"}, true},
		{[]string{"grep", "caf\u00e9"}, false},
	}
	input := strings.Join(lines, "\n") + "\n"
	for _, c := range cases {
		test := grepLineTest(c.args)
		if (test != nil) != c.modelled {
			t.Errorf("%q: modelled = %v, want %v", c.args, test != nil, c.modelled)
			continue
		}
		if test == nil {
			continue
		}
		cmd := exec.Command(c.args[0], c.args[1:]...)
		cmd.Stdin = strings.NewReader(input)
		cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
		var out bytes.Buffer
		cmd.Stdout = &out
		cmd.Run() // exit status 1: no line
		printed := map[string]bool{}
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			printed[l] = true
		}
		for _, l := range lines {
			if got := test(l); got != printed[l] {
				t.Errorf("%q on %q: model %v, grep %v", c.args, l, got, printed[l])
			}
		}
	}
}
