package bash

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
