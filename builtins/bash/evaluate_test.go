package bash

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// evalCase is a command in which bash runs $(CMD) while it evaluates a
// string as arithmetic or as a variable name. CMD is replaced by the
// command that runs: "rm -rf x" for the analysis, a file creation for the
// check with real bash. nosplit cases need a command without blanks.
type evalCase struct {
	tmpl    string
	nosplit bool
	// escaped: the command's blanks are written with a backslash.
	escaped bool
}

// evaluatedStrings is the class "code that runs during expansion": every
// one runs $(CMD) in bash 5 (TestEvaluatedStringsRunInBash checks it).
var evaluatedStrings = []evalCase{
	// test and [: -v resolves a name, subscript included.
	{tmpl: `a=(); test -v 'a[$(CMD)]'`},
	{tmpl: `[ -v 'a[$(CMD)]' ]`},
	{tmpl: `test -v "a[\$(CMD)]"`},
	{tmpl: `test -v $'a[\x24(CMD)]'`},
	{tmpl: `[ ! -v 'a[$(CMD)]' ]`},
	{tmpl: `test -n x -a -v 'a[$(CMD)]'`},
	{tmpl: `builtin test -v 'a[$(CMD)]'`},
	{tmpl: `command [ -v 'a[$(CMD)]' ]`},
	{tmpl: `y=-v; [ "$y" 'a[$(CMD)]' ]`},
	{tmpl: `x='-v a[$(CMD)]'; a=(1); [ $x ]`, nosplit: true},
	{tmpl: `x='a[$(CMD)]'; a=(1); test -v "$x"`},
	{tmpl: `x='a[$(CMD)]'; a=(1); [ -v $x ]`, nosplit: true},
	// [[ ]]: -v, and the operands of the arithmetic comparisons.
	{tmpl: `[[ -v 'a[$(CMD)]' ]]`},
	{tmpl: `[[ -v a[$(CMD)] ]]`},
	{tmpl: `[[ 'a[$(CMD)]' -eq 1 ]]`},
	{tmpl: `x='a[$(CMD)]'; [[ $x -eq 1 ]]`},
	{tmpl: `x='a[$(CMD)]'; [[ x -ge 1 ]]`},
	{tmpl: `[[ -v 'a[b[$(CMD)]]' ]]`},
	// Arithmetic: quotes do not stop expansion, names are evaluated.
	{tmpl: `(( 'a[$(CMD)]' ))`},
	{tmpl: `echo $(( 'a[$(CMD)]' ))`},
	{tmpl: `echo $[ 'a[$(CMD)]' ]`},
	{tmpl: `(( $'a[\x24(CMD)]' ))`},
	{tmpl: `let 'a[$(CMD)]'`},
	{tmpl: `let x='a[$(CMD)]'`},
	{tmpl: `let $'a[\x24(CMD)]'`},
	{tmpl: `x='a[$(CMD)]'; let x`},
	{tmpl: `for (( i='a[$(CMD)]'; 0; )); do :; done`},
	{tmpl: `a=(1); echo ${a['$(CMD)']}`},
	{tmpl: `a=(1); echo ${#a['$(CMD)']}`},
	{tmpl: `a=(1 2); echo ${a[@]:'$(CMD)'}`},
	{tmpl: `x=abc; echo ${x:'$(CMD)'}`},
	{tmpl: `x=abc; y='a[$(CMD)]'; echo ${x:y}`},
	{tmpl: `a['$(CMD)']=1`},
	{tmpl: `a=(['$(CMD)']=1)`},
	{tmpl: `x='a[$(CMD)]'; echo $((x))`},
	{tmpl: `x='a[$(CMD)]'; echo $(($x))`},
	{tmpl: `x=y y='a[$(CMD)]'; echo $(( x ))`},
	{tmpl: `i='a[$(CMD)]'; : $((i++))`},
	{tmpl: `x='a[$(CMD)]'; a=(1 2 3); echo ${a[*]:1:x}`},
	{tmpl: `x='a[$(CMD)]'; case 1 in $((x))) ;; esac`},
	// declare and friends: -i evaluates values, -n names, -a '(...)' elements.
	{tmpl: `declare -i x='a[$(CMD)]'`},
	{tmpl: `declare -i x; x='a[$(CMD)]'`},
	{tmpl: `declare -i x; x+='a[$(CMD)]'`},
	{tmpl: `typeset -i x='a[$(CMD)]'`},
	{tmpl: `f(){ local -i x='a[$(CMD)]'; }; f`},
	{tmpl: `declare 'a[$(CMD)]=1'`},
	{tmpl: `declare -a 'a[$(CMD)]=1'`},
	{tmpl: `f(){ local 'a[$(CMD)]=1'; }; f`},
	{tmpl: `declare -a a='($(CMD))'`},
	{tmpl: `declare -A A='([k]=$(CMD))'`},
	{tmpl: `typeset -a a='(x $(CMD))'`},
	{tmpl: `declare -a a=(x) b='($(CMD))'`},
	{tmpl: `declare -n r='a[$(CMD)]'; echo $r`},
	{tmpl: `declare -n r; r='a[$(CMD)]'; echo $r`},
	{tmpl: `x='a[$(CMD)]'; declare -i y=x`},
	{tmpl: `builtin declare -i x='a[$(CMD)]'`},
	{tmpl: `declare -i x; for x in 'a[$(CMD)]'; do :; done`},
	{tmpl: `declare -ai a; a[0]='x[$(CMD)]'`},
	{tmpl: `declare -ai a=('x[$(CMD)]')`},
	{tmpl: `declare -i a; a=('x[$(CMD)]')`},
	{tmpl: `declare -ai a; a+=('x[$(CMD)]')`},
	// Builtins that assign to a name.
	{tmpl: `printf -v 'a[$(CMD)]' x`},
	{tmpl: `read 'a[$(CMD)]' <<< x`},
	{tmpl: `read x 'a[$(CMD)]' <<< 'x y'`},
	{tmpl: `read -r -p p 'a[$(CMD)]' <<< x`},
	{tmpl: `a=1; unset 'a[$(CMD)]'`},
	{tmpl: `a=(1); unset -v 'a[$(CMD)]'`},
	{tmpl: `sleep 0 & wait -n -p 'a[$(CMD)]'`},
	{tmpl: `: {a['$(CMD)']}>/dev/null`},
	{tmpl: `exec {a["$(CMD)"]}>/dev/null`},
	// Builtins that run or expand a string.
	{tmpl: `mapfile -C 'CMD' -c 1 a <<< x`},
	{tmpl: `readarray -C 'CMD' -c 1 a <<< x`},
	{tmpl: `compgen -C 'CMD' x`},
	{tmpl: `compgen -W '$(CMD)' x`},
	{tmpl: `compgen -W 'a $(CMD)' a`},
	// Indirection and prompts.
	{tmpl: `r='a[$(CMD)]'; echo ${!r}`},
	{tmpl: `r='a[$(CMD)]'; echo "${!r:-x}"`},
	{tmpl: `PS4='$(CMD)'; set -x; :`},
	{tmpl: `set -x; PS4='$(CMD)'; :`},
	{tmpl: `PS4='$(CMD)'; set -o xtrace; :`},
	// Nested: in a script, a substitution, eval, a nested subscript.
	{tmpl: `bash -c "test -v 'a[\$(CMD)]'"`},
	{tmpl: `bash -c 'x='"'"'a[$(CMD)]'"'"'; echo $((x))'`},
	{tmpl: `echo $(test -v 'a[$(CMD)]')`},
	{tmpl: `eval "test -v 'a[\$(CMD)]'"`},
	{tmpl: `test -v 'a[$(echo $(CMD))]'`},
	{tmpl: `x=$(let 'a[$(CMD)]')`},
	{tmpl: `if [[ -v 'a[$(CMD)]' ]]; then :; fi`},
	{tmpl: `test -v a['$(CMD)']`},
	{tmpl: `[ -v a\[\$\(CMD\)\] ]`, escaped: true},
	{tmpl: `test -v "a["'$(CMD)'"]"`},
	{tmpl: `f(){ test -v "$1"; }; f 'a[$(CMD)]'`},
	{tmpl: `shopt -s expand_aliases; alias t='test -v'` + "\n" + `t 'a[$(CMD)]'`},
}

