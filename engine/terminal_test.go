package engine_test

import (
	"context"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// An input marked stdin_terminal (the Codex hook: the command may keep a
// terminal the agent types into later) makes a program that reads its
// terminal's keys not read-only, so a mode that allows read-only commands
// no longer allows it; without the mark the answer is today's
// (docs/shell.md, "Terminal input").
func TestStdinTerminalEndToEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/home/u/x"}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd string, mark any) permission.Decision {
		in := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"permission_mode": "plan", "cwd": "/home/u/x", "shell_per_call": true}
		if mark != nil {
			in["stdin_terminal"] = mark
		}
		return eng.Decide(ctx, in)
	}
	for _, c := range []string{"less README.md", "man ls", "git log", "git diff HEAD~1", "top -n 1", "cat x | less"} {
		if d := decide(c, true); d.Behavior == permission.Allow {
			t.Errorf("%q with stdin_terminal in plan: ALLOW at %s", c, d.Step)
		}
		if d := decide(c, false); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
			t.Errorf("%q with stdin_terminal false in plan: %s at %s (%s), want ALLOW at read_only", c, d.Behavior, d.Step, d.Message)
		}
		if d := decide(c, nil); d.Behavior != permission.Allow {
			t.Errorf("%q without stdin_terminal in plan: %s at %s (%s), want ALLOW", c, d.Behavior, d.Step, d.Message)
		}
		// A value that is not a boolean is no "false".
		if d := decide(c, "no"); d.Behavior == permission.Allow {
			t.Errorf("%q with stdin_terminal \"no\" in plan: ALLOW at %s", c, d.Step)
		}
	}
	for _, c := range []string{"git --no-pager log", "top -b -n 1", "cat README.md", "grep -rn x ."} {
		if d := decide(c, true); d.Behavior != permission.Allow {
			t.Errorf("%q with stdin_terminal in plan: %s at %s (%s), want ALLOW", c, d.Behavior, d.Step, d.Message)
		}
	}
	// git_pager_cat (the Codex hook: Codex runs the command with
	// GIT_PAGER=cat) gives git back; only true counts, and other pagers
	// and a command that changes git's pager environment stay.
	withCat := func(cmd string, v any) permission.Decision {
		return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"permission_mode": "plan", "cwd": "/home/u/x", "shell_per_call": true, "stdin_terminal": true, "git_pager_cat": v})
	}
	for _, c := range []string{"git log", "git diff HEAD~1"} {
		if d := withCat(c, true); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
			t.Errorf("%q with stdin_terminal and git_pager_cat in plan: %s at %s (%s), want ALLOW at read_only", c, d.Behavior, d.Step, d.Message)
		}
		for _, v := range []any{false, "true", 1, nil} {
			if d := withCat(c, v); d.Behavior == permission.Allow {
				t.Errorf("%q with stdin_terminal and git_pager_cat %v in plan: ALLOW at %s", c, v, d.Step)
			}
		}
	}
	for _, c := range []string{"less README.md", "git log | less", "env -u GIT_PAGER git log", "GIT_PAGER=less git log", "git help log"} {
		if d := withCat(c, true); d.Behavior == permission.Allow {
			t.Errorf("%q with stdin_terminal and git_pager_cat in plan: ALLOW at %s", c, d.Step)
		}
	}
}
