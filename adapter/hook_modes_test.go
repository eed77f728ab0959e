package adapter_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// The calls of the mode tables, each with what decides it under the test
// settings (settingsEngine: deny Bash(rm -rf:*), ask Bash(git push:*),
// allow Bash(npm run:*)).
var modeCalls = []struct {
	name string
	bash string // a Bash command, or
	tool string // a file tool with path
	path string
}{
	{name: "read-only", bash: "ls -la"},
	{name: "deny-rule", bash: "rm -rf victim"},
	{name: "ask-rule", bash: "git push origin main"},
	{name: "allow-rule", bash: "npm run build"},
	{name: "no-rule", bash: "make install"},
	{name: "edit-in-project", tool: "Edit", path: "/w/src/a.go"},
	{name: "safety", tool: "Write", path: "/root/.bashrc"},
}

// modeEngine is settingsEngine's, built once for the tables.
var modeEngine func(context.Context, string) (*engine.Engine, error)

// hookKind runs one call through the hook and names the answer the host
// gets: allow, deny, ask, or defer (no decision: the host decides as if
// no hook ran).
func hookKind(t *testing.T, host, event, mode, flagMode string, call int) string {
	t.Helper()
	c := modeCalls[call]
	p := map[string]any{"hook_event_name": event, "cwd": "/w", "session_id": "s", "tool_use_id": "t"}
	if mode != "" {
		p["permission_mode"] = mode
	}
	switch host {
	case "gemini":
		if c.bash != "" {
			p["tool_name"], p["tool_input"] = "run_shell_command", map[string]any{"command": c.bash}
		} else {
			name := map[string]string{"Edit": "replace", "Write": "write_file"}[c.tool]
			p["tool_name"], p["tool_input"] = name, map[string]any{"file_path": c.path, "content": "x"}
		}
	default:
		if c.bash != "" {
			p["tool_name"], p["tool_input"] = "Bash", map[string]any{"command": c.bash}
		} else {
			p["tool_name"], p["tool_input"] = c.tool, map[string]any{"file_path": c.path, "content": "x", "old_string": "a", "new_string": "b"}
		}
	}
	payload, _ := json.Marshal(p)
	if modeEngine == nil {
		modeEngine = settingsEngine(t)
	}
	out, errOut, code := runHook(t, host, string(payload), adapter.HookOptions{Engine: modeEngine, Mode: flagMode})
	return answerKind(t, host, event, out, errOut, code)
}

// answerKind names the answer a host gets from a hook's output.
func answerKind(t *testing.T, host, event, out, errOut string, code int) string {
	t.Helper()
	var m map[string]any
	if strings.TrimSpace(out) != "" {
		m = decode(t, out)
	}
	switch {
	case host == "codex" && event == "PreToolUse":
		switch code {
		case 2:
			return "deny"
		case 0:
			if out != "" {
				t.Fatalf("codex PreToolUse printed %q", out)
			}
			return "defer"
		}
		t.Fatalf("exit %d: %s", code, errOut)
	case code != 0:
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	case host == "gemini":
		if d, ok := m["decision"].(string); ok {
			return d
		}
		return "defer"
	case event == "PermissionRequest":
		hso, _ := m["hookSpecificOutput"].(map[string]any)
		if d, ok := hso["decision"].(map[string]any); ok {
			return d["behavior"].(string)
		}
		return "defer"
	default:
		hso, _ := m["hookSpecificOutput"].(map[string]any)
		if d, ok := hso["permissionDecision"].(string); ok {
			return d
		}
		return "defer"
	}
	return ""
}