func (c evalCase) with(cmd string) string {
	if c.escaped {
		cmd = strings.ReplaceAll(cmd, " ", `\ `)
	}
	return strings.ReplaceAll(c.tmpl, "CMD", cmd)
}

// analysisCmd is the payload the analysis sees.
func (c evalCase) analysisCmd() string {
	if c.nosplit {
		return "rm${IFS}-rf${IFS}x"
	}
	return "rm -rf x"
}

// Every evaluated string is parsed: its rm is a leaf under a label (deny
// rules see it), the command is not read-only and not analysable.
func TestEvaluatedStrings(t *testing.T) {
	t.Parallel()
	rm, err := CompilePattern("rm:*")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range evaluatedStrings {
		cmd := c.with(c.analysisCmd())
		a := analyze(cmd, conformanceOpts)
		if a.ReadOnly {
			t.Errorf("%s: read-only\n%s", cmd, brief(a))
		}
		if a.Analysable {
			t.Errorf("%s: analysable\n%s", cmd, brief(a))
		}
		if a.MatchAny([]*Pattern{rm}) != 0 {
			t.Errorf("%s: a Bash(rm:*) deny rule does not see the rm\n%s", cmd, brief(a))
		}
		found := false
		for _, l := range a.Leaves {
			if strings.Join(l.Argv, " ") == "rm -rf x" {
				found = true
				if len(l.Wrappers) == 0 || l.ReadOnly {
					t.Errorf("%s: the rm leaf is not labelled: %q read-only=%v", cmd, l.Wrappers, l.ReadOnly)
				}
			}
		}
		if !found {
			t.Errorf("%s: no rm -rf x leaf\n%s", cmd, brief(a))
		}
	}
}

