package hookproto

import "testing"

// Codex's exec_command can keep a terminal the agent types into later
// (write_stdin, which no hook sees), and its PreToolUse payload does not
// say whether the call has one (0.171 sends tool_input.command alone): its
// Bash inputs are marked stdin_terminal unless tool_input.tty is false.
// The other hosts' calls have no terminal the agent can type into.
func TestStdinTerminalMark(t *testing.T) {
	t.Parallel()
	bash := func(ti map[string]any) map[string]any {
		return map[string]any{"hook_event_name": "PreToolUse", "cwd": "/w", "session_id": "s",
			"permission_mode": "bypassPermissions", "tool_name": "Bash", "tool_input": ti}
	}
	cases := []struct {
		host    string
		payload map[string]any
		want    any // the stdin_terminal of the first input; nil: absent
	}{
		{"codex", bash(map[string]any{"command": "less README.md"}), true},
		{"codex", bash(map[string]any{"command": "less README.md", "tty": true}), true},
		{"codex", bash(map[string]any{"command": "less README.md", "tty": "false"}), true},
		{"codex", bash(map[string]any{"command": "less README.md", "tty": nil}), true},
		{"codex", bash(map[string]any{"command": []any{"bash", "-lc", "less README.md"}}), true},
		{"codex", bash(map[string]any{"command": "less README.md", "tty": false}), nil},
		// A payload's own top-level field is not passed on.
		{"codex", func() map[string]any {
			p := bash(map[string]any{"command": "less README.md"})
			p["stdin_terminal"] = false
			return p
		}(), true},
		{"claude", bash(map[string]any{"command": "less README.md"}), nil},
		{"claude", func() map[string]any {
			p := bash(map[string]any{"command": "less README.md"})
			p["stdin_terminal"] = false
			return p
		}(), nil},
	}
	for i, c := range cases {
		inputs, err := Inputs(c.host, c.payload)
		if err != nil {
			t.Fatalf("%d %s: %v", i, c.host, err)
		}
		got, ok := inputs[0]["stdin_terminal"]
		if c.want == nil && ok || c.want != nil && got != c.want {
			t.Errorf("%d %s %v: stdin_terminal %v (present %v), want %v", i, c.host, c.payload["tool_input"], got, ok, c.want)
		}
		// Codex runs every command with GIT_PAGER=cat; the others say nothing.
		gp, ok := inputs[0]["git_pager_cat"]
		if c.host == "codex" && gp != true || c.host != "codex" && ok {
			t.Errorf("%d %s %v: git_pager_cat %v (present %v)", i, c.host, c.payload["tool_input"], gp, ok)
		}
	}
	// A Codex patch's file calls are no shell commands.
	patch := map[string]any{"hook_event_name": "PreToolUse", "cwd": "/w", "tool_name": "apply_patch",
		"tool_input": map[string]any{"command": "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n"}}
	inputs, err := Inputs("codex", patch)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inputs {
		if _, ok := in["stdin_terminal"]; ok {
			t.Errorf("patch call %v marked stdin_terminal", in)
		}
		if _, ok := in["git_pager_cat"]; ok {
			t.Errorf("patch call %v marked git_pager_cat", in)
		}
	}
}
