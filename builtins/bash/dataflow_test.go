package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Paths find supplies (-exec {}, find -print0 | xargs -0) are paths under
// its static starting points: the command that receives them is read-only
// when it only reads them, and it reads the trees of those roots
// (docs/shell.md, "Values and where they come from"). Everything that
// could turn a supplied path into an option, a command, code or a path
// elsewhere stays not read-only.
func TestSuppliedPathsUnderKnownRoots(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cmd   string
		ro    bool
		trees string // the analysis' recursive reads (treesOf), "" unchecked
	}{
		// -exec, -execdir, -ok, -okdir with a read-only command.
		{`find . -name '*.py' -exec grep -n foo {} \;`, true, "/home/u/proj hidden"},
		{`find src -name '*.ext' -exec wc -l {} \;`, true, "/home/u/proj/src hidden"},
		{`find src -type f -exec cat {} +`, true, "/home/u/proj/src hidden"},
		{`find src lib -exec head -n 3 -- {} +`, true, "/home/u/proj/src hidden; /home/u/proj/lib hidden"},
		{`find . -execdir cat {} \;`, true, "/home/u/proj hidden"},
		{`find . -ok cat {} \;`, true, "/home/u/proj hidden"},
		{`find . -type f -exec grep -l TODO {} + -o -exec wc -c {} \;`, true, ""},
		{`find . -exec grep --file={} x \;`, true, ""},
		{`find . -type d -exec grep -r x {} \;`, true, "/home/u/proj hidden"},
		{`find ~ -exec cat {} \;`, true, "/home/u hidden"}, // read-only, and a read of ~: the credential check decides
		{`find / -name foo -exec cat {} \; 2>/dev/null`, true, "/ hidden"},
		{`nice find . -exec stat {} +`, true, ""},
		{`find . -exec cat '{}' \;`, true, ""},
		{`find src -exec cat "{}" \+`, true, "/home/u/proj/src hidden"},
		{`find . -exec grep -r x {} \; -exec cat {} +`, true, "/home/u/proj hidden"},
		// find -print0 | xargs -0 with a read-only command.
		{`find . -name '*.c' -print0 | xargs -0 grep -l main`, true, "/home/u/proj hidden"},
		{`find . -name '*.c' -print0 | xargs -0 grep -l main | wc -l`, true, ""},
		{`find src -print0 | xargs -0 -n 1 -P 4 wc -l`, true, "/home/u/proj/src hidden"},
		{`find src -print0 | xargs --null -r cat`, true, ""},
		{`find src -print0 | xargs -0 -I{} cat {}`, true, ""},
		{`find ~ -print0 | xargs -0 cat`, true, "/home/u hidden"},
		{`find src -type f -print0 2>/dev/null | xargs -0 grep x`, true, ""},

		// The command writes, removes, or runs what it is given.
		{`find . -exec rm {} \;`, false, ""},
		{`find . -exec rm -rf {} +`, false, ""},
		{`find . -exec cp {} /tmp \;`, false, ""},
		{`find . -exec tee {} \;`, false, ""},
		{`find . -exec sort -o {} {} \;`, false, ""},
		{`find . -exec sh {} \;`, false, ""},
		{`find . -exec bash {} \;`, false, ""},
		{`find . -exec source {} \;`, false, ""},
		{`find . -exec python3 {} \;`, false, ""},
		{`find . -exec node {} \;`, false, ""},
		{`find . -exec awk {} \;`, false, ""},
		{`find . -exec awk -f {} x \;`, false, ""},
		{`find . -exec sed -f {} x \;`, false, ""},
		{`find . -exec sed {} x \;`, false, ""},
		{`find . -exec jq {} x \;`, false, ""},
		{`find . -exec make -f {} \;`, false, ""},
		{`find . -exec {} \;`, false, ""},
		{`find . -exec ./{} \;`, false, ""},
		{`find . -exec env {} \;`, false, ""},
		{`find . -exec nice {} \;`, false, ""},
		{`find . -exec sh -c 'cat {}' \;`, false, ""},
		{`find . -exec sh -c 'cat "$1"' sh {} \;`, false, ""},
		{`find . -exec python3 -c {} \;`, false, ""},
		{`find . -exec man {} \;`, false, ""},
		{`find . -type d -exec git -C {} status \;`, false, ""},
		{`find . -execdir npm ls \;`, false, ""},
		{`find . -exec cat {} \; -delete`, false, ""},
		{`find . -exec cat {} \; > out`, false, ""},
		{`find . -ok rm {} \;`, false, ""},
		// Paths built around {} are not paths under the root.
		{`find . -exec cat x{} \;`, false, ""},
		{`find foo -exec cat {}.bak \;`, false, ""},
		{`find . -exec cat {}/../.. \;`, false, ""},
		{`find . -exec cat -{} \;`, false, ""},
		{`find . -exec cat ./$x {} \;`, false, ""},
		// Roots that may start with "-" or are only known at run time.
		{`find * -exec cat {} \;`, false, ""},
		{`find $D -exec cat {} \;`, false, ""},
		{`find "$(pwd)" -exec cat {} \;`, false, ""},
		{`find -files0-from list -exec cat {} \;`, false, ""},
		// xargs without -0 splits names at blanks and quotes: a file
		// named "a /etc/shadow" gives /etc/shadow, "a -rf" gives -rf.
		{`find . -name '*.c' | xargs grep -l main`, false, ""},
		{`find . -print | xargs cat`, false, ""},
		{`find . | xargs -0 cat`, false, ""},
		{`find . -print | xargs -0 cat`, false, ""},
		{`find . -print0 | xargs cat`, false, ""},
		{`find . -print0 | xargs -0 -d x cat`, false, ""},
		{`find . -print0 | xargs -0 -a list cat`, false, ""},
		{`find . -print0 | xargs -0 -E x cat`, false, ""},
		{`find . -print0 | xargs -0 --process-slot-var=LD_PRELOAD cat`, false, ""},
		{`find . -print0 | xargs -0 -o cat`, false, ""},
		// Something else on the pipe, or xargs reads something else.
		{`find . -print0 -o -print | xargs -0 cat`, false, ""},
		{`find . -print0 -printf x | xargs -0 cat`, false, ""},
		{`find . -print0 -exec echo {} \; | xargs -0 cat`, false, ""},
		{`find . -print0 2>&1 | xargs -0 cat`, false, ""},
		{`find . -print0 |& xargs -0 cat`, false, ""},
		{`find . -print0 | xargs -0 cat < list`, false, ""},
		{`find . -print0 | xargs -0 grep "x$(head -c 3)"`, false, ""},
		{`find . -print0 | { head -c 3 >/dev/null; xargs -0 cat; }`, false, ""},
		{`find . -print0 | nice xargs -0 cat`, false, ""},
		{`cat list | xargs -0 cat`, false, ""},
		{`find $D -print0 | xargs -0 cat`, false, ""},
		{`find * -print0 | xargs -0 cat`, false, ""},
		// xargs hands the paths to a command that writes or runs them.
		{`find . -print0 | xargs -0 rm`, false, ""},
		{`find /var/log -name '*.log' -print0 | xargs -0 mv -t out`, false, ""},
		{`find . -print0 | xargs -0 sh`, false, ""},
		{`find . -print0 | xargs -0 sh -c 'cat "$@"' sh`, false, ""},
		{`find . -print0 | xargs -0 -I{} sh -c 'cat {}'`, false, ""},
		{`find . -print0 | xargs -0 python3`, false, ""},
		{`find . -print0 | xargs -0 python3 -c`, false, ""},
		{`find . -print0 | xargs -0 awk`, false, ""},
		{`find . -print0 | xargs -0 sed`, false, ""},
		{`find . -print0 | xargs -0 env`, false, ""},
		{`find . -print0 | xargs -0 nice`, false, ""},
		{`find . -print0 | xargs -0 timeout 5`, false, ""},
		{`find . -print0 | xargs -0 sudo`, false, ""},
		{`find . -print0 | xargs -0 strace`, false, ""},
		{`find . -print0 | xargs -0 xargs cat`, false, ""},
		{`find . -print0 | xargs -0 git -C`, false, ""},
		{`find . -print0 | xargs -0 tar -cf out.tar`, false, ""},
		// With no input, xargs without -r runs the command once bare.
		{`find . -print0 | xargs -0 grep -f`, false, ""},
	}
	for _, c := range cases {
		a := analyze(c.cmd, conformanceOpts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
		if c.trees != "" {
			if got := treesOf(a); got != c.trees {
				t.Errorf("%q: trees %q, want %q", c.cmd, got, c.trees)
			}
		}
	}
}