// The table holds real execution vectors: each one runs its command in
// bash 5 (here a file creation, in a throwaway directory).
func TestEvaluatedStringsRunInBash(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	out, err := exec.Command(bash, "-c", "echo ${BASH_VERSINFO[0]}").Output()
	if err != nil || strings.TrimSpace(string(out)) < "5" {
		t.Skipf("bash 5 needed, have %q", out)
	}
	// One bash runs every case in a subshell of its own, each sourced from
	// its own file (a syntax error stops only that case), each creating its
	// own marker file.
	dir := t.TempDir()
	var driver strings.Builder
	// Without -tags slow the first case of each kind (a plain payload,
	// one without blanks, an escaped one) runs; .ci/run runs them all
	// (quickFirst, docs/development.md). The analysis tests take every
	// case in the quick suite too.
	quick := quickFirst{}
	ran := map[int]bool{}
	for i, c := range evaluatedStrings {
		if !quick.take(fmt.Sprint(c.nosplit, c.escaped)) {
			continue
		}
		ran[i] = true
		marker := "pwn" + strconv.Itoa(i)
		payload := "touch " + marker
		if c.nosplit {
			payload = "touch${IFS}" + marker
		}
		file := "case" + strconv.Itoa(i) + ".sh"
		if err := os.WriteFile(filepath.Join(dir, file), []byte(c.with(payload)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&driver, "( . ./%s ) </dev/null >/dev/null 2>&1\n", file)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", driver.String())
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=/usr/bin:/bin"}
	_ = cmd.Run() // many cases end in an error after their payload ran
	for i, c := range evaluatedStrings {
		if !ran[i] {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "pwn"+strconv.Itoa(i))); err != nil {
			t.Errorf("bash does not run the command in %s", c.with("touch pwn"))
		}
	}
}

// Evaluation that provably runs nothing stays read-only: literal numbers,
// plain names, literal subscripts, quoted operands in positions bash does
// not evaluate.
func TestEvaluationFreeReadOnly(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{
		"test 1 -eq 1",
		"[ 1 -lt 2 ]",
		"[ -v HOME ]",
		"test -v PATH",
		"test -v 'a[1]'",
		"test -v 'a[@]'",
		"[[ -v HOME ]]",
		"[[ 1 -eq 1 ]]",
		"[[ -1 -lt 0x10 ]]",
		"(( 1 + 2 ))",
		"echo $((1+2))",
		"echo $[1+2]",
		"echo $(( 0x1F + 8#17 + 2#101 ))",
		"echo ${a[0]}",
		"echo ${#a[1]}",
		"echo ${x:1:2}",
		"echo ${a[@]:1}",
		`[ -f "$f" ]`,
		`test -n "$x"`,
		`[ "$a" = "$b" ]`,
		`[ -z "$x" ] || echo empty`,
		`for f in *.go; do [ -f "$f" ] && echo "$f"; done`,
		"printf '%d\\n' 3",
		"printf '%s' 'a[$(rm x)]'",
		"echo 'a[$(rm x)]'",
		`grep -n 'x[$(y)]' main.go`,
	} {
		a := analyze(cmd, conformanceOpts)
		if !a.ReadOnly {
			t.Errorf("%s: not read-only\n%s", cmd, brief(a))
		}
	}
}

// Evaluation of what the analyser cannot see (a variable from the
// environment, a word known at run time) is not read-only, but a command
// with no hidden code in it stays analysable.
func TestEvaluationOfUnknownValues(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{
		"echo $((x))",
		"echo $(( x + 1 ))",
		"[[ $x -eq 1 ]]",
		"[[ x -lt 2 ]]",
		`test -v "$x"`,
		"test -v $x",
		"[ $x ]",
		"[ -f $x ]",
		`[ "$a" "$b" ]`,
		"[ -f * ]",
		`test -v "a[$i]"`,
		"echo ${!r}",
		"(( a[i] ))",
		"echo ${a[$i]}",
		"echo ${x:$n}",
		`printf -v "$n" x`,
		"read $n",
		"let i++",
		"for (( i=0; i<n; i++ )); do echo $i; done",
		"declare -i x=y",
	} {
		a := analyze(cmd, conformanceOpts)
		if a.ReadOnly {
			t.Errorf("%s: read-only\n%s", cmd, brief(a))
		}
		if !a.Analysable {
			t.Errorf("%s: not analysable, nothing is hidden in it\n%s", cmd, brief(a))
		}
	}
}

// A string bash evaluates that does not parse is not analysable, and its
// word runs are still matched by deny rules.
func TestEvaluatedStringsThatDoNotParse(t *testing.T) {
	t.Parallel()
	rm, _ := CompilePattern("rm:*")
	for _, cmd := range []string{
		"let 'x=$(rm -rf x'",
		"(( 'a[$(rm -rf x' ))",
		"declare -a a='($(rm -rf x)'",
	} {
		a := analyze(cmd, conformanceOpts)
		if a.ReadOnly || a.Analysable {
			t.Errorf("%s: read-only=%v analysable=%v", cmd, a.ReadOnly, a.Analysable)
		}
		if a.MatchAny([]*Pattern{rm}) < 0 {
			t.Errorf("%s: a Bash(rm:*) deny rule does not see the rm\n%s", cmd, brief(a))
		}
	}
}

// A command string or function name a builtin runs that is only known at
// run time is code permopa cannot see: every deny rule hits it. Code it
// could parse is seen by the rules that name it, and only by them.
func TestEvaluatedCodeAndDenyRules(t *testing.T) {
	t.Parallel()
	push, _ := CompilePattern("git push:*")
	rm, _ := CompilePattern("rm:*")
	for _, cmd := range []string{
		`mapfile -C "$cb" -c 1 a < f`,
		`readarray -C "$(cat cb)" a < f`,
		`compgen -C "$x" y`,
		`compgen -F f y`,
		`complete -F "$f" y`,
	} {
		if analyze(cmd, conformanceOpts).MatchAny([]*Pattern{push}) != 0 {
			t.Errorf("%s: a Bash(git push:*) deny rule does not hit code known only at run time", cmd)
		}
	}
	for _, cmd := range []string{
		`test -v 'a[$(rm -rf x)]'`,
		`(( 'a[$(rm -rf x)]' ))`,
		`mapfile -C 'rm -rf x' a < f`,
		`declare -a a='($(rm -rf x))'`,
	} {
		a := analyze(cmd, conformanceOpts)
		if a.MatchAny([]*Pattern{rm}) != 0 {
			t.Errorf("%s: Bash(rm:*) does not hit", cmd)
		}
		if a.MatchAny([]*Pattern{push}) >= 0 {
			t.Errorf("%s: Bash(git push:*) hits a command that runs no git push\n%s", cmd, brief(a))
		}
	}
}
