package engine_test

import (
	"context"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// No deny rule is escaped through composition, wrappers or quoting
// (SECURITY.md): a `Bash(rm:*)` deny rule stops every one of these, in
// every mode, through the whole engine.
func TestDenyRuleCannotBeEscaped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rm := "rm:*"
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{
		Home: "/home/u", Cwd: "/w",
		Rules: []permission.Rule{{ToolName: "Bash", RuleContent: &rm, Behavior: "DENY", Source: "userSettings", Layer: "user"}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	commands := []string{
		"rm -rf build",
		"git status; rm x",
		"git status && rm x",
		"false || rm x",
		"ls | rm x",
		"ls & rm x",
		"ls\nrm x",
		"(rm x)",
		"{ rm x; }",
		"if true; then rm x; fi",
		"for f in a b; do rm $f; done",
		"while false; do :; done; rm x",
		"case a in a) rm x;; esac",
		`\rm x`,
		`'r'm x`,
		`"rm" x`,
		`r''m x`,
		`$'rm' x`,
		"/bin/rm x",
		"./../../bin/rm x",
		"command rm x",
		"builtin command rm x",
		"exec rm x",
		"env rm x",
		"env -i FOO=1 rm x",
		"FOO=1 rm x",
		"nice -n 5 rm x",
		"nohup rm x &",
		"time rm x",
		"timeout 5 rm x",
		"stdbuf -oL rm x",
		"sudo rm x",
		"sudo -u root rm x",
		"ls | xargs rm",
		"ls | xargs -I{} rm {}",
		"bash -c 'rm x'",
		`sh -c "cd / && rm -rf x"`,
		"bash -lc 'git status; rm x'",
		"find . -name x -exec rm {} \\;",
		"find . -execdir rm {} +",
		"echo $(rm x)",
		"echo `rm x`",
		"cat <(rm x)",
		"ls > >(rm x)",
		"cat <<EOF\n$(rm x)\nEOF",
		"x=$(rm y)",
		"f() { rm x; }; f",
		"alias r=rm; r x",
		"timeout 5 sudo env FOO=1 bash -c 'nice rm x'",
	}
	for _, mode := range []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"} {
		for _, cmd := range commands {
			d := eng.Decide(ctx, map[string]any{
				"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
				"cwd": "/w", "permission_mode": mode,
			})
			if d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
				t.Errorf("%s: %q escaped the rm:* deny rule: %s/%s (%s)", mode, cmd, d.Behavior, d.Step, d.Message)
			}
		}
	}
}

// A Read deny rule guards the path from every tool and command that reads it.
func TestReadDenyRuleCannotBeEscaped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ssh := "~/.ssh/**"
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{
		Home: "/home/u", Cwd: "/w",
		Rules: []permission.Rule{{ToolName: "Read", RuleContent: &ssh, Behavior: "DENY", Source: "userSettings", Layer: "user"}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	calls := []map[string]any{
		{"tool_name": "Read", "tool_input": map[string]any{"file_path": "/home/u/.ssh/id_rsa"}},
		{"tool_name": "Read", "tool_input": map[string]any{"file_path": "~/.ssh/config"}},
		{"tool_name": "Read", "tool_input": map[string]any{"file_path": "/home/u/x/../.ssh/id_rsa"}},
		{"tool_name": "Grep", "tool_input": map[string]any{"pattern": "BEGIN", "path": "/home/u/.ssh"}},
		{"tool_name": "Glob", "tool_input": map[string]any{"pattern": "/home/u/.ssh/*"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "cat ~/.ssh/id_rsa"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": `cat "$HOME/.ssh/id_rsa"`}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "cat ${HOME}/.ssh/id_rsa | base64"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "cd ~/.ssh && cat id_rsa"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "wc -c < ~/.ssh/id_rsa"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "grep -r KEY ~/.ssh"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "cp ~/.ssh/id_rsa /tmp/k"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "less ~/.ssh/id_rsa"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "bash -c 'head ~/.ssh/id_rsa'"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "git status; tail /home/u/.ssh/config"}},
	}
	for _, mode := range []string{"default", "plan", "bypassPermissions", "dontAsk"} {
		for _, c := range calls {
			in := map[string]any{"cwd": "/w", "permission_mode": mode}
			for k, v := range c {
				in[k] = v
			}
			d := eng.Decide(ctx, in)
			if d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
				t.Errorf("%s: %v escaped the Read(~/.ssh/**) deny rule: %s/%s (%s)", mode, c["tool_input"], d.Behavior, d.Step, d.Message)
			}
		}
	}
}
