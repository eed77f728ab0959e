package flagspec

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// awkPipePrograms are awk programs with a "|" (or something that may hide
// one), and whether awkPipes must call them pipes (issue 26: a "|" inside
// a regular expression literal was read as a pipe to a command). Each is
// run with the real gawk and mawk under strace (TestAwkPipesAgainstRealAwk):
// one called no pipe must execute nothing and open nothing for writing;
// one marked runs must execute a command in at least one of them, so the
// table holds real pipes, not only programs the lexer refuses.
var awkPipePrograms = []struct {
	prog       string
	pipe, runs bool
}{
	// A "|" that is text: a regular expression literal after ~, !~, (,
	// ",", &&, ||, !, or at the start of a pattern; a string; a comment;
	// a logical or.
	{prog: `{ if ($2 ~/[Ii]mage|EPS/) print $1}`},
	{prog: `$0 ~ /a|b/`},
	{prog: `/5|7/`},
	{prog: `!/a|b/ { print }`},
	{prog: `$1 ~ /x/ || $2 !~ /y|z/`},
	{prog: `NR > 1 && /a|b/`},
	{prog: `{ gsub(/1|3/, "-"); print }`},
	{prog: `{ n = split($0, a, /x|y/); print n }`},
	{prog: `$1 ~ /5|7/, $2 ~ /1|3/`},
	{prog: `($1 ~ /a|b/) { print }`},
	{prog: `{ print /a|b/ }`},
	{prog: `{ print $0 ~ /a|b/ ? "y" : "n" }`},
	{prog: `BEGIN { if (!("x" ~ /a|b/)) print "no" }`},
	{prog: `{ print ($1 ~ /"|>/) }`},
	{prog: `{ if ($1 ~ /[|]/) print }`},
	{prog: `/a\/|b/`},
	{prog: `{ print "a|b" }`},
	{prog: `{ print $1 "|" $2 }`},
	{prog: `$0 ~ "a|b"`},
	{prog: `BEGIN { FS = "|" } { print $1 }`},
	{prog: `{ print } # a | "cat" comment`},
	{prog: `{ x = $1 || $2; print x }`},
	{prog: `{ print 1 /2/ 1 }`},

	// Pipes to and from commands.
	{prog: `{ print | "cat" }`, pipe: true, runs: true},
	{prog: `{ print $1 | "sort" }`, pipe: true, runs: true},
	{prog: `BEGIN { "date" | getline d; print d }`, pipe: true, runs: true},
	{prog: `{ print |& "cat" }`, pipe: true, runs: true}, // gawk's coprocess; mawk: a syntax error
	{prog: `{ x = 1; print x /2/ 1 | "cat" }`, pipe: true, runs: true},
	{prog: `/5|7/ { print | "cat" }`, pipe: true, runs: true},
	{prog: `{ print /a|b/ | "cat" }`, pipe: true, runs: true},
	{prog: `{ print "\"" | "cat" }`, pipe: true, runs: true},
	{prog: `{ print "|" > "/dev/null"; print | "cat" }`, pipe: true, runs: true},
	{prog: "# a / comment\n{ print | \"cat\" }", pipe: true, runs: true},
	{prog: `$1 ~ /x/ || $2 ~ /y/ { print } { print | "cat" }`, pipe: true, runs: true},
	{prog: `{ print ($1 ~ /"/) | "cat" }`, pipe: true, runs: true},
	// Where the lexing is not certain, a "/" may hide a "|": refused.
	{prog: `{ i++ / 2; print | "cat" }`, pipe: true, runs: true},
	{prog: `{ print length / 2 | "cat" }`, pipe: true, runs: true},
	{prog: `{ if (1) /"/; print | "cat"; x = "/" }`, pipe: true},
	{prog: `{ print /[/]/ | "cat" }`, pipe: true},
	{prog: `{ print "a` + "\n" + `" | "cat" }`, pipe: true},
	{prog: "{ print /a\n/ | \"cat\" }", pipe: true},
}

