package hookproto_test

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/permission"
)

// A permission_mode that is not a string blocks: it is not "no mode".
func TestPayloadModeMustBeAString(t *testing.T) {
	for _, host := range hookproto.Hosts {
		var out, errb bytes.Buffer
		payload := `{"hook_event_name":"` + map[string]string{"claude": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}[host] + `","cwd":"/w","permission_mode":7,"tool_name":"Bash","tool_input":{"command":"ls"}}`
		code := hookproto.Run(context.Background(), host, strings.NewReader(payload), &out, &errb, hookproto.RunOptions{
			Decide: func(context.Context, hookproto.Request, *hookproto.Tracer) ([]permission.Decision, error) {
				t.Fatalf("%s: decided a payload with a bad mode", host)
				return nil, nil
			},
		})
		text := out.String() + errb.String()
		if !strings.Contains(text, "permission_mode: must be a string") || (code == 0 && !strings.Contains(text, "deny")) {
			t.Errorf("%s: exit %d %s", host, code, text)
		}
	}
}

// The mode tables: every host mode maps to a permopa mode, unknown names
// are reported as unknown, and --mode applies only when the payload names
// none (or the host's is ignored).
func TestResolveMode(t *testing.T) {
	for _, c := range []struct {
		host, payload, flag string
		ignore              bool
		want                hookproto.HostMode
	}{
		{"claude", "auto", "", false, hookproto.HostMode{Host: "claude", Name: "auto", Mode: "default", DeferAsk: true}},
		{"claude", "manual", "", false, hookproto.HostMode{Host: "claude", Name: "manual", Mode: "default"}},
		{"claude", "dontAsk", "", false, hookproto.HostMode{Host: "claude", Name: "dontAsk", Mode: "default", Unattended: true, RuleAllowsOnly: true}},
		{"claude", "bypassPermissions", "", false, hookproto.HostMode{Host: "claude", Name: "bypassPermissions", Mode: "bypass"}},
		{"codex", "bypassPermissions", "", false, hookproto.HostMode{Host: "codex", Name: "bypassPermissions", Mode: "default", Unattended: true}},
		{"gemini", "", "yolo", false, hookproto.HostMode{Host: "gemini", Name: "yolo", Mode: "bypass"}},
		{"gemini", "", "auto_edit", false, hookproto.HostMode{Host: "gemini", Name: "auto_edit", Mode: "accept_edits"}},
		{"gemini", "", "", false, hookproto.HostMode{Host: "gemini"}},
		{"claude", "auto", "acceptEdits", true, hookproto.HostMode{Host: "claude", Name: "acceptEdits", Mode: "accept_edits"}},
		{"claude", "turbo", "", false, hookproto.HostMode{Host: "claude", Name: "turbo", Mode: "default", Unknown: true}},
		{"codex", "auto", "", false, hookproto.HostMode{Host: "codex", Name: "auto", Mode: "default", Unknown: true}},
	} {
		if got := hookproto.ResolveMode(c.host, c.payload, c.flag, c.ignore); got != c.want {
			t.Errorf("%s %q --mode %q ignore=%v: %+v, want %+v", c.host, c.payload, c.flag, c.ignore, got, c.want)
		}
	}
}

// Fields the hosts add are tolerated and never reach the decision: only
// the documented ones do, so no host field can stand in for one of
// permopa's inputs (working_directories, read_only, tool_check).
func TestExtraPayloadFieldsTolerated(t *testing.T) {
	payload := `{"hook_event_name":"PermissionRequest","cwd":"/w","session_id":"s","permission_mode":"default",
		"prompt_id":"p-1","effort":{"level":"high","budget":{"tokens":100}},"model":"m","turn_id":"t",
		"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash"}],"behavior":"allow","destination":"localSettings"},
			{"type":"setMode","mode":"acceptEdits"},{"type":"someFutureKind","x":[1,2]}],
		"working_directories":["/"],"read_only":true,"tool_check":{"behavior":"ALLOW"},"permission_context":{"mode":"bypass"},
		"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`
	var seen map[string]any
	var out, errb bytes.Buffer
	code := hookproto.Run(context.Background(), "claude", strings.NewReader(payload), &out, &errb, hookproto.RunOptions{
		Decide: func(_ context.Context, req hookproto.Request, _ *hookproto.Tracer) ([]permission.Decision, error) {
			seen = req.Inputs[0]
			return []permission.Decision{{Behavior: permission.Deny, Message: "no"}}, nil
		},
	})
	if code != 0 || !strings.Contains(out.String(), `"behavior":"deny"`) {
		t.Fatalf("exit %d %s %s", code, out.String(), errb.String())
	}
	var keys []string
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// shell_per_call and positional_empty are the hook's own (docs/hosts.md,
	// "Shell state between calls").
	if strings.Join(keys, ",") != "cwd,hook_event_name,permission_mode,positional_empty,session_id,shell_per_call,tool_input,tool_name" {
		t.Errorf("fields passed on: %v", keys)
	}
}
