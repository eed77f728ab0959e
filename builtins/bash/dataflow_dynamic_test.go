package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
	buildFixture(t, root)
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
		{cmd: `ls | tee >(awk '{print $1}') >/dev/null; awk '/inet addr/{print $2}' notes.txt`, ro: true},

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
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, c := range cases {
		a := analyze(c.cmd, opts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
		if !a.ReadOnly && !c.bites {
			continue
		}
		// Every case is analysed; each traced run is a strace of a
		// second of CPU, so without -tags slow every other read-only
		// case is traced (the bites always are); .ci/run traces them all
		// (docs/development.md).
		if !slowTests && !c.bites && i%2 != 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			bad := hostileRun(t, d, root, c.cmd, a, evil, secret)
			switch {
			case a.ReadOnly && len(bad) > 0:
				t.Errorf("judged read-only, but %q: %s", c.cmd, strings.Join(bad, "\n\t"))
			case c.bites && len(bad) == 0:
				t.Errorf("%q: the planted names do not bite (no effect): the case proves nothing", c.cmd)
			}
		}()
	}
	wg.Wait()
}