func TestAwkPipes(t *testing.T) {
	t.Parallel()
	for _, c := range awkPipePrograms {
		if got, why := awkPipes(c.prog); got != c.pipe {
			t.Errorf("%q: pipe = %v (%s), want %v", c.prog, got, why, c.pipe)
		}
		// A program with a pipe is never read-only, and hands its input
		// to a shell (runs data); one without is read-only.
		v := Judge([]string{"awk", "-F:", c.prog, "f"})
		if v.ReadOnly == c.pipe {
			t.Errorf("awk %q: read-only = %v, want %v (%s)", c.prog, v.ReadOnly, !c.pipe, v.Reason)
		}
		if got := awkRunsData(c.prog); got != c.pipe {
			t.Errorf("awk %q: runs data = %v, want %v", c.prog, got, c.pipe)
		}
	}
	// A redirection before a pipe still reports the pipe (the pipe is the
	// stronger finding: it runs its input).
	if pipe, _ := awkPipes(`{ print > "x"; print | "sh" }`); !pipe || !awkRunsData(`{ print > "x"; print | "sh" }`) {
		t.Errorf(`a pipe after print > "x" is not reported`)
	}
	// system(), getline, @ calls: still refused whatever the pipes.
	for _, prog := range []string{`/a|b/ { system("true") }`, `/a|b/ { getline x < "f" }`, `/a|b/ { f = "system"; @f("id") }`} {
		if v := Judge([]string{"awk", prog, "f"}); v.ReadOnly {
			t.Errorf("awk %q: read-only", prog)
		}
	}
}

// straceExec matches an execve line of strace -f output; straceWrite an
// open for writing.
var (
	straceExec  = regexp.MustCompile(`(?m)^\d+\s+execve\(`)
	straceWrite = regexp.MustCompile(`(?m)^\d+\s+(?:open|openat|creat)\(.*(?:O_WRONLY|O_RDWR|O_CREAT)`)
)

// TestAwkPipesAgainstRealAwk runs each program of awkPipePrograms with the
// real gawk and mawk under strace: one awkPipes calls no pipe executes
// nothing after awk itself and opens nothing for writing (apart from
// /dev/null); each marked runs executes a command in at least one of them.
func TestAwkPipesAgainstRealAwk(t *testing.T) {
	t.Parallel()
	strace, err := exec.LookPath("strace")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("strace is not installed; CI is set, so this check fails instead of skipping")
		}
		t.Skip("strace is not installed")
	}
	var awks []string
	for _, awk := range []string{"gawk", "mawk"} {
		if p, err := exec.LookPath(awk); err == nil {
			awks = append(awks, p)
		}
	}
	if len(awks) == 0 {
		t.Skip("neither gawk nor mawk is installed")
	}
	quick := quickFirst{}
	for _, c := range awkPipePrograms {
		// Without -tags slow the first program marked runs is run with
		// every awk (one of them must run its command) and the first
		// without a pipe with the first awk; .ci/run runs each program
		// with every awk (quickFirst, docs/development.md). The
		// programs of TestAwkPipes are judged without running them.
		kind := "pipe"
		if c.runs {
			kind = "runs"
		} else if !c.pipe {
			kind = "clean"
		}
		if kind == "pipe" && !slowTests || !quick.take(kind) {
			continue
		}
		ran := false
		for k, awk := range awks {
			if !slowTests && !c.runs && k > 0 {
				continue
			}
			dir := t.TempDir()
			trace := filepath.Join(dir, "trace")
			work := filepath.Join(dir, "work")
			if err := os.Mkdir(work, 0o755); err != nil {
				t.Fatal(err)
			}
			// --seccomp-bpf: only the traced calls stop awk (the same
			// trace, a fraction of the ptrace stops).
			cmd := exec.Command(strace, "--seccomp-bpf", "-f", "-qq", "-o", trace, "-e", "trace=execve,execveat,open,openat,creat",
				awk, "-F:", c.prog)
			cmd.Dir = work
			cmd.Stdin = strings.NewReader("5 1\n7 3\na|b x\n")
			_ = cmd.Run() // a syntax error is fine: it runs nothing
			b, err := os.ReadFile(trace)
			if err != nil {
				t.Fatalf("%s %q: no trace: %v", awk, c.prog, err)
			}
			execs := len(straceExec.FindAll(b, -1))
			if execs == 0 {
				t.Fatalf("%s %q: the trace shows no execve of awk itself:\n%s", awk, c.prog, b)
			}
			var writes []string
			for _, l := range straceWrite.FindAllString(string(b), -1) {
				if !strings.Contains(l, `"/dev/null"`) {
					writes = append(writes, l)
				}
			}
			ran = ran || execs > 1
			if !c.pipe && (execs > 1 || len(writes) > 0) {
				t.Errorf("%s %q executed %d programs and opened %q for writing, but awkPipes calls it no pipe",
					filepath.Base(awk), c.prog, execs-1, writes)
			}
		}
		if c.runs && !ran {
			t.Errorf("%q: no real awk ran a command, but the table says it does", c.prog)
		}
	}
}
