package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
		{`find . -exec sh -c 'cat {}' \;`, true, "/home/u/proj hidden"}, // pasted into the script: pastescript.go
		{`find . -exec sh -c '{}' \;`, false, ""},
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
		{`find "$(cat roots)" -exec cat {} \;`, false, ""},
		{`find "$(pwd)" -exec cat {} \;`, true, ""}, // the working directory (substPwd)
		{`find -files0-from list -exec cat {} \;`, false, ""},
		// xargs without -0 splits names at blanks and quotes: a file
		// named "a /etc/shadow" gives /etc/shadow, "a -rf" gives -rf;
		// followed only when no name below the root holds such a
		// character (here the root does not exist: find prints nothing;
		// TestXargsSplitsFindPathsForReal and
		// TestXargsLinesAgainstHostileNames check real trees).
		{`find . -name '*.c' | xargs grep -l main`, true, "/home/u/proj hidden"},
		{`find . -print | xargs cat`, true, ""},
		{`find . | xargs -n 1 wc -l`, true, ""},
		{`find . | xargs -I{} grep -l x {}`, true, ""},
		{`find . | xargs`, true, ""},
		{`find "$HOME" -name '*.c' | xargs grep -l x`, true, "/home/u hidden"},
		{`find . | xargs rm`, false, ""},
		{`find . | xargs sed -i s/a/b/`, false, ""},
		{`find . | xargs -I{} sh -c 'cat {}'`, true, ""},
		{`find . | xargs -I{} sh -c 'cat {}; {}'`, false, ""},
		// -d '\n' splits at newlines only (findpipe.go): followed when no
		// name holds a newline; another delimiter, or -0 with -d, is not.
		{`find . | xargs -d '\n' cat`, true, ""},
		{`find . | xargs -d x cat`, false, ""},
		{`find . | xargs -d '\t' cat`, false, ""},
		{`find . | xargs -0 -d '\n' cat`, false, ""},
		{`find . | xargs -d '\n' -0 cat`, false, ""},
		{`find . | xargs -d '\n' -d '\n' cat`, false, ""},
		{`find . | xargs -E x cat`, false, ""},
		{`find . | xargs -a list cat`, false, ""},
		{`find . -ls | xargs cat`, false, ""},
		{`find . -printf '%p\n' | xargs cat`, false, ""},
		{`find "a b" | xargs cat`, false, ""},
		{`find "a'b" | xargs cat`, false, ""},
		{`cat list | xargs cat`, false, ""},
		{`ls | xargs cat`, false, ""},
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
		{`find . -print0 | xargs -0 -I{} sh -c 'cat {}'`, true, ""},
		{`find . -print0 | xargs -0 -I{} sh -c 'cat {} > {}.bak'`, false, ""},
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
	// The analysis walks the tree at decision time: names with blanks
	// keep plain xargs from being followed; a tree without them does not.
	opts := Options{Cwd: dir, Home: t.TempDir()}
	for _, cmd := range []string{`find . -type f | xargs cat`, `find . -type f -print0 | xargs -0 cat`} {
		if got, want := analyze(cmd, opts).ReadOnly, strings.Contains(cmd, "-0"); got != want {
			t.Errorf("%q: read-only = %v, want %v", cmd, got, want)
		}
	}
	if got := analyze(`find b -type f | xargs cat`, opts).ReadOnly; got {
		t.Errorf("find b | xargs cat with b/\"x -rf\": read-only")
	}
	if err := os.MkdirAll(filepath.Join(dir, "c/d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := analyze(`find c -type f | xargs cat`, opts).ReadOnly; !got {
		t.Errorf("find c | xargs cat with plain names: not read-only")
	}
	// The analysis is cached while the directories it walked are
	// unchanged: a name created later, however deep, is seen.
	if got := Analyze(`find c -type f | xargs cat`, opts).ReadOnly; !got {
		t.Errorf("find c | xargs cat with plain names (cached): not read-only")
	}
	if err := os.WriteFile(filepath.Join(dir, "c/d/x -rf"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Analyze(`find c -type f | xargs cat`, opts).ReadOnly; got {
		t.Errorf("find c | xargs cat after c/d/\"x -rf\" was created: still read-only (stale cached analysis)")
	}
}

// Values inside one command (issue 26): loop variables over static words
// and globs, variables assigned from read-only substitutions, read loops,
// and the shell-state builtins. reads is the analysis' Reads joined by
// "; " ("" unchecked).
func TestValuesInsideOneCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cmd   string
		ro    bool
		reads string
	}{
		// for over globs: "$f" is one name the glob matches (or the
		// pattern itself): judged as the glob, read as the glob.
		{`for f in ./*.txt; do wc -l "$f"; done`, true, "/home/u/proj/*.txt"},
		// A glob that starts with a metacharacter matches -rf.txt and
		// --files0-from=list.txt: unknown, though wc takes them harmlessly
		// as far as writes go (TestValuesAgainstHostileNames).
		{`for f in *.txt; do wc -l "$f"; done`, false, ""},
		{`for f in src/*.go; do grep -n x "$f"; done`, true, "/home/u/proj/src/*.go"},
		{`for f in ./*.md; do head -n 3 -- "$f"; done`, true, "/home/u/proj/*.md"},
		{`for f in ./*.txt; do echo "$f: $(wc -l < "$f")"; done`, true, "/home/u/proj/*.txt"},
		{`for f in *.txt; do echo "$f: $(wc -l < "$f")"; done`, true, "/home/u/proj/*.txt"}, // -rf.txt is a file here
		{`for f in ~/.ssh/*; do wc -c < "$f"; done`, true, "/home/u/.ssh/*"},
		{`for f in *.txt; do wc -l < $f; done`, false, ""}, // unquoted: globbed again
		{`for f in *.txt; do cat > "$f"; done`, false, ""},
		{`for f in *.txt; do cat <> "$f"; done`, false, ""},
		{`for f in ./*.txt; do uniq "$f"; done`, true, ""},               // one word, not two
		{`for f in ~/.ssh/*; do cat "$f"; done`, true, "/home/u/.ssh/*"}, // read-only; a credential read for the policy
		{`for d in src lib; do ls $d; done`, true, "/home/u/proj/src; /home/u/proj/lib"},
		{`for d in src lib; do for f in a b; do cat "$d/$f"; done; done`, false, ""}, // built around: unknown
		{`for f in a b; do for g in c d; do diff "$f" "$g"; done; done`, true, ""},
		{`for f in x; do echo "$(cat "$f")"; done`, true, "/home/u/proj/x"},
		{`for f in src/*.txt; do wc -l "$f"; done | sort -n`, true, ""},
		// Hostile: a name matched by a glob that starts with a
		// metacharacter may be an option (-rf, --output=x).
		{`for f in *; do sort "$f"; done`, false, ""},
		{`for f in *; do rm "$f"; done`, false, ""},
		{`for f in ./*.txt; do grep -f "$f" x; done`, true, ""},
		// A name may hold a colon: tar reads host:file over the network.
		{`for f in *; do tar -tf "$f"; done`, false, ""},
		{`for f in a*; do tar -tf "$f"; done`, false, ""},
		{`tar -tf a*`, false, ""},
		{`for f in ./*.tar; do tar -tf "$f"; done`, true, ""},
		{`tar -tf src/*.tar`, true, ""},
		// Unquoted, a name a glob matches splits at blanks ("a -rf",
		// "x /etc/shadow") and is globbed again.
		{`for f in *.txt; do wc -l $f; done`, false, ""},
		{`for f in src/*.go; do grep -n x $f; done`, false, ""},
		{`for d in "a b" c; do ls $d; done`, false, ""},
		{`for d in 'x*' c; do ls $d; done`, false, ""},
		{`for d in '' c; do ls $d; done`, false, ""},
		// Something else may assign the variable.
		{`for f in ./*.txt; do f=/etc/shadow; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do read f; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do read -r x f; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do printf -v f %s x; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do : ${f:=x}; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do (( f = 1 )); cat "$f"; done`, false, ""},
		{`for f in a b; do for f in $x; do :; done; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do getopts ab f; cat "$f"; done`, false, ""},
		{`for f in a b; do source ./lib.sh; ls "$f"; done`, false, ""},
		{`for f in ./*.txt; do unset f; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do v=f; read "$v"; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do mapfile -t f < x; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do printf -vf %s x; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do builtin read f; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do let f=1; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do echo $(( f++ )); cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do [[ 1 -eq f=2 ]]; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do echo "${a[f=1]}"; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do exec {f}>/dev/null; cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do : ${!x:=y}; cat "$f"; done`, false, ""},
		{`trap 'f=/etc/shadow' DEBUG; for f in ./*.txt; do cat "$f"; done`, false, ""},
		{`for f in ./*.txt; do [[ -f "$f" ]] && wc -l "$f"; done`, true, ""},
		{`for f in src/*.txt; do test -s "$f" && head -n 1 "$f"; done`, true, ""},
		{`declare -n r=f; for f in ./*.txt; do r=/etc/shadow; cat "$f"; done`, false, ""},
		{`for f in *.txt $x; do cat "$f"; done`, false, ""},
		{`for f in $(ls); do cat "$f"; done`, false, ""},
		{`for PATH in *.txt; do cat "$PATH"; done`, false, ""},
		{`for f in a b; do bash -c 'cat "$f"'; done`, false, ""}, // another shell's f
		{`for f in a b; do sh -c "cat $f"; done`, false, ""},
		// Globs after a shopt that changes them (dotglob: * matches .env).
		{`shopt -s dotglob; cat *`, false, ""},
		{`shopt -s globstar; wc -l **/*.go`, false, ""},
		{`cat *.txt; shopt -s nullglob`, false, ""},
		{`shopt -s dotglob; for f in *; do cat "$f"; done`, false, ""},
		{`shopt -s nullglob; for f in *.none; do cat "$f"; done`, false, ""},
		{`shopt -s failglob; cat ./*.txt`, false, ""}, // any shopt naming "glob" (mayChangeGlobs)
		// Variables assigned from read-only commands, then used.
		{`n=$(ls | wc -l); echo $n`, true, ""},
		{`n=$(ls | wc -l); echo "files: $n"`, true, ""},
		{`x=3; echo $x`, true, ""},
		{`f=$(ls -t | head -1); cat "$f"`, false, ""}, // text, not a path under a root
		{`n=$(rm -rf x); echo $n`, false, ""},
		{`PATH=/tmp; ls`, false, ""},
		{`LD_PRELOAD=$(ls); ls`, false, ""},
		{`IFS=x; ls`, false, ""},
		{`GLOBIGNORE=x; cat *`, false, ""},
		{`path=/tmp; ls`, false, ""}, // zsh's path is PATH
		{`http_proxy=x; git ls-remote origin`, false, ""},
		{`npm_config_userconfig=x; npm ls`, false, ""},
		// while read: the variable is the producer's text.
		{`while read -r l; do echo "$l"; done < notes.txt`, true, "/home/u/proj/notes.txt"},
		{`ls | while read -r f; do echo "$f"; done`, true, ""},
		{`ls | while read -r f; do wc -l "$f"; done`, false, ""},
		{`while read -r PATH; do ls; done < x`, false, ""},
		{`while read -e l; do :; done`, false, ""},
		// IFS=TEXT before read lasts while read runs.
		{`while IFS= read -r l; do echo "$l"; done < notes.txt`, true, "/home/u/proj/notes.txt"},
		{`IFS=: read -r a b <<< "x:y"; echo "$a"`, true, ""},
		{`IFS=$(rm -rf x) read l`, false, ""},
		{`IFS=$v read l`, false, ""},
		{`IFS=x ls`, false, ""},
		{`IFS= read -e l`, false, ""},
		{`IFS= read PATH`, false, ""},
		{`IFS=/ read a; ls $x`, false, ""},
		{`read() { rm -rf x; }; IFS= read l`, false, ""},
		{`IFS= command read l`, false, ""},
		// Shell state.
		{`set -euo pipefail; ls | wc -l`, true, ""},
		{`set -x; ls`, true, ""},
		{`set -k; ls LD_PRELOAD=x`, false, ""},
		{`set -a; n=1; ls`, false, ""},
		{`set -o posix; ls`, false, ""},
		{`shopt -s expand_aliases; ls`, false, ""},
		{`alias`, true, ""},
		{`alias -p`, true, ""},
		{`alias ls='rm -rf'`, false, ""},
		{`set`, true, ""}, // an environment dump: the policy asks, as for env
		{`declare -p`, true, ""},
		{`hash`, true, ""},
		{`hash -p /tmp/x ls; ls`, false, ""},
		{`trap -p`, true, ""},
		{`trap 'rm -rf x' EXIT`, false, ""},
		{`local x=1; echo $x`, true, ""},
		{`local PATH=/tmp`, false, ""},
		{`export LC_ALL=C; sort x`, true, ""},
		{`export PAGER=x; git log`, false, ""},
		{`export x=1`, false, ""},
		{`true; :`, true, ""},
		// $(pwd) and `pwd`: the working directory, when it is known.
		{`echo "$(basename $(pwd))"`, true, ""},
		{"find `pwd` -name '*.log' -exec grep x {} \\;", true, "/home/u/proj"},
		{`ls "$(pwd)/x"`, true, "/home/u/proj/x"},
		{`cd src && cat $(pwd)/x`, true, "/home/u/proj/src; /home/u/proj/src/x"},
		{`cd /etc && cat $(pwd)/shadow`, true, "/etc; /etc/shadow"}, // the credential rules' to decide
		{`rm -rf $(pwd)`, false, ""},
		{`pwd() { echo -rf; }; ls $(pwd)`, false, ""},
		{`alias pwd='echo -rf'; ls $(pwd)`, false, ""},
		{`ls $(pwd -P)`, false, ""},
		{`ls $(pwd; echo -rf)`, false, ""},
		{`ls $(pwd 2>x)`, false, ""},
		{`cd $x; ls $(pwd)`, false, ""},
		{`IFS=/; ls $(pwd)`, false, ""},
		// $$, $# and $?: decimal digits set by the shell, never an option.
		{`pstree -sp $$`, true, ""},
		{`ps -o pid= -p $$`, true, ""},
		{`head -n $# x`, true, "/home/u/proj/x"},
		{`echo "exit: $?"`, true, ""},
		{`cat $$`, false, ""},           // a file named by the number: not a static path
		{`IFS=0; pstree $$`, false, ""}, // digits in IFS split it
		{`kill $$`, false, ""},
		{`pstree $!`, false, ""},        // may be empty, or any job's
		{`pstree $PPID`, false, ""},     // an environment variable in dash
		{`pstree $(echo $$)`, true, ""}, // echo of the shell's numbers prints digits (numbervalues.go)
		{`pstree $(echo $!)`, false, ""},
		// shift, unset, set +m (flagspec/shell.go).
		{`shift; echo "$1"`, true, ""},
		{`shift 2; cat "$1"`, false, ""}, // "$1" stays unknown
		{`set +m; ls`, true, ""},
		{`unset x; echo $x`, true, ""},
		{`unset -f ls; ls -l`, true, ""},
		{`unset -f ls /bin/ls`, true, ""},
		{`f() { rm -rf x; }; unset -f f; f`, false, ""},
		{`ls() { rm -rf x; }; unset -v ls; ls`, false, ""},
		{`unset PATH; ls`, false, ""},
		{`unset IFS; echo $x`, false, ""},
		{`unset GIT_DIR; git status`, false, ""},
		{`unset -n r; ls`, false, ""},
		{`unset $v; ls`, false, ""},
		{`unset "$v"`, false, ""},
		{`unset 'a[$(rm -rf x)]'`, false, ""},
		{`unset a[$RANDOM%4]`, false, ""},
		{`cd src && ls`, true, ""},
		// awk comparison operators are not redirections.
		{`awk '$1 >= 423' x`, true, ""},
		{`awk 'BEGIN {FS=":"} $4 >= 1000 {print $1}' /etc/passwd`, true, ""},
		{`awk '{ if ($1 > 3) print > "out" }' x`, false, ""},
		// tee into a process substitution: the pipe is no file; the
		// substitution's command is judged as its own leaf.
		{`echo hello world | tee >(awk '{print $2, $1}')`, true, ""},
		{`ls | tee >(cat > out)`, false, ""},
		{`ls | tee >(sh)`, false, ""},
		{`ls | tee >(wc -l) out`, false, ""},
		// A regular expression /inet.../ is not gawk's network file; a
		// data file /inet/tcp/0/HOST/PORT is (it connects).
		{`ifconfig en0 | awk '/inet addr/{print substr($2,6)}'`, true, ""},
		{`gawk '{print}' /inet/tcp/0/127.0.0.1/9`, false, ""},
		{`awk 'BEGIN { f = "/inet/tcp/0/h/80"; print f }'`, false, ""},
	}
	for _, c := range cases {
		a := analyze(c.cmd, conformanceOpts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
		if c.reads != "" {
			var reads []string
			for _, l := range a.Leaves {
				for _, r := range l.Reads {
					if !slices.Contains(reads, r) {
						reads = append(reads, r)
					}
				}
			}
			if got := strings.Join(reads, "; "); got != c.reads {
				t.Errorf("%q: reads %q, want %q", c.cmd, got, c.reads)
			}
		}
	}
	if a := analyze(`set`, conformanceOpts); len(a.Leaves) != 1 || a.Leaves[0].Environment == "" {
		t.Errorf("set: want an environment dump")
	}
	// Deny rules see the value a script sourced in the body may have set.
	a := analyze(`for f in a b; do source ./lib.sh; cat "$f"; done`, conformanceOpts)
	for _, l := range a.Leaves {
		if l.Program == "cat" && !strings.Contains(l.Argv[1], dyn) {
			t.Errorf("cat's operand after source: %q, want a run-time word", l.Argv[1])
		}
	}
}

// A path find supplies lies at most -maxdepth N below its root: a plain
// read of one reaches N+1 levels (the entries of a directory it names); a
// recursive read of one, any depth (issue 26, big roots).
func TestSuppliedPathsDepth(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cmd  string
		want string // path:max_depth of the trees read, sorted
	}{
		{`find / -maxdepth 1 -type f -exec grep -l x {} +`, "/:1 /:2"},
		{`find / -maxdepth 1 -exec grep -r x {} +`, "/:0 /:1 /:2"},
		{`find . -maxdepth 0 -print0 | xargs -0 cat`, "/home/u/proj:1"},
		{`find . -maxdepth 1 -maxdepth 3 -exec cat {} \;`, "/home/u/proj:3 /home/u/proj:4"},
		{`find . -maxdepth x -exec cat {} \;`, "/home/u/proj:0"},
		{`find . -exec cat {} \;`, "/home/u/proj:0"},
	}
	for _, c := range cases {
		a := analyze(c.cmd, conformanceOpts)
		var got []string
		for _, tr := range a.RecursiveReads {
			got = append(got, tr.Path+":"+strconv.Itoa(tr.MaxDepth))
		}
		slices.Sort(got)
		got = slices.Compact(got)
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("%q: trees %q, want %q", c.cmd, s, c.want)
		}
	}
}

// A glob in find's expression is the literal pattern while it matches
// nothing in the working directory; the cached analysis is dropped when a
// name there changes (issue 26).
func TestFindGlobMatchesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := Options{Cwd: dir, Home: t.TempDir()}
	// Letters only: a glob with a dot (*.zz) is one word whatever it
	// matches (findGlobWords).
	cmd := `find . -name *zz -maxdepth 2 -print`
	if a := Analyze(cmd, opts); !a.ReadOnly {
		t.Errorf("%q in an empty directory: not read-only (%s)", cmd, strings.Join(a.NotReadOnly, "; "))
	}
	for _, c := range []string{`shopt -s nullglob; find . -name *zz`, `find . -name [a]*zz`} {
		if analyze(c, opts).ReadOnly {
			t.Errorf("%q: read-only", c)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "-deletezz"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if a := Analyze(cmd, opts); a.ReadOnly {
		t.Errorf("%q once ./-deletezz exists: read-only", cmd)
	}
}
