package bash

import (
	"slices"
	"strings"
	"testing"
)

// shellPerCallOpts are conformanceOpts under a host that runs each call in
// a shell of its own (Options.ShellPerCall, set by the hooks).
var shellPerCallOpts = Options{Cwd: conformanceOpts.Cwd, Home: conformanceOpts.Home, ShellPerCall: true}

// A change of the shell's state that nothing after it in the same shell
// sees is harmless when the shell ends with the call (docs/shell.md,
// "Shell state"): the last statement of the command, of a subshell, a
// substitution or a pipeline part, or one followed only by commands that
// start no program and only expand variables. Its value's substitutions
// are still judged as commands. Without ShellPerCall (a caller that may
// keep the shell) every one of them stays not read-only.
func TestShellStateAtTheEnd(t *testing.T) {
	t.Parallel()
	readOnly := []string{
		// The last statement of the call.
		`CDATE=$(date "+%Y-%m-%d %H:%M:%S")`,
		`MAPPER=$(mktemp -up /dev/mapper)`,
		`USERS=$(awk '/\/X/ {print $1}' <(w))`,
		"COLUMN=`echo $1 | tr -d -`",
		`export JAVA_HOME=$(readlink -f /usr/bin/java | sed "s:bin/java::")`,
		`export KUBECONFIG="config.yaml:other.yaml"`,
		`export GIT_DIR=/tmp/x`,
		`read -p "Password: " -s SSHPASS`,
		`read -r A B C`,
		`alias foo="printf"`,
		`alias cleanup='rm -Rf -- foo bar baz'`,
		`alias my_command="$oldalias -option 3"`,
		`alias cdl='cd -- "$(ls -t | head -n 1)"'`,
		// Claude Code's pwd -P is on the line that evals the command,
		// parsed before the alias exists.
		`alias pwd='echo -n $(/bin/pwd) | pbcopy'`,
		`alias pwd='rm -rf ~'`,
		`alias ok=1 pwd='rm -rf ~'`,
		// A prompt nothing shows: the hosts' shells are not interactive.
		`PROMPT_COMMAND='rm -rf ~'`,
		`cd "$(which oracle)"`,
		`cd $(echo src)`,
		`unset FOO BAR`,
		`declare FOO=bar`,
		`readonly FOO`,
		`ls; FOO=1`,
		`ls && FOO=1`,
		`true || FOO=$(date)`,
		`if [ -d x ]; then FOO=1; else BAR=2; fi`,
		`{ ls; FOO=1; }`,
		// A shell that ends with it: a subshell, a pipeline part, a substitution.
		`(FOO=1); ls`,
		`FOO=1 | ls`,
		`ls | FOO=$(cat)`,
		`echo $(FOO=1; echo x)`,
		// Only commands that expand variables after it.
		`CDATE=$(date); echo $CDATE`,
		`N=$(ls | wc -l); echo "$N files"`,
		`CDATE=$(date); echo "now: $CDATE"; printf 'done\n'`,
		`export FOO=1; [ -n "$FOO" ] && echo yes`,
		`GIT_DIR=/tmp/x; echo hi`,
		`read -r X; echo "$X"`,
		// declaration with a value from a read-only substitution (not only at the end).
		`f() { local x=$(date); echo $x; }`,
	}
	notReadOnly := []string{
		// Something runs after it that sees it.
		"A=1; alias ls='rm -rf'\nls",
		// A command the host parses after the call in the same shell
		// (Gemini CLI's EXIT trap).
		`alias jobs='rm -rf ~'`,
		`alias ok=1 jobs='rm -rf ~'`,
		`alias pwd='rm -rf ~'; pwd`,
		`alias ls='rm -rf'; echo hi`,
		`alias ls='rm -rf'; ls`,
		`PATH=. ; ls`,
		`PATH=.`,
		`export LD_PRELOAD=./x.so; ls`,
		`export LD_PRELOAD=./x.so`,
		`GIT_DIR=/tmp/x; git log`,
		`export GIT_DIR=/tmp/x; git status`,
		`CDATE=$(date); ls`,
		`CDATE=$(date); echo $(ls)`,
		`CDATE=$(date); printf "$CDATE"`,
		`FOO=1 && ls`,
		`for i in 1 2; do FOO=$i; done`,
		`while false; do FOO=1; done`,
		`f() { FOO=1; }`,
		`FOO=1; f() { :; }`,
		`X=1; printf -v y %s x`,
		`FOO=1; FOO=2 ls`,
		`sh -c 'FOO=1'`,
		`eval 'FOO=1'`,
		`cd "$(which oracle)"; ls`,
		`cd $x && cat .ssh/id_rsa`,
		// Special variables act without a later command.
		`HOME=/tmp`,
		`ZDOTDIR=.`,
		`POSIXLY_CORRECT=1`,
		`BASH_ENV=./x`,
		`PS4='$(rm -rf ~)'`,
		`PROMPT_COMMAND='rm -rf ~'; ls`,
		`PS4='$(rm -rf ~)'; set -x`,
		`HISTFILE=~/.bashrc`,
		`IFS=x`,
		`TMPDIR=.`,
		`PAGER='rm -rf ~'`,
		`export SHELLOPTS`,
		`unset PATH`,
		`read PATH`,
		// A host's own code runs after the command in its shell (Gemini
		// CLI's EXIT trap writes to $_bgpids_file).
		`_bgpids_file=~/.bashrc`,
		`read _bgpids_file`,
		`declare _bgpids_file=x`,
		// The value still runs.
		`X=$(rm -rf /)`,
		`export X=$(touch f)`,
		`X=$(cat ~/.ssh/id_rsa > /tmp/k)`,
		`read x; $x`,
		// A trap runs at the end of the call.
		`trap 'rm -rf ~' EXIT`,
		`trap 'cat /etc/shadow' EXIT; X=1`,
		// Not state at all.
		`export -n FOO`,
		`declare -i X=$(date)`,
		`declare -n X=y`,
		`unset 'a[$(rm -rf ~)]'`,
		`alias ls='rm -rf' ls2='x'; ls`,
	}
	for _, c := range readOnly {
		if a := analyze(c, shellPerCallOpts); !a.ReadOnly {
			t.Errorf("%q: not read-only in a shell per call, want read-only:\n%s", c, brief(a))
		}
	}
	for _, c := range notReadOnly {
		if a := analyze(c, shellPerCallOpts); a.ReadOnly {
			t.Errorf("%q: read-only in a shell per call:\n%s", c, brief(a))
		}
		if a := analyze(c, conformanceOpts); a.ReadOnly {
			t.Errorf("%q: read-only:\n%s", c, brief(a))
		}
	}
	// Without ShellPerCall (the default) a state change stays a change,
	// except what was read-only before (a variable of the shell only).
	for _, c := range readOnly {
		if strings.Contains(c, "local x=") || strings.HasPrefix(c, "(") || strings.HasPrefix(c, "FOO=1 |") ||
			strings.HasPrefix(c, "ls | ") || strings.HasPrefix(c, "echo $(") {
			continue
		}
		if a := analyze(c, conformanceOpts); a.ReadOnly {
			t.Errorf("%q: read-only without ShellPerCall (a caller that may keep the shell):\n%s", c, brief(a))
		}
	}
}

