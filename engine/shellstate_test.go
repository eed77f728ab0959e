package engine_test

import (
	"context"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// A state change nothing after it sees is read-only only for an input
// that says the host runs each call in a shell of its own (shell_per_call,
// set by the hooks; docs/shell.md, "Shell state"), and the checks of the
// policy still apply to what the command does: a cd that leads to a
// credential read is that read.
func TestShellStateAtTheEndEndToEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/home/u/x"}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd string, perCall bool) permission.Decision {
		in := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"permission_mode": "plan", "cwd": "/home/u/x"}
		if perCall {
			in["shell_per_call"] = true
		}
		return eng.Decide(ctx, in)
	}
	for _, c := range []string{`CDATE=$(date "+%Y-%m-%d %H:%M:%S")`, `read -p "Password: " -s SSHPASS`,
		`alias cleanup='rm -Rf -- foo bar baz'`, `export JAVA_HOME=$(readlink -f /usr/bin/java | sed "s:bin/java::")`, `export FOO`,
		// Shell-state builtins (issue 26): the history file read names ~/.history.
		`shopt -u compat31`, `history -r "$HISTFILE"`, `alias pwd='echo -n $(/bin/pwd) | pbcopy'`,
		`PROMPT_COMMAND='echo x >> /tmp/trace'`} {
		if d := decide(c, true); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
			t.Errorf("%q with shell_per_call in plan: %s at %s (%s), want ALLOW at read_only", c, d.Behavior, d.Step, d.Message)
		}
		if d := decide(c, false); d.Behavior == permission.Allow {
			t.Errorf("%q without shell_per_call in plan: ALLOW at %s", c, d.Step)
		}
	}
	for _, c := range []string{"A=1; alias ls='rm -rf'\nls", `PATH=. ; ls`, `export LD_PRELOAD=./x.so; ls`,
		`trap 'rm -rf ~' EXIT`, `cd ..; cat .ssh/id_rsa`, `read x; $x`, `X=$(rm -rf /)`, `_bgpids_file=~/.bashrc`,
		`history -s 'rm -rf ~'`, `unset $(echo "$a")`, `jobs -x rm -rf x`, `shopt -s expand_aliases`, `PS4='$(rm -rf ~)'`} {
		if d := decide(c, true); d.Behavior == permission.Allow {
			t.Errorf("%q with shell_per_call in plan: ALLOW at %s", c, d.Step)
		}
	}
}

// The command's positional parameters are empty only for an input that
// says the host runs it as bash -c's script with no words after it
// (positional_empty, set by the hooks; docs/shell.md, "Values and where
// they come from"), and a default that names a credential is still its
// read.
func TestPositionalEmptyEndToEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/home/u/x"}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd string, empty bool) permission.Decision {
		in := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"permission_mode": "plan", "cwd": "/home/u/x", "shell_per_call": true}
		if empty {
			in["positional_empty"] = true
		}
		return eng.Decide(ctx, in)
	}
	for _, c := range []string{"find $1 -type f | wc -l", `exec /usr/bin/find "$@"`, `grep -i "$2" README.md`} {
		if d := decide(c, true); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
			t.Errorf("%q with positional_empty in plan: %s at %s (%s), want ALLOW at read_only", c, d.Behavior, d.Step, d.Message)
		}
		if d := decide(c, false); d.Behavior == permission.Allow {
			t.Errorf("%q without positional_empty in plan: ALLOW at %s", c, d.Step)
		}
	}
	for _, c := range []string{"set -- -delete; find . $1", "find . ${1--delete}", `cat "${1:-/home/u/.ssh/id_rsa}"`} {
		if d := decide(c, true); d.Behavior == permission.Allow {
			t.Errorf("%q with positional_empty in plan: ALLOW at %s", c, d.Step)
		}
	}
}
