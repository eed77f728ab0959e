package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// hostileNames are file names planted in the project for the values a
// command follows (issue 26): options (-rf, --output=F, --files0-from=F),
// blanks and newlines that split, a substitution as text, a remote
// archive name (host:file).
var hostileNames = []string{
	"-rf", "-n.txt", "--output=pwned.txt", "--files0-from=list.txt", "a b.txt", "x\ny.txt",
	"$(touch pwned).txt", "`touch pwned`.txt", "ab:c.tar", "-o", "--help",
}

// TestValuesAgainstHostileNames plants hostileNames in the dynamic check's
// fixture and runs, under strace, every command of the table the analysis
// judges read-only: none may write, run another program, open the planted
// secret or print it. The table says which commands must be read-only
// (recall) and which must not; of the latter, bites are run too and must
// show an effect, so that the names are known to bite.
func TestValuesAgainstHostileNames(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-values-")
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
	for _, dir := range []string{proj, filepath.Join(proj, "names")} {
		for _, n := range hostileNames {
			appendTo(t, filepath.Join(dir, n), "TODO hostile\n")
		}
		appendTo(t, filepath.Join(dir, "list.txt"), "notes.txt\x00")
	}
	// Plain names only, for while read (readloop.go).
	appendTo(t, filepath.Join(proj, "plain", "a.txt"), "TODO plain\n")
	appendTo(t, filepath.Join(proj, "plain", "sub", "b.txt"), "TODO plain\n")
	// Blanks inside names, options after them, no newline: "$f" only.
	for _, n := range []string{"a b.txt", "-rf", "--output=pwned.txt", "q --output=pwned.txt"} {
		appendTo(t, filepath.Join(proj, "blank", n), "TODO blank\n")
	}
	if d.root {
		if out, err := exec.Command("chown", "-R", "65534:65534", root).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	cases := []struct {
		cmd       string
		ro, bites bool
	}{
		{cmd: `for f in ./*.txt; do wc -l "$f"; done`, ro: true},
		{cmd: `for f in names/*; do wc -c "$f"; done`, ro: true},
		{cmd: `for f in ./*; do head -n 1 "$f"; done`, ro: true},
		{cmd: `for f in ./*; do cat "$f"; done`, ro: true},
		{cmd: `for f in ./*.txt; do grep -n TODO "$f"; done`, ro: true},
		{cmd: `for f in names/*.txt; do grep -c TODO -- "$f"; done`, ro: true},
		{cmd: `for f in ./*.txt; do uniq "$f"; done`, ro: true},
		{cmd: `for f in ./*.tar; do tar -tf "$f"; done`, ro: true},
		{cmd: `for f in ./*.txt; do [[ -f "$f" ]] && wc -l "$f"; done`, ro: true},
		{cmd: `for d in names .; do ls -la $d; done`, ro: true},
		{cmd: `cat ./*.txt`, ro: true},
		{cmd: `for f in *.txt; do echo "$f: $(wc -l < "$f")"; done`, ro: true},
		{cmd: `wc -l names/*`, ro: true},
		{cmd: `n=$(ls | wc -l); echo "$n"`, ro: true},
		{cmd: `while read -r l; do echo "$l"; done < notes.txt`, ro: true},
		{cmd: `ls | while read -r f; do echo "$f"; done`, ro: true},
		{cmd: `set -euo pipefail; ls | wc -l`, ro: true},
		{cmd: `alias; set -o; shopt -p; hash; trap -p; declare -F; jobs`, ro: true},
		{cmd: `awk '$1 >= 423' notes.txt; awk 'BEGIN { n = 0 } { if (NF > 1) n++ } END { print n }' notes.txt`, ro: true},
		{cmd: `find . -name '*.txt' -exec wc -l {} +`, ro: true},
		{cmd: `find . -type f -print0 | xargs -0 grep -l TODO`, ro: true},
		{cmd: `while IFS= read -r l; do echo "$l"; done < notes.txt; IFS=: read -r a b < notes.txt; echo "$a"`, ro: true},
		{cmd: "echo \"$(basename $(pwd))\"; find `pwd` -name '*.txt' -exec wc -l {} \\;; ls -la $(pwd)/names", ro: true},
		{cmd: `shift; unset x; unset -f ls; set +m; ls -la`, ro: true},
		{cmd: `echo $$ $# $?; head -n $# notes.txt; ps -p $$ -o pid=`, ro: true},
		{cmd: "ps | grep `echo $$`; cat /proc/$$/status; self=$(readlink /proc/$$/fd/1); echo $(( ( $(date -ud '2003-08-02 17:24:33' +'%s') - $(date -ud '1960-04-21' +%s) )/60/60/24 ))", ro: true},
		{cmd: `set x -rf; shopt -s execfail; set -- -o; n=$(ls | wc -l); let n--; echo $((n * 2))`, ro: true},
		// while read over names with a blank and a newline: not whole lines.
		{cmd: `find . -maxdepth 1 -type d | sort | while read -r dir; do n=$(find "$dir" -type d | wc -l); let n--; printf "%4d : %s\n" $n "$dir"; done`},
		{cmd: `find names -type f | while read f; do wc -l "$f"; head -1 $f; done`},
		{cmd: `find plain -type f | sort | while read f; do wc -l "$f"; head -1 $f; n=$(cat "$f" | wc -l); let n--; echo $n; done`, ro: true},
		{cmd: `find plain -maxdepth 1 | while IFS= read -r d; do find "$d" -type d; done`, ro: true},
		{cmd: `find blank -type f | while read -r f; do wc -l "$f"; sort "$f"; done`, ro: true},
		{cmd: `find blank -type f | while read -r f; do sort $f; done`, bites: true},
		{cmd: `ls | tee >(awk '{print $1}') >/dev/null; awk '/inet addr/{print $2}' notes.txt`, ro: true},
		// Programs whose every option is harmless take any word: options
		// (the program's own: an unknown one only makes it fail), several
		// words or none (flagspec.DynamicWordsHarmless).
		{cmd: `dirname $(mktemp -u -t tmp.XXXXXXXXXX); basename $(echo -a -z x y); groups $(echo --version); seq $(echo -w -s , 1 3)`, ro: true},
		{cmd: `printf '%0.s-' $(seq 1 $(ls | wc -l)); printf '%s\n' $(ls); me=$(basename -- "$(ls | head -n 1)")`, ro: true},
		{cmd: `mktemp -u $(echo -d -p . -q --suffix=x); mktemp --dry-run "$(echo -p)XXXX"; rand=$(mktemp --dry-run ${s// /X})`, ro: true},
		{cmd: `mktemp $(echo -p .)`, bites: true},  // creates the file
		{cmd: `mktemp $(echo -- -u)`, bites: true}, // -u is the template
		{cmd: `date $(ls)`},
		// A glob find takes as a pattern is the pattern when it matches
		// nothing now; a match (names, options) keeps it a glob.
		{cmd: `find . -name *.nomatch -print; find names -name “*.pdf” -print`, ro: true},
		{cmd: `find . -name *.zzz -maxdepth 2 -print0 | xargs -0 grep -l TODO`, ro: true},
		{cmd: `find . -name *rf -print`},
		{cmd: `shopt -s nullglob; find . -name *.zzz -print`},
		{cmd: `shopt -s failglob; find . -name *.zzz -print`},
		{cmd: `printf $(echo -v x y)`},
		// Shell state nothing after it sees (ShellPerCall, docs/shell.md "Shell state").
		{cmd: `CDATE=$(date "+%Y-%m-%d %H:%M:%S"); echo "$CDATE"`, ro: true},
		{cmd: `N=$(ls | wc -l); echo "$N files"`, ro: true},
		{cmd: `CDATE=$(date); N=$(ls | wc -l)`}, // ls and wc see CDATE if the environment exports it
		{cmd: `export JAVA_HOME=$(readlink -f /usr/bin/java | sed "s:bin/java::")`, ro: true},
		{cmd: `read -r -s SSHPASS < notes.txt; echo hi`, ro: true},
		{cmd: `GIT_DIR=/tmp/x; echo hi`, ro: true},
		{cmd: `alias cleanup='rm -Rf -- notes.txt names ~'`, ro: true},
		{cmd: `ls; cd "$(echo names)"`, ro: true},
		{cmd: `(export GIT_DIR=/tmp/x); ls | USERS=$(cat)`, ro: true},
		{cmd: `f() { local x=$(date); echo $x; }; MAPPER=$(mktemp -up /dev/mapper)`, ro: true},
		{cmd: `unset FOO BAR`, ro: true},
		{cmd: `declare FOO=bar`, ro: true},

		// The names turn into options, several words or a remote archive.
		{cmd: `for f in *; do sort "$f"; done`, bites: true}, // sort --output=pwned.txt
		{cmd: `for f in *.txt; do wc -l "$f"; done`},
		{cmd: `for f in *; do cat "$f"; done`},
		{cmd: `sort *`, bites: true},
		{cmd: `uniq ./*.txt`, bites: true}, // uniq IN OUT writes OUT
		{cmd: `for f in *.txt; do wc -l $f; done`},
		{cmd: `for f in *; do tar -tf "$f"; done`},
		{cmd: `for f in *; do rm "$f"; done`},
		{cmd: `ls | while read -r f; do wc -l "$f"; done`},
		{cmd: `find . -type f | xargs wc -l`},
		{cmd: `ls > l; xargs cat < l`},             // xargs fed from a file the command wrote
		{cmd: `find . -exec sort {} \;`, ro: true}, // ./--output=pwned.txt is a file
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
		if !a.ReadOnly && !c.bites {
			continue
		}
		// Every case is analysed; .ci/run (-tags slow) traces every one
		// (tracedSlowOnly, docs/development.md), dynamicBatch to a
		// strace run (hostileRunAll).
		if !quick.take(biteKind(c.bites)) {
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

// TestXargsLinesAgainstHostileNames: find ROOT | xargs CMD without -0 is
// followed only when no name below ROOT holds a character xargs splits at
// or removes (issue 26). Each bad name is planted alone in a tree of its
// own; the analysis must refuse every consumer there, and the bites (a
// blank or newline before --output=F turns into sort's option) are run to
// show the names bite. In the plain tree (names such as -rf and
// --output=F, which stay behind the root) every read-only consumer is run
// under strace: none may write, run another program or open the secret.
func TestXargsLinesAgainstHostileNames(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-xargs-")
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
	bad := []string{"q --output=pwned.txt", "q\t--output=pwned.txt", "q\n--output=pwned.txt", "q\v--output=pwned.txt",
		"q\r", "it's", `say "x"`, `back\slash`, "caf\u00e9", "\x1b[31m"}
	for i, n := range bad {
		appendTo(t, filepath.Join(proj, "bad"+string(rune('a'+i)), "a.txt"), "TODO\n")
		appendTo(t, filepath.Join(proj, "bad"+string(rune('a'+i)), "sub", n), "TODO hostile\n")
	}
	// A FIFO blocks the program handed its name (cat, grep).
	appendTo(t, filepath.Join(proj, "fifo", "a.txt"), "TODO\n")
	if err := syscall.Mkfifo(filepath.Join(proj, "fifo", "p"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.txt", "-rf", "--output=pwned.txt", "-n", "sub/--files0-from=list.txt", "sub/b.txt"} {
		appendTo(t, filepath.Join(proj, "plain", n), "TODO plain\n")
	}
	if d.root {
		if out, err := exec.Command("chown", "-R", "65534:65534", root).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	consumers := []string{"xargs wc -l", "xargs cat", "xargs grep -l TODO", "xargs sort", "xargs -n 1 head -n 1", "xargs -I{} wc -c {}", "xargs"}
	type run struct {
		cmd       string
		ro, bites bool
	}
	var cases []run
	for _, c := range consumers {
		cases = append(cases, run{cmd: "find plain -type f | " + c, ro: true}, run{cmd: "find plain | " + c, ro: true})
		for i := range bad {
			// xargs alone runs echo: any word it appends is harmless
			// (xargsAppendsText).
			cases = append(cases, run{cmd: "find bad" + string(rune('a'+i)) + " -type f | " + c,
				ro: c == "xargs", bites: c == "xargs sort" && i < 3})
		}
	}
	cases = append(cases,
		run{cmd: "find fifo | xargs cat"},
		// find prints nothing below -maxdepth: the bad names there are not seen.
		run{cmd: "find bada -maxdepth 1 -type f | xargs cat", ro: true},
		run{cmd: "find bada -maxdepth 2 -type f | xargs cat"},
		run{cmd: "find fifo | xargs grep -l TODO"},
		run{cmd: "find plain -type f | xargs rm"},
		run{cmd: "find plain -type f | xargs sed -i s/TODO/x/"},
		run{cmd: "find plain -type f | xargs -I{} sh -c 'cat {}'"},
		run{cmd: "find plain -type f > list; cat list | xargs cat"},
		run{cmd: "cat list | xargs cat"},
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

// TestValuesNamingAnotherHost: tar -f and cpio -F read "host:file" (a
// colon before any slash) as an archive on that host and run rsh to reach
// it. A value judged as "./name" (pathMark, a bare name that plainLead
// passes) must not be one: bare names from ls and globs hold no slash, so
// a colon anywhere is before it; find's paths start with its starting
// point, whose first component (as written, or a name a glob starting
// point matches) may hold one (issue 26, red team: tar -tf "$(ls)" beside
// localhost:x.tar, find */ -exec tar -tf {} \; over localhost:d/, and
// touch localhost:x.tar; tar -tf "$(ls -t | head -n 1)" in acceptEdits,
// each ran /usr/bin/rsh localhost /usr/sbin/rmt). The bites are run under
// strace and must take that path; the read-only controls must not.
func TestValuesNamingAnotherHost(t *testing.T) {
	t.Parallel()
	root, err := os.MkdirTemp("", "permopa-hosts-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	d, why := newDynamicTracer()
	if d != nil {
		copyFixture(t, d, root)
	}
	proj := filepath.Join(root, "home/proj")
	for _, n := range []string{"hosts/localhost:x.tar", "hostdirs/localhost:d/x.tar", "plainar/a.tar", "plainar/sub/b.tar"} {
		appendTo(t, filepath.Join(proj, n), "")
	}
	cases := []struct {
		cmd   string
		ro    bool
		leaf  string // judge this leaf, not the command (a write beside it)
		bites bool   // tar tries rsh when run
	}{
		{cmd: `cd hosts && tar -tf "$(ls)"`, bites: true},
		{cmd: `cd hosts && tar -tvf "$(ls -t | head -n 1)"`, bites: true},
		{cmd: `cd hosts && ls | xargs -I{} tar -tf {}`, bites: true},
		{cmd: `cd hosts && cpio -it -F "$(ls)"`},
		{cmd: `cd hostdirs && find */ -name '*.tar' -exec tar -tf {} \;`, bites: true},
		{cmd: `cd hostdirs && tar -tf "$(find */ -name '*.tar')"`, bites: true},
		{cmd: `cd hostdirs && find localhost:d -name '*.tar' -exec tar -tf {} \;`, bites: true},
		{cmd: `cd hostdirs && find localhost:d/ -name '*.tar' -print0 | xargs -0 -I{} tar -tf {}`, bites: true},
		{cmd: `cd hostdirs && find localhost:d -name '*.tar' | xargs -I{} tar -tf {}`, bites: true},
		// Created by the same command: judged without the listing.
		{cmd: `cd plainar && touch localhost:y.tar && tar -tf "$(ls -t | head -n 1)"`, leaf: "tar"},
		{cmd: `cd plainar && mkdir -p localhost:e && find */ -name '*.tar' -exec tar -tf {} \;`, leaf: "tar"},
		{cmd: `cd plainar && touch localhost:y.tar && ls | xargs -I{} tar -tf {}`, leaf: "tar"},
		// Controls: no colon before a slash.
		{cmd: `cd plainar && tar -tf "$(ls -t | head -n 1)" && ls | xargs -I{} tar -tf {}`, ro: true},
		{cmd: `cd plainar && find */ -name '*.tar' -exec tar -tf {} \;`, ro: true},
		{cmd: `cd hostdirs && find . -name '*.tar' -exec tar -tf {} \;`, ro: true},
		{cmd: `find hostdirs -name '*.tar' -exec tar -tf {} \;; tar -tf "$(find hostdirs -name '*.tar')"`, ro: true},
		{cmd: `cd plainar && mkdir -p e && find */ -name '*.tar' -exec tar -tf {} \;`, leaf: "tar", ro: true},
	}
	opts := realWorldOpts(root)
	var jobs []tracedJob
	var traced []int
	quick := quickFirst{}
	for i, c := range cases {
		a := analyze(c.cmd, opts)
		got, why := a.ReadOnly, strings.Join(a.NotReadOnly, "; ")
		if c.leaf != "" {
			found := false
			for _, lf := range a.Leaves {
				if lf.Program == c.leaf {
					found = true
					got, why = lf.ReadOnly, lf.Reason
				}
			}
			if !found {
				t.Errorf("%q: no leaf %s", c.cmd, c.leaf)
			}
		}
		if got != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)", c.cmd, got, c.ro, why)
		}
		// Every case is analysed; without -tags slow the first that
		// bites and the first read-only control are traced; .ci/run
		// traces them all (quickFirst, docs/development.md).
		if (c.bites || c.ro && c.leaf == "") && quick.take(biteKind(c.bites)) {
			traced = append(traced, i)
			jobs = append(jobs, tracedJob{cmd: c.cmd, inspect: func(procs map[int]string) []string {
				var found []string
				for _, f := range procs {
					b, _ := os.ReadFile(f)
					for _, line := range strings.Split(string(b), "\n") {
						if strings.HasPrefix(line, "execve(") && strings.Contains(line, `rsh"`) {
							found = append(found, abbrev(line))
						}
					}
				}
				return found
			}})
		}
	}
	if d == nil {
		proofUnavailable(t, why)
	}
	if d.root {
		if out, err := exec.Command("chown", "-R", "65534:65534", root).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	for k, res := range d.traceAll(t, root, jobs) {
		c := cases[traced[k]]
		// As nobody (the tracer's user when the test runs as root), tar's
		// child drops its groups before it executes rsh, and initgroups
		// fails: its message is the remote path taken.
		remote := len(res.inspected) > 0 || strings.Contains(res.output, "initgroups")
		switch {
		case c.bites && !remote:
			t.Errorf("%q: tar tried no rsh: the case proves nothing (%s)", c.cmd, res.output)
		case c.ro && remote:
			t.Errorf("judged read-only, but %q tries rsh: %s %s", c.cmd, strings.Join(res.inspected, "; "), res.output)
		}
	}
}
