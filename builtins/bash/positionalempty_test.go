package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// positionalEmptyCase is a command judged under Options.PositionalEmpty
// (issue 26, docs/shell.md "Values and where they come from").
type positionalEmptyCase struct {
	cmd string
	ro  bool
	// shows is a leaf's argv, joined by blanks ($… for a word only known
	// at run time); "" checks none.
	shows string
	// bites: traced (TestPositionalEmptyAgainstBash), the command writes,
	// runs the fixture script or opens the secret, so the case is a real
	// hazard the analysis must not call read-only.
	bites bool
}

// positionalEmptyFiles are the project's files for the table: scripts
// that hand their own words to find.
var positionalEmptyFiles = map[string]string{
	"f.sh":      "find . $1\n",
	"setopt.sh": "set -o -- -delete\nfind . $1\n",
	"cmdset.sh": "command s\\et -- -delete\nfind . $1\n",
	"keep.txt":  "precious\n",
	"README.md": "hi\n",
}

// positionalEmptyCases: what an empty positional parameter gives, and the
// places where the parameters are not the host's empty ones.
var positionalEmptyCases = []positionalEmptyCase{
	// The host's bash -c COMMAND: no words after it.
	{cmd: "find $1 -type f | wc -l", ro: true, shows: "find -type f"},
	{cmd: "find $@ -ls", ro: true, shows: "find -ls"},
	{cmd: "/usr/bin/find ./ $*", ro: true, shows: "/usr/bin/find ./"},
	{cmd: `exec /usr/bin/find "$@"`, ro: true, shows: "/usr/bin/find"},
	{cmd: `grep -i "$2" README.md`, ro: true, shows: "grep -i  README.md"},
	{cmd: "yes $1 | head -5", ro: true, shows: "yes"},
	{cmd: `find . -type f -iname '*'"${1:-}"'*' -exec ${2:-file} {} \;`, ro: true, shows: "file {}"},
	{cmd: "uiTotalSize=$(ls -l -R $1 | grep -v ^d | awk '{total+=$5;} END {print total;}')", ro: true, shows: "ls -l -R"},
	{cmd: `actual_path=$(readlink -f "${BASH_SOURCE[0]}")`, ro: true, shows: "readlink -f "},
	{cmd: `echo $# "$#" "${1-x}" ${1+y} "${1:+z}"`, ro: true, shows: "echo 0 0 x "},
	{cmd: "shift; find . $1", ro: true, shows: "find ."},
	{cmd: "source f.sh", ro: false, shows: "find ."}, // source without words: the caller's (empty) ones
	// A default that is a word is that word: -delete is find's.
	{cmd: "find . ${1--delete}", shows: "find . -delete", bites: true},
	{cmd: "find . ${1:-$(rm keep.txt)}", bites: true},
	{cmd: "cat ${1:-~/.ssh/id_rsa}"},
	{cmd: "find . ${1:=-delete}"},
	// Set in the command: unknown, never empty.
	{cmd: "set -- -delete; find . $1", shows: "find . $…", bites: true},
	{cmd: "set -o -- -delete; find . $1", shows: "find . $…", bites: true},
	{cmd: `command s\et -- -delete; find . $1`, shows: "find . $…", bites: true},
	{cmd: `builtin "se"t -- -delete; find . $1`, shows: "find . $…", bites: true},
	{cmd: "command -p -- set -- -delete; find . $1", shows: "find . $…", bites: true},
	{cmd: "if :; then set -- -delete; fi; find . $1", shows: "find . $…", bites: true},
	{cmd: "eval 'set -- -delete'; find . $1", bites: true},
	{cmd: "source /dev/stdin <<< 'set -- -delete'; find . $1", bites: true},
	{cmd: "trap 'set -- -delete' DEBUG; find . $1", bites: true},
	// A script's, a function's, sh -c's own parameters.
	{cmd: "bash f.sh -delete", shows: "find . -delete", bites: true},
	{cmd: "source f.sh -delete", shows: "find . -delete", bites: true},
	{cmd: "bash setopt.sh x", shows: "find . $…", bites: true},
	{cmd: "bash cmdset.sh x", shows: "find . $…", bites: true},
	{cmd: "f() { find . $1; }; f -delete", shows: "find . $…", bites: true},
	{cmd: "sh -c 'find . $1' _ -delete", shows: "find . $…", bites: true},
	{cmd: "sh -c 'find . $0' -delete", shows: "find . $…", bites: true},
	{cmd: "echo keep.txt | xargs sh -c 'rm $1' _", bites: true},
	{cmd: `find . -name keep.txt -exec sh -c 'rm "$1"' _ {} \;`, bites: true},
	// $0 is the shell's path, not known (docs/hosts.md); BASH_ARGV is
	// not modelled; BASH_SOURCE assigned is zsh's own variable.
	{cmd: `head -c 10 "$0"`, shows: "head -c 10 $…"},
	{cmd: "shopt -s extdebug; find . ${BASH_ARGV[0]}", shows: "find . $…"},
	{cmd: "BASH_SOURCE=-delete; find . $BASH_SOURCE", shows: "find . $…"},
	{cmd: `BASH_SOURCE=(-delete); find . "${BASH_SOURCE[0]}"`, shows: "find . $…"},
	// IFS holding a digit splits $# away.
	{cmd: "IFS=0; find . -maxdepth 1 -name x$#", shows: "find . -maxdepth 1 -name x$…"},
}