// An alias at the end is never used: its body is not a command of the call
// (it is not walked), and what the cd reads is still where it goes.
func TestShellStateAtTheEndLeaves(t *testing.T) {
	t.Parallel()
	a := analyze(`alias cleanup='rm -Rf -- foo bar baz'`, shellPerCallOpts)
	for _, lf := range a.Leaves {
		if lf.Program == "rm" {
			t.Errorf("the body of an alias nothing uses is a leaf: %s", brief(a))
		}
	}
	// cd .. at the end of a call that then reads: the read is of ~/.ssh.
	a = analyze(`cd ..; cat .ssh/id_rsa`, Options{Cwd: "/home/u/x", Home: "/home/u", ShellPerCall: true})
	if !slices.Contains(a.Reads, "/home/u/.ssh/id_rsa") {
		t.Errorf("cd ..; cat .ssh/id_rsa from ~/x does not read ~/.ssh/id_rsa: %s", brief(a))
	}
}

// An export at the end is an assignment, not a listing of the environment
// (export alone prints every variable: an environment dump).
func TestShellStateExportIsNoListing(t *testing.T) {
	t.Parallel()
	for _, c := range []string{`export JAVA_HOME=$(readlink -f /usr/bin/java)`, `export FOO=1; echo "$FOO"`, `export FOO`} {
		a := analyze(c, shellPerCallOpts)
		for _, lf := range a.Leaves {
			if lf.Environment != "" {
				t.Errorf("%q: an environment dump (%s)", c, lf.Environment)
			}
		}
		if !a.ReadOnly {
			t.Errorf("%q: not read-only: %s", c, brief(a))
		}
	}
	if a := analyze(`export`, shellPerCallOpts); a.Leaves[0].Environment == "" {
		t.Errorf("export alone is not an environment dump: %s", brief(a))
	}
}

// A value only known at run time for a variable programs read stays
// unknown: export LANG=$(…) before a program is not read-only.
func TestDeclarationValueOfAnEnvironmentName(t *testing.T) {
	t.Parallel()
	for _, c := range []string{`export LANG=$(cat f); ls`, `export TZ="$x"; date`} {
		if a := analyze(c, shellPerCallOpts); a.ReadOnly {
			t.Errorf("%q: read-only: %s", c, brief(a))
		}
	}
	for _, c := range []string{`f() { local x=$(date); echo $x; }`, `declare y="$(date)"; echo "$y"`} {
		if a := analyze(c, conformanceOpts); !a.ReadOnly {
			t.Errorf("%q: not read-only: %s", c, brief(a))
		}
	}
}