// A hook never loosens its host: for every mode each host documents, the
// answer to each kind of call (columns: modeCalls) is no more permissive
// than the host alone would be, unless permopa's settings said so (the
// allow rule). docs/hosts.md has the same tables with the reasoning.
func TestHookNeverLoosensItsHost(t *testing.T) {
	t.Parallel()
	type row struct {
		host, event, mode, flag string
		want                    string // one answer per modeCalls entry
	}
	rows := []row{
		// Claude Code PreToolUse.
		{"claude", "PreToolUse", "default", "", "allow deny ask allow ask ask ask"},
		{"claude", "PreToolUse", "manual", "", "allow deny ask allow ask ask ask"},
		{"claude", "PreToolUse", "acceptEdits", "", "allow deny ask allow ask allow ask"},
		{"claude", "PreToolUse", "plan", "", "allow deny ask deny deny deny deny"},
		// auto: permopa's mode-fallback ASK defers to the classifier.
		{"claude", "PreToolUse", "auto", "", "allow deny ask allow defer defer ask"},
		// dontAsk: only allow rules approve; every ASK is a deny.
		{"claude", "PreToolUse", "dontAsk", "", "defer deny deny allow deny deny deny"},
		// bypassPermissions: the host runs what permopa's mode would allow.
		{"claude", "PreToolUse", "bypassPermissions", "", "allow deny ask allow defer defer defer"},
		// A mode permopa does not know: decided as default, never approved.
		{"claude", "PreToolUse", "turbo", "", "defer deny ask defer ask ask ask"},
		// PermissionRequest: never an approval.
		{"claude", "PermissionRequest", "default", "", "defer deny defer defer defer defer defer"},
		{"claude", "PermissionRequest", "acceptEdits", "", "defer deny defer defer defer defer defer"},
		{"claude", "PermissionRequest", "auto", "", "defer deny defer defer defer defer defer"},
		{"claude", "PermissionRequest", "dontAsk", "", "defer deny deny defer deny deny deny"},
		{"claude", "PermissionRequest", "bypassPermissions", "", "defer deny defer defer defer defer defer"},

		// Codex PreToolUse honours only a refusal (deny = exit 2).
		{"codex", "PreToolUse", "default", "", "defer deny deny defer deny deny deny"},
		{"codex", "PreToolUse", "acceptEdits", "", "defer deny deny defer deny defer deny"},
		{"codex", "PreToolUse", "plan", "", "defer deny deny deny deny deny deny"},
		// codex exec and approval_policy=never report bypassPermissions:
		// unattended, never BYPASS.
		{"codex", "PreToolUse", "bypassPermissions", "", "defer deny deny defer deny deny deny"},
		{"codex", "PermissionRequest", "default", "", "defer deny defer defer defer defer defer"},
		{"codex", "PermissionRequest", "bypassPermissions", "", "defer deny deny defer deny deny deny"},

		// Gemini CLI names no mode; --mode sets it. Its "allow" does not
		// override Gemini's own policy.
		{"gemini", "BeforeTool", "", "", "allow deny ask allow ask ask ask"},
		{"gemini", "BeforeTool", "", "default", "allow deny ask allow ask ask ask"},
		{"gemini", "BeforeTool", "", "auto_edit", "allow deny ask allow ask allow ask"},
		{"gemini", "BeforeTool", "", "plan", "allow deny ask deny deny deny deny"},
		{"gemini", "BeforeTool", "", "yolo", "allow deny ask allow defer defer defer"},
		{"gemini", "BeforeTool", "", "dontAsk", "allow deny deny allow deny allow deny"},
	}
	for _, r := range rows {
		want := strings.Fields(r.want)
		if len(want) != len(modeCalls) {
			t.Fatalf("%+v: %d answers for %d calls", r, len(want), len(modeCalls))
		}
		for i := range modeCalls {
			got := hookKind(t, r.host, r.event, r.mode, r.flag, i)
			if got != want[i] {
				t.Errorf("%s %s mode %q%s, %s call: got %s, want %s", r.host, r.event, r.mode, r.flag, modeCalls[i].name, got, want[i])
			}
			// The invariant itself: only an allow rule (the user's word)
			// approves in a mode whose host would not run the call alone.
			if got == "allow" && r.event == "PermissionRequest" {
				t.Errorf("%s PermissionRequest approved %s in %q", r.host, modeCalls[i].name, r.mode)
			}
		}
	}
}