// The facts the model rests on, checked with the real find and xargs:
// plain xargs splits find's paths at blanks, so a file under "." yields
// an absolute path and an option; find -print0 | xargs -0 keeps each path
// whole, under its root.
func TestXargsSplitsFindPathsForReal(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"bash", "find", "xargs"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip(p + " not installed")
		}
	}
	dir := t.TempDir()
	for _, d := range []string{"a /etc", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a /etc/shadow", "b/x -rf"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(cmd string) []string {
		c := exec.Command("bash", "-c", cmd)
		c.Dir = dir
		out, err := c.Output()
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	plain := run(`find . -type f | xargs -n 1 printf '%s\n'`)
	if !slices.Contains(plain, "/etc/shadow") || !slices.Contains(plain, "-rf") {
		t.Errorf("find | xargs: want /etc/shadow and -rf among the operands, got %q", plain)
	}
	null := run(`find . -type f -print0 | xargs -0 -n 1 printf '%s\n'`)
	slices.Sort(null)
	if want := []string{"./a /etc/shadow", "./b/x -rf"}; !slices.Equal(null, want) {
		t.Errorf("find -print0 | xargs -0: operands %q, want %q", null, want)
	}
	for _, cmd := range []string{`find . -type f | xargs cat`, `find . -type f -print0 | xargs -0 cat`} {
		if got, want := analyze(cmd, conformanceOpts).ReadOnly, strings.Contains(cmd, "-0"); got != want {
			t.Errorf("%q: read-only = %v, want %v", cmd, got, want)
		}
	}
}
