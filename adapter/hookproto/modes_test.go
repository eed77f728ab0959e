package hookproto_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter/hookproto"
)

// A permission_mode that is not a string blocks: it is not "no mode".
func TestPayloadModeMustBeAString(t *testing.T) {
	for _, host := range hookproto.Hosts {
		var out, errb bytes.Buffer
		payload := `{"hook_event_name":"` + map[string]string{"claude": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}[host] + `","cwd":"/w","permission_mode":7,"tool_name":"Bash","tool_input":{"command":"ls"}}`
		code := hookproto.Run(context.Background(), host, strings.NewReader(payload), &out, &errb, hookproto.RunOptions{
			Decide: func(context.Context, hookproto.Request, *hookproto.Tracer) ([]hookproto.Decision, error) {
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