// Gemini CLI names MCP tools mcp_<server>_<tool>; permopa decides them as
// mcp__<server>__<tool>, so one set of rules serves every host. Without
// Gemini's mcp_context every split of the name is decided and the
// strictest answers: a deny rule holds for any reading.
func TestGeminiMCPNamesMatchClaudeRules(t *testing.T) {
	t.Parallel()
	rule := func(s, b string) permission.Rule {
		r, err := settings.ParseRule(s, b)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	eng, err := engine.New(context.Background(), engine.WithSettings(settings.Settings{Home: "/root", Rules: []permission.Rule{
		rule("mcp__memory__*", "ALLOW"), rule("mcp__db__drop_table", "DENY"), rule("mcp__my_db__query", "ALLOW"),
		rule("mcp__my_db__drop", "DENY"), rule("mcp__github", "ASK"),
	}}))
	if err != nil {
		t.Fatal(err)
	}
	opts := adapter.HookOptions{Engine: func(context.Context, string) (*engine.Engine, error) { return eng, nil }}
	for _, c := range []struct {
		name, ctx, want string
	}{
		{"mcp_memory_read_graph", `{"server_name":"memory","tool_name":"read_graph"}`, "allow"},
		{"mcp_memory_read_graph", ``, "ask"}, // memory_read__graph is another reading: not allowed by the rule
		{"mcp_db_drop_table", `{"server_name":"db","tool_name":"drop_table"}`, "deny"},
		{"mcp_db_drop_table", ``, "deny"},
		{"mcp_my_db_query", `{"server_name":"my_db","tool_name":"query"}`, "allow"},
		{"mcp_my_db_drop", ``, "deny"},
		{"mcp_my_db_drop", `{"server_name":"my","tool_name":"db_drop"}`, "ask"},
		{"mcp_github_create_issue", `{"server_name":"github","tool_name":"create_issue"}`, "ask"},
		{"mcp_github_create_issue", ``, "ask"},
		{"mcp_weather_now", `{"server_name":"weather","tool_name":"now"}`, "ask"},
	} {
		p := `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"` + c.name + `","tool_input":{"q":"x"}`
		if c.ctx != "" {
			p += `,"mcp_context":` + c.ctx
		}
		p += "}"
		out, errOut, code := runHook(t, "gemini", p, opts)
		if code != 0 {
			t.Fatalf("%s: exit %d %s", p, code, errOut)
		}
		if got := decode(t, out)["decision"]; got != c.want {
			t.Errorf("%s: got %v, want %s (%s)", p, got, c.want, out)
		}
	}
}

// Payloads captured from the real CLIs in the end-to-end runs (e2e/hosts,
// PERMOPA_E2E_CAPTURE): the fields today's hosts send (Claude Code's
// prompt_id and effort object, Codex's turn_id and model, Gemini's
// timestamp) are tolerated, and each gets the answer of the mode tables.
func TestCapturedHostPayloads(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{
		"claude/pretooluse-default-rm-rf.json":        "deny",
		"claude/pretooluse-default-ls.json":           "allow",
		"claude/pretooluse-auto-touch.json":           "defer",
		"claude/pretooluse-dontask-touch.json":        "deny",
		"claude/permissionrequest-default-touch.json": "defer",
		"codex/pretooluse-exec-rm-rf.json":            "deny",
		"codex/pretooluse-exec-touch.json":            "deny",
		"codex/pretooluse-exec-ls.json":               "defer",
		"gemini/beforetool-rm-rf.json":                "deny",
		"gemini/beforetool-touch.json":                "ask",
	} {
		raw, err := os.ReadFile(filepath.Join("testdata", "hooks", "captured", file))
		if err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		host := strings.Split(file, "/")[0]
		if modeEngine == nil {
			modeEngine = settingsEngine(t)
		}
		payload := strings.ReplaceAll(string(raw), "{{CWD}}", "/w")
		out, errOut, code := runHook(t, host, payload, adapter.HookOptions{Engine: modeEngine})
		if strings.Contains(out+errOut, "could not decide") {
			t.Errorf("%s: a fault: %s %s", file, out, errOut)
		}
		if got := answerKind(t, host, p["hook_event_name"].(string), out, errOut, code); got != want {
			t.Errorf("%s: got %s, want %s (%s %s)", file, got, want, out, errOut)
		}
	}
}