// TestPositionalEmpty: under Options.PositionalEmpty (the hooks' input
// positional_empty) the command's own $1... $@ $* are empty and $# is 0,
// and nothing else is: a script's, a function's, sh -c's parameters, the
// ones the command sets, $0 and BASH_ARGV stay what they were. An
// embedder without the option keeps the caution.
func TestPositionalEmpty(t *testing.T) {
	t.Parallel()
	_, opts := project(t, positionalEmptyFiles)
	opts.ShellPerCall, opts.PositionalEmpty = true, true
	checkPositionalEmpty(t, opts, positionalEmptyCases)
	without := opts
	without.PositionalEmpty = false
	for _, c := range positionalEmptyCases {
		if !c.ro || strings.HasPrefix(c.cmd, "echo ") || strings.HasPrefix(c.cmd, "source ") {
			continue // echo takes any word; source is not read-only
		}
		if a := Analyze(c.cmd, without); a.ReadOnly {
			t.Errorf("%q without positional_empty: read-only, want the caution of a word only known at run time\n%s", c.cmd, brief(a))
		}
	}
}

func checkPositionalEmpty(t *testing.T, opts Options, cases []positionalEmptyCase) {
	t.Helper()
	for _, c := range cases {
		a := Analyze(c.cmd, opts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)\n%s", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "), brief(a))
		}
		if c.shows == "" {
			continue
		}
		found := false
		for _, lf := range a.Leaves {
			found = found || strings.Join(lf.Argv, " ") == strings.ReplaceAll(c.shows, "$…", dyn)
		}
		if !found {
			t.Errorf("%q: no leaf %q\n%s", c.cmd, c.shows, brief(a))
		}
	}
}

// TestPositionalEmptyReadsADefault: a default that names a file is read
// as that file, so the credential rules see it.
func TestPositionalEmptyReadsADefault(t *testing.T) {
	t.Parallel()
	_, opts := project(t, nil)
	opts.ShellPerCall, opts.PositionalEmpty = true, true
	a := Analyze(`cat "${1:-`+opts.Home+`/.ssh/id_rsa}"`, opts)
	if !namesRead(a, opts.Home+"/.ssh/id_rsa") {
		t.Errorf("the default's file is not among the reads:\n%s", brief(a))
	}
}

// TestPositionalEmptyAgainstBashQuick judges, in the fixture the slow
// table is traced in, one command the option makes read-only and one that
// bites; with -tags slow they are also traced with the real bash as the
// hosts run it (bash -c COMMAND, no words after it). The whole table is
// traced by TestPositionalEmptyAgainstBash (slow);
// TestHostileRunAllKeepsCommandsApart proves the runner quick.
func TestPositionalEmptyAgainstBashQuick(t *testing.T) {
	t.Parallel()
	tracePositionalEmpty(t, []positionalEmptyCase{{cmd: "find $1 -type f -name '*.txt' | wc -l", ro: true}, {cmd: "set -- -delete; find . $1", bites: true}})
}

// tracePositionalEmpty runs the cases judged read-only, and those marked
// bites, under strace in a fixture holding positionalEmptyFiles: a
// read-only one must not write, run the fixture script or open the
// planted secret; one that bites must.
func tracePositionalEmpty(t *testing.T, cases []positionalEmptyCase) {
	t.Helper()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-positional-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	proj := filepath.Join(root, "home/proj")
	secret := filepath.Join(root, "home/.ssh/id_rsa")
	appendTo(t, secret, "PLANTEDSECRET\n")
	for name, content := range positionalEmptyFiles {
		appendTo(t, filepath.Join(proj, name), content)
	}
	appendTo(t, filepath.Join(proj, "sub/a.txt"), "a\n")
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
			t.Errorf("%q: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
		// Traced with -tags slow only (tracedSlowOnly's rule,
		// docs/development.md).
		if (a.ReadOnly || c.bites) && slowTests {
			runs = append(runs, hostileCase{c.cmd, a})
			bites = append(bites, c.bites)
		}
	}
	for i, bad := range hostileRunAll(t, d, root, runs, filepath.Join(root, "no-script"), secret) {
		c := runs[i]
		switch {
		case c.a.ReadOnly && len(bad) > 0:
			t.Errorf("judged read-only, but %q: %s", c.cmd, strings.Join(bad, "\n\t"))
		case bites[i] && len(bad) == 0:
			t.Errorf("%q: no effect under bash -c: the case proves nothing", c.cmd)
		}
	}
}
