//go:build linux

package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// enclosingPayloads are one `rm -rf ../victim/keep.txt` call per host,
// made in cwd, in the host's least asking mode.
func enclosingPayloads(cwd string) map[string]string {
	const cmd = "rm -rf ../victim/keep.txt"
	return map[string]string{
		"claude": fmt.Sprintf(`{"session_id":"s1","cwd":%q,"permission_mode":"bypassPermissions","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":"t1"}`, cwd, cmd),
		"codex":  fmt.Sprintf(`{"session_id":"s1","turn_id":"u1","cwd":%q,"permission_mode":"bypassPermissions","hook_event_name":"PreToolUse","model":"m","tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":"t1"}`, cwd, cmd),
		"gemini": fmt.Sprintf(`{"session_id":"s1","cwd":%q,"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":%q}}`, cwd, cmd),
	}
}

// Issue 25, "fail closed at the edges": Claude Code carries the working
// directory between Bash calls, so after `mkdir -p sub && cd sub` the next
// payload's cwd is a subdirectory of the project. The project's deny rule
// (in its .permopa/settings.json) still decides that call, for every host,
// through `permopa hook`, permopa-hook-local, the hook server and `permopa
// decide`; a .permopa/ the repository plants in the subdirectory (empty,
// or allowing everything in bypassPermissions, trusted or not) does not
// lift it (docs/rules.md, "Enclosing projects").
func TestSubdirectoryKeepsProjectDenyRules(t *testing.T) {
	t.Parallel()
	h := sharedHookServerEnv(t)
	root := t.TempDir()
	project := filepath.Join(root, "proj")
	putFile(t, filepath.Join(project, "victim", "keep.txt"), "keep\n")
	const rule = "Bash(rm -rf:*)"
	ruleFile := filepath.Join(project, ".permopa", "settings.json")

	// The hook server answers a call in sub before the project has any
	// .permopa: the deny rule written after must reach its next answer.
	sub := filepath.Join(project, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	h.hookPayload("claude", enclosingPayloads(sub)["claude"])
	st := h.waitServer(h.key())
	if out, errOut, code, pid := h.hookPayload("claude", enclosingPayloads(sub)["claude"]); pid != st.Pid || blocked("claude", out, code) {
		t.Fatalf("before the project has rules: pid %d exit %d stdout %q stderr %q; want server %d's answer, not blocked", pid, code, out, errOut, st.Pid)
	}
	putFile(t, ruleFile, `{"permissions": {"deny": ["`+rule+`"]}}`)

	cases := []struct {
		name    string
		cwd     string
		planted map[string]string // file under cwd's .permopa: content
		trust   bool              // the user trusts the planted project
	}{
		{"subdirectory without .permopa", sub, nil, false},
		{"two levels down", filepath.Join(project, "sub", "a", "b"), nil, false},
		{"planted empty settings", filepath.Join(project, "empty"), map[string]string{"settings.json": "{}"}, false},
		{"planted empty yaml and local", filepath.Join(project, "empty2"), map[string]string{"settings.yaml": "", "settings.local.yaml": "permissions: {}\n"}, false},
		{"planted allow-everything, bypass", filepath.Join(project, "loose"), map[string]string{"settings.yaml": "permissions:\n  defaultMode: bypassPermissions\n  allow: [\"Bash\", \"Bash(rm -rf:*)\", \"Bash(*)\"]\n"}, false},
		{"planted allow-everything, trusted", filepath.Join(project, "trusted"), map[string]string{"settings.yaml": "permissions:\n  defaultMode: bypassPermissions\n  allow: [\"Bash\", \"Bash(rm -rf:*)\"]\n"}, true},
	}
	for i, c := range cases {
		if err := os.MkdirAll(c.cwd, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, content := range c.planted {
			putFile(t, filepath.Join(c.cwd, ".permopa", name), content)
		}
		if c.trust {
			if err := recordTrust(h.home, c.cwd); err != nil {
				t.Fatal(err)
			}
		}
		payloads := enclosingPayloads(c.cwd)
		denies := func(who, host, out, errOut string, code int) {
			t.Helper()
			if !blocked(host, out, code) || !strings.Contains(out+errOut, rule) {
				t.Errorf("%s, %s, %s: exit %d stdout %q stderr %q; want blocked by the project's %s", c.name, who, host, code, out, errOut, rule)
			}
		}
		// permopa hook (in process) and permopa-hook-local (a process)
		// compile the policy at each call: without -tags slow, each case
		// meets permopa hook on one host, in turn (every host twice over
		// the six cases), and the first three cases permopa-hook-local,
		// one host each (issue 25, the quick suite).
		for j, host := range []string{"claude", "codex", "gemini"} {
			if slowTests || j == (i+1)%3 {
				out, errOut, code := hookExec(t, permopaBin, []string{"hook", host}, h.env, payloads[host])
				denies("permopa hook", host, out, errOut, code)
			}
			if slowTests || i < 3 && j == i%3 {
				out, errOut, code := h.localHook(host, payloads[host])
				denies("permopa-hook-local", host, out, errOut, code)
			}
		}
		out, errOut, code, pid := h.hookPayload("claude", payloads["claude"])
		denies("hook server", "claude", out, errOut, code)
		if pid != st.Pid {
			t.Errorf("%s: answered by pid %d, want the hook server %d", c.name, pid, st.Pid)
		}
		// permopa decide, from elsewhere (the call's project cache) and
		// from the call's own cwd (its own layers).
		in := fmt.Sprintf(`{"tool_name":"Bash","tool_input":{"command":"rm -rf ../victim/keep.txt"},"cwd":%q,"permission_mode":"bypassPermissions"}`, c.cwd)
		for _, dir := range []string{h.home, c.cwd} {
			out, errOut, _ := permopaAt(t, dir, in, h.env, "decide")
			ds := decisions(t, out)
			if len(ds) != 1 || ds[0].Behavior != "DENY" || !strings.Contains(ds[0].Message, rule) || ds[0].MatchedRule["layer"] != ruleFile {
				t.Errorf("%s, permopa decide in %s: %s %s; want DENY by %s", c.name, dir, out, errOut, rule)
			}
		}
	}
}
