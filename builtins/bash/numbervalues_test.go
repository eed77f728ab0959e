package bash

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/builtins/paths"
)

// TestShellNumbers: the shell's own numbers ($$, $#, $?) reach a program
// through echo in a substitution, /proc/$$/… is the shell's process
// directory, judged as /proc/self/…, and date -d 'LITERAL' is a number in
// arithmetic only (issue 26, numbervalues.go). Every other special
// parameter, producer and path keeps the caution of a word only known at
// run time.
func TestShellNumbers(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	proj, home := substFixture(t, root)
	opts := Options{Cwd: proj, Home: home, ShellPerCall: true}
	for _, c := range []struct {
		cmd   string
		ro    bool
		reads string // a read the analysis must name
	}{
		{cmd: "ps | grep `echo $$` | awk '{ print $4 }'", ro: true},
		{cmd: `ps | grep "$(echo $$)"`, ro: true},
		{cmd: `grep "$(echo $# $?)" f`, ro: true},
		{cmd: `grep $(echo $# $?) f`}, // two words: the second is a file to read
		{cmd: `grep $(echo 12) f`, ro: true},
		{cmd: "pstree -sp $$", ro: true},
		// Not the shell's numbers: may be anything, an option included.
		{cmd: `grep $(echo $0) f`},
		{cmd: `grep $(echo $_) f`},
		{cmd: `grep $(echo $*) f`},
		{cmd: `grep $(echo "$@") f`},
		{cmd: `grep $(echo $!) f`},     // empty without a background job
		{cmd: `grep $(echo ${!x}) f`},  // indirection
		{cmd: `grep $(echo ${#x}) f`},  // a length, but echo's words are checked as written
		{cmd: `grep $(echo ${x#1}) f`}, // a value with a prefix removed
		{cmd: `grep $(echo $PPID) f`},
		{cmd: `grep $(echo -n $$) f`},
		{cmd: `grep $(echo $$ -e) f`},
		{cmd: `grep $(echo $$ > x) f`},
		{cmd: `echo() { printf -- '-r /'; }; grep $(echo $$) f`},
		{cmd: `IFS=0123456789; grep $(echo $$) f`},
		// /proc/$$/…: the shell's own process, as /proc/self/….
		{cmd: `SELF=$(readlink /proc/$$/fd/255)`, ro: true, reads: "/proc/self/fd/255"}, // the end of a shell per call
		{cmd: `self=$(readlink /proc/$$/fd/255)`, ro: true, reads: "/proc/self/fd/255"},
		{cmd: `cat /proc/$$/status`, ro: true, reads: "/proc/self/status"},
		{cmd: `cat "/proc/${$}/cmdline"`, ro: true, reads: "/proc/self/cmdline"},
		{cmd: `cat /proc/$$/environ`, ro: true, reads: "/proc/self/environ"}, // a credential read: the policy's
		{cmd: `cat /proc/$$/cwd/x`},
		{cmd: `cat /proc/$$/task/1/cwd/x`},
		{cmd: `cat /proc/$$/root/etc/passwd`},
		{cmd: `cat /proc/$$/../1/environ`},
		{cmd: `cat /proc/$#/environ`},
		{cmd: `cat /proc/$?/status`},
		{cmd: `cat /proc/$$$$/status`},
		{cmd: `cat /proc/1$$/status`},
		{cmd: `cat /x/proc/$$/status`},
		{cmd: `cat /proc/$$/$x`},
		{cmd: `IFS=1; cat /proc/$$/status`},
		// date -d with a literal date: a number in arithmetic only.
		{cmd: `echo $(( ( $(date -ud '2003-08-02 17:24:33' +'%s') - $(date -ud '2003-04-21 22:55:02' +'%s') )/60/60/24 )) days`, ro: true},
		{cmd: `echo $(( $(date --date='1 day ago' +%s) + $(date -d@5 +%s) ))`, ro: true},
		{cmd: `echo $(( $(date -d now +%Y) ))`, ro: true},
		{cmd: `grep $(date -d 1960-01-01 +%s) f`},        // -315619200: an option
		{cmd: `echo $(( $(date -d 'TZ="x" now' +%s) ))`}, // opens x as a time zone
		{cmd: `echo $(( $(date -d "$d" +%s) ))`},         // not literal
		{cmd: `echo $(( $(date -d now -d now +%s) ))`},   // twice
		{cmd: `echo $(( $(date -d now +%b) ))`},          // a name arithmetic evaluates
		{cmd: `echo $(( $(date -f dates +%s) ))`},        // a file of dates
		{cmd: `echo $(( $(date -d now +%s -r f) ))`},     // another option
		{cmd: `date() { echo 'a[$(rm x)]'; }; echo $(( $(date -d now +%s) ))`},
	} {
		a := analyze(c.cmd, opts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
		if c.reads != "" && !namesRead(a, c.reads) {
			t.Errorf("%q: reads %q, want %s among them", c.cmd, a.Reads, c.reads)
		}
	}
}

// TestShellNumbersAgainstBash: what the rows above take from bash 5 holds
// for the real bash: $$, $# and $? are decimal digits at the top, in a
// subshell, a function, a substitution and under set -u, with PPID and
// hostile values in the environment; $! is empty without a background
// job (an error under set -u); /proc/$$ is the shell's process directory;
// date -d gives a negative %s before 1970 and nothing for a date it
// cannot read.
func TestShellNumbersAgainstBash(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	run := func(script string, env ...string) (string, error) {
		cmd := exec.Command(bash, "-c", script, "-rf", "--output=x")
		cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}, env...)
		cmd.Dir = t.TempDir()
		out, err := cmd.Output()
		return string(out), err
	}
	digits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	for _, script := range []string{
		`echo $$ $# $?`,
		`set -u; echo $$ $# $?`,
		`f() { echo $$ $# $?; }; f -x 'a b'`,
		`(echo $$ $# $?)`,
		`echo $(echo $$ $# $?)`,
		`false; echo $$ $# $?`,
		`set -- -rf; echo $$ $# $?`,
	} {
		out, err := run(script, "BASHPID=-1", "PPID=-rf")
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		for _, f := range strings.Fields(out) {
			if !digits(f) {
				t.Errorf("%s: %q holds %q, not digits", script, out, f)
			}
		}
		if len(strings.Fields(out)) != 3 {
			t.Errorf("%s: %q, want three numbers", script, out)
		}
	}
	if out, err := run(`echo "[$!]"`); err != nil || out != "[]\n" {
		t.Errorf("$! without a job: %q, %v; want it empty", out, err)
	}
	if _, err := run(`set -u; echo $!`); err == nil {
		t.Errorf("$! under set -u without a job: no error")
	}
	if out, err := run(`readlink /proc/$$/exe; true`); err != nil || filepath.Base(strings.TrimSpace(out)) != "bash" {
		t.Errorf("/proc/$$ is not the shell's: %q, %v", out, err)
	}
	date, err := exec.LookPath("date")
	if err != nil {
		t.Skip("no date")
	}
	out, err := exec.Command(date, "-ud", "1960-01-01", "+%s").Output()
	if err != nil || !strings.HasPrefix(string(out), "-") {
		t.Errorf("date -d 1960-01-01 +%%s: %q, %v; want a negative number (an option as a word)", out, err)
	}
	out, _ = exec.Command(date, "-ud", "no such date", "+%s").Output()
	if len(out) != 0 {
		t.Errorf("date -d with a date it cannot read printed %q, want nothing", out)
	}
}

// TestNumberVariables: arithmetic on a variable is read-only only where
// the variable holds a number: a bare n=NUMBER before it in the same list
// or an enclosing one, and no assignment anywhere in the command that
// may store anything else (issue 26, numbervalues.go).
func TestNumberVariables(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	proj, home := substFixture(t, root)
	opts := Options{Cwd: proj, Home: home}
	for _, c := range []struct {
		cmd string
		ro  bool
	}{
		{`n=$(ls | wc -l); let n--; echo $n`, true},
		{`n=$(wc -l < a.php); (( n-- )); echo $n`, true},
		{`n=5; echo $((n - 1)) $(( $n * 2 ))`, true},
		{`n="$(date +%s)"; let n-=5; echo $n`, true},
		{`n=$(( 3 + 4 )); let n++; echo $n`, true},
		{`n=1; for f in a b; do let n++; done; echo $n`, true},
		{`s=$(( $(date -ud '2003-08-02' +%s) - 5 )); echo $((s/60))`, true},
		// A variable from the environment, or not known to hold a number.
		{`let n--; echo $n`, false},
		{`echo $((x))`, false},
		{`let n--; n=$(ls | wc -l)`, false},
		{`n=$(cat a.php); let n--`, false},
		{`n=$(ls | wc -l); n=$(cat a.php); let n--`, false},
		{`n=$(ls | wc -l); n+=1; let n--`, false},
		{`n=$(ls | wc -l); read n; let n--`, false},
		{`n=$(ls | wc -l); printf -v n x; let n--`, false},
		{`n=$(ls | wc -l); printf "$f" n; let n--`, false},
		{`n=$(ls | wc -l); unset n; let n--`, false},
		{`n=$(ls | wc -l); for n in x; do :; done; let n--`, false},
		{`n=$(ls | wc -l); : ${n:=a[1]}; let n--`, false},
		{`n=$(ls | wc -l); declare -n r=n; let n--`, false},
		{`n=$(ls | wc -l); eval x=1; let n--`, false},
		{`n=$(ls | wc -l); source ./env.sh; let n--`, false},
		{`n=$(ls | wc -l); trap 'n=x' DEBUG; let n--`, false},
		{`n=$(ls | wc -l) & let n--`, false},
		{`if true; then n=5; fi; let n--`, false},
		{`n=5 true; let n--`, false},
		{`n=$(ls | wc -l); sh -c 'let n--'`, false},
		{`n=$(ls | wc -l); let n*=2`, false},  // let's words are globbed
		{`n=$(ls | wc -l); let "n--"`, false}, // quoted: not modelled
		{`n=$(ls | wc -l); let n-- 'a[$(rm x)]'=1`, false},
		{`n=$(ls | wc -l); let x=n`, false}, // assigns x, which is not known to hold a number
		{`n=$(ls | wc -l); echo $(( n + m ))`, false},
		{`N=$(ls | wc -l); let N--`, false}, // not a shell-local name
		{`n=$(date +%b); let n--`, false},   // a month name, evaluated
		// A date given: a sign maybe, still a number to arithmetic.
		{`n=$(date -d 1960-01-01 +%s); let n--`, true},
		{`date() { echo 'a[$(rm x)]'; }; n=$(date +%s); let n--`, false},
	} {
		a := analyze(c.cmd, opts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
	}
}

// TestReadLoopValues: while read NAME fed by find's paths (or ls's names)
// binds NAME to one of them when every name below the roots reaches read
// whole (issue 26, readloop.go); hostile names, other readers, other
// producers and bodies that change NAME keep the caution.
func TestReadLoopValues(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	proj, home := substFixture(t, root)
	appendTo(t, filepath.Join(proj, "bs", `.\.`, "x"), "x\n")
	appendTo(t, filepath.Join(proj, "gl", "[x]"), "x\n")
	appendTo(t, filepath.Join(proj, "tb", ".. ", "x"), "x\n")
	opts := Options{Cwd: proj, Home: home}
	for _, c := range []struct {
		cmd string
		ro  bool
	}{
		{`find web -type f | while read -r f; do cat "$f"; done`, true},
		{`find web -type f | while read f; do wc -l $f; done`, true},
		{`find web -name '*.php' | sort | while IFS= read -r f; do grep -n TODO "$f"; done`, true},
		{`find -maxdepth 1 -type d | sort | while read -r dir; do n=$(find "$dir" -type d | wc -l); let n--; printf "%4d : %s\n" $n "$dir"; done`, true},
		{`find web plain -type f | while read -r f; do head -1 "$f"; done`, true}, // ./plain/-rf is a path, not an option
		// A blank or tab inside a name, a glob character: read keeps
		// them, "$f" is one word; $f would split or glob.
		{`find bada -type f | while read -r f; do cat "$f"; done`, true},
		{`find badb -type f | while read -r f; do cat "$f"; done`, true},
		{`find gl -type f | while read -r f; do cat "$f"; done`, true},
		{`find bada -type f | while read -r f; do cat $f; done`, false},
		{`find gl -type f | while read -r f; do cat $f; done`, false},
		// Names read would change: a newline (badc: two lines), a
		// backslash without -r (".\." is ".."), a blank at the end
		// ("tb/.. " is read as "tb/..", outside the root).
		{`find . -type f | while read -r f; do cat "$f"; done`, false},
		{`find badc -type f | while read -r f; do cat "$f"; done`, false},
		{`find bs -type f | while read f; do cat "$f"; done`, false},
		{`find bs -type f | while read -r f; do cat "$f"; done`, true},
		{`find tb | while read -r f; do ls "$f"; done`, false},
		// Other readers and producers.
		{`find web | while read -d '' f; do cat "$f"; done`, false},
		{`find web | while read -r a b; do cat "$a"; done`, false},
		{`find web | while read -n 3 f; do cat "$f"; done`, false},
		{`find web | while read -u 3 f; do cat "$f"; done`, false},
		{`find web | while read -r F; do cat "$F"; done`, false},
		{`find web | while IFS=/ read -r f; do cat "$f"; done`, false},
		{`IFS=/; find web | while read -r f; do cat "$f"; done`, false},
		{`find web | until read -r f; do cat "$f"; done`, false},
		{`find web | while read -r f && true; do cat "$f"; done`, false},
		{`find web -print0 | while read -r f; do cat "$f"; done`, false},
		{`find web -printf '%p\n' | while read -r f; do cat "$f"; done`, false},
		{`find $d | while read -r f; do cat "$f"; done`, false},
		{`cat list.txt | while read -r f; do cat "$f"; done`, false},
		{`while read -r f; do cat "$f"; done < list.txt`, false},
		{`git ls-files | while read -r f; do cat "$f"; done`, false},
		{`find web | sed s/x/y/ | while read -r f; do cat "$f"; done`, false},
		{`find web |& while read -r f; do cat "$f"; done`, false},
		// The body changes the variable, or writes names.
		{`find web | while read -r f; do f=/etc/shadow; cat "$f"; done`, false},
		{`find web | while read -r f; do read -r f; cat "$f"; done`, false},
		{`find web | while read -r f; do printf -v f x; cat "$f"; done`, false},
		{`find web | while read -r f; do local f; cat "$f"; done`, false},
		{`find web | while read -r f; do touch "web/a -o x"; cat "$f"; done`, false},
		{`read() { :; }; find web | while read -r f; do cat "$f"; done`, false},
		{`shopt -s extglob; find web | while read -r f; do cat $f; done`, false},
	} {
		a := analyze(c.cmd, opts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
	}
	// A line is judged as find's roots: a project holding a link to
	// ~/.ssh is a credential tree for the policy, as ~/.ssh is.
	for _, cmd := range []string{`find linked | while read -r f; do cat "$f"; done`, `find ~/.ssh | while read -r f; do cat "$f"; done`} {
		a := analyze(cmd, opts)
		if !a.ReadOnly {
			t.Errorf("%q: not read-only (%s); the credential check is the policy's", cmd, strings.Join(a.NotReadOnly, "; "))
		}
		cred := false
		for _, tr := range a.RecursiveReads {
			if !tr.NamesOnly {
				v := (*paths.Classifier)(nil).CheckTree(paths.Tree{Root: paths.ResolvePath(tr.Path, "/", home), Hidden: tr.Hidden}, home, nil)
				cred = cred || v.Credential
			}
		}
		if !cred {
			t.Errorf("%q: the trees it reads (%v) do not reach the credential ~/.ssh/id_rsa", cmd, a.RecursiveReads)
		}
	}
}

// TestReadLoopAgainstBash: what readloop.go guards against happens in
// bash: read without -r turns a directory named `.\.` into "..", a name
// holding a newline is read as two lines, and a blank ending a line is
// trimmed (a directory ".. " is read as "..").
func TestReadLoopAgainstBash(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	appendTo(t, filepath.Join(dir, "d", `.\.`, "x"), "x\n")
	appendTo(t, filepath.Join(dir, "n", "a\n", "etc"), "x\n")
	appendTo(t, filepath.Join(dir, "t", ".. ", "x"), "x\n")
	cmd := exec.Command(bash, "-c", `find d -type f | while read f; do echo "[$f]"; done; find n -type f | while read -r f; do echo "[$f]"; done; find t -maxdepth 1 | while read -r f; do echo "[$f]"; done`)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[d/../x]", "[/etc]", "[t/..]"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("bash printed %q, want %s among its lines", out, want)
		}
	}
}
