package opaplugin

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/permission"
)

// hookPost posts a hook payload to the hook route and returns the status
// and the body as Claude Code reads it.
func (s *opaServer) hookPost(t testing.TB, q req) (int, string) {
	t.Helper()
	if q.path == "" {
		q.path = HookClaudePath
	}
	q.method = http.MethodPost
	status, b := s.send(t, q)
	return status, string(b)
}

// commandHook is what `permopa hook claude --server <sock> --server-required`
// prints for payload (adapter.RunHook, the code of `permopa hook`), in
// the http form: its stdout, or for an exit 2 the block writeHookAnswer
// sends.
func commandHook(t testing.TB, sock *opaServer, payload string, o adapter.HookOptions) string {
	t.Helper()
	o.Server, o.ServerRequired = sock.addr, true
	var out, errOut bytes.Buffer
	code := adapter.RunHook(context.Background(), "claude", strings.NewReader(payload), &out, &errOut, o)
	rec := &recorder{header: http.Header{}}
	writeHookAnswer(rec, hookproto.Answer{Stdout: out.Bytes(), Stderr: strings.TrimSpace(errOut.String()), Exit: code})
	return rec.body.String()
}

type recorder struct {
	header http.Header
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(int)             {}

// hookPayload is a Claude Code payload of event for a Bash command.
func hookPayload(event, mode, command string) string {
	p := map[string]any{"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "hook_event_name": event,
		"tool_name": "Bash", "tool_input": map[string]any{"command": command, "description": "x"}, "tool_use_id": "toolu_1"}
	if mode != "" {
		p["permission_mode"] = mode
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// verdict is how Claude Code reads an answer: the PreToolUse decision,
// "deny" for a PermissionRequest deny or a top-level block, "none" for no
// decision.
func verdict(t testing.TB, body string) string {
	t.Helper()
	if strings.TrimSpace(body) == "" {
		return "none"
	}
	var a struct {
		Decision any `json:"decision"`
		HSO      struct {
			Event    string `json:"hookEventName"`
			PD       string `json:"permissionDecision"`
			Decision struct {
				Behavior string `json:"behavior"`
			} `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("answer is not JSON: %q", body)
	}
	switch {
	case a.Decision == "block":
		return "block"
	case a.HSO.PD != "":
		return a.HSO.PD
	case a.HSO.Decision.Behavior != "":
		return a.HSO.Decision.Behavior
	}
	return "none"
}

// The hook route answers every Claude Code payload exactly as `permopa
// hook claude` does through the same server: each event, each mode, each
// decision kind, and the payloads the command blocks on.
func TestHookRouteAnswersAsTheCommandHook(t *testing.T) {
	t.Parallel()
	dir := settingsDir(t, "permissions:\n  deny: [\"Bash(rm -rf:*)\"]\n  ask: [\"Bash(git push:*)\"]\n  allow: [\"Bash(npm run:*)\"]\n")
	h := start(t, newBundleServer(t), noWait(layersConfig(dir)))
	tcp := h.serve(t, serveOpts{})
	sock := h.serve(t, serveOpts{socket: true})
	pre, pr := hookproto.EventPreToolUse, hookproto.EventPermissionRequest
	cases := []struct {
		name, payload, query string
		opts                 adapter.HookOptions
		want                 string // how Claude Code reads the answer
	}{
		{"deny rule", hookPayload(pre, "default", "rm -rf build"), "", adapter.HookOptions{}, "deny"},
		{"allow rule", hookPayload(pre, "default", "npm run build"), "", adapter.HookOptions{}, "allow"},
		{"ask rule", hookPayload(pre, "default", "git push origin main"), "", adapter.HookOptions{}, "ask"},
		{"no rule asks", hookPayload(pre, "default", "curl -fsSL https://example.com/x.sh"), "", adapter.HookOptions{}, "ask"},
		{"read-only", hookPayload(pre, "default", "git status"), "", adapter.HookOptions{}, "allow"},
		{"no mode", hookPayload(pre, "", "npm run test"), "", adapter.HookOptions{}, "allow"},
		{"plan mode", hookPayload(pre, "plan", "npm run build"), "", adapter.HookOptions{}, "deny"},
		{"acceptEdits", hookPayload(pre, "acceptEdits", "npm run build"), "", adapter.HookOptions{}, "allow"},
		{"dontAsk: an ask is a deny", hookPayload(pre, "dontAsk", "curl -fsSL https://example.com/x.sh"), "", adapter.HookOptions{}, "deny"},
		{"bypassPermissions deny", hookPayload(pre, "bypassPermissions", "rm -rf /"), "", adapter.HookOptions{}, "deny"},
		{"bypassPermissions no rule", hookPayload(pre, "bypassPermissions", "make"), "", adapter.HookOptions{}, "none"},
		{"auto ask rule", hookPayload(pre, "auto", "git push"), "", adapter.HookOptions{}, "ask"},
		{"unknown mode", hookPayload(pre, "yoloMax", "npm run build"), "", adapter.HookOptions{}, "none"},
		{"PermissionRequest deny", hookPayload(pr, "default", "rm -rf build"), "", adapter.HookOptions{}, "deny"},
		{"PermissionRequest ask", hookPayload(pr, "default", "curl -fsSL https://example.com/x.sh"), "", adapter.HookOptions{}, "none"},
		{"PermissionRequest allow", hookPayload(pr, "default", "npm run build"), "", adapter.HookOptions{}, "none"},
		{"destination user", hookPayload(pre, "default", "make deploy"), "?destination=user", adapter.HookOptions{Destination: "user"}, "ask"},
		{"mode for payloads without one", hookPayload(pre, "", "make deploy"), "?mode=dontAsk", adapter.HookOptions{Mode: "dontAsk"}, "deny"},
		{"ignore_host_mode", hookPayload(pre, "bypassPermissions", "make deploy"), "?ignore_host_mode=true", adapter.HookOptions{IgnoreHostMode: true}, "ask"},
		// Payloads the command hook blocks on: the same block.
		{"empty body", "", "", adapter.HookOptions{}, "deny"},
		{"not JSON", "{tool_name: Bash", "", adapter.HookOptions{}, "deny"},
		{"an array", `[1, 2]`, "", adapter.HookOptions{}, "deny"},
		{"two objects", `{"tool_name": "Bash"} {}`, "", adapter.HookOptions{}, "deny"},
		{"mode not a string", `{"hook_event_name": "PreToolUse", "permission_mode": 3, "tool_name": "Bash", "tool_input": {"command": "ls"}}`, "", adapter.HookOptions{}, "deny"},
		{"PermissionRequest without tool", `{"hook_event_name": "PermissionRequest", "cwd": "/tmp"}`, "", adapter.HookOptions{}, "deny"},
		{"no tool_name", `{"hook_event_name": "PreToolUse", "cwd": "/tmp", "tool_input": {"command": "ls"}}`, "", adapter.HookOptions{}, "deny"},
		{"event permopa does not answer", hookPayload("PostToolUse", "default", "ls"), "", adapter.HookOptions{}, "block"},
	}
	kinds := map[string]bool{}
	for _, c := range cases {
		status, got := tcp.hookPost(t, req{body: c.payload, path: HookClaudePath + c.query})
		want := commandHook(t, sock, c.payload, c.opts)
		if status != http.StatusOK || got != want {
			t.Errorf("%s: the route answers %d %q\n  the command hook prints %q", c.name, status, got, want)
		}
		if v := verdict(t, got); v != c.want {
			t.Errorf("%s: Claude Code reads %q as %s, want %s", c.name, got, v, c.want)
		}
		kinds[c.want] = true
	}
	if len(kinds) != 5 {
		t.Errorf("the table does not cover every kind of answer: %v", kinds)
	}
}

// Session rules confirmed through the server apply to the hook route's
// calls of that session, and an ASK it answers can be confirmed.
func TestHookRouteSessionRules(t *testing.T) {
	t.Parallel()
	h, s := guardHarness(t, serveOpts{socket: true})
	payload := hookPayload(hookproto.EventPreToolUse, "default", "npm install")
	if _, got := s.hookPost(t, req{body: payload}); verdict(t, got) != "ask" {
		t.Fatalf("before: %s", got)
	}
	d := s.check(t, npmCall, "")
	code, c := s.do(t, req{path: "/v1/permission/confirm", body: `{"confirmed": true, "decision_id": "` + d["decision_id"].(string) + `", "rules": [{"tool_name": "Bash", "rule_content": "npm install:*", "behavior": "ALLOW"}], "destination": "session"}`})
	if code != 200 {
		t.Fatalf("confirm: %d %v", code, c)
	}
	_, got := s.hookPost(t, req{body: payload})
	if verdict(t, got) != "allow" || !strings.Contains(got, "session") {
		t.Errorf("after a session rule: %s", got)
	}
	other := strings.Replace(payload, `"s1"`, `"s2"`, 1)
	if _, got := s.hookPost(t, req{body: other}); verdict(t, got) != "ask" {
		t.Errorf("another session: %s", got)
	}
	_ = h
}

// Requests the guard refuses, and requests the route cannot decide, are
// answered with a 200 whose body blocks (a 403 would be a failed hook,
// which Claude Code lets through without "onFailure": "block"), in the
// shape of the payload's event; nothing is decided for them.
func TestHookRouteRefusalsBlock(t *testing.T) {
	t.Parallel()
	h, s := guardHarness(t, serveOpts{})
	admin := h.token(t, hookproto.AdminTokenFileName)
	pre := hookPayload(hookproto.EventPreToolUse, "default", "npm run build")
	pr := hookPayload(hookproto.EventPermissionRequest, "default", "npm install")
	big := hookPayload(hookproto.EventPreToolUse, "default", "echo "+strings.Repeat("x", 2<<20))
	for name, c := range map[string]struct {
		q         req
		event, in string // the answer's event, and a text its reason has
	}{
		"DNS rebinding":            {req{body: pre, host: "evil.example:" + port(s)}, "PreToolUse", permission.CodeForbiddenHost},
		"DNS rebinding, PR":        {req{body: pr, host: "evil.example:" + port(s)}, "PermissionRequest", permission.CodeForbiddenHost},
		"a page's fetch":           {req{body: pre, origin: "http://evil.example"}, "PreToolUse", permission.CodeCrossOrigin},
		"a page's text/plain POST": {req{body: pre, contentType: "text/plain", origin: "http://evil.example"}, "PreToolUse", permission.CodeCrossOrigin},
		"text/plain":               {req{body: pr, contentType: "text/plain"}, "PermissionRequest", permission.CodeUnsupportedMediaType},
		"no Content-Type":          {req{body: pre, contentType: "-"}, "PreToolUse", permission.CodeUnsupportedMediaType},
		"a navigation":             {req{body: pre, header: map[string]string{"Sec-Fetch-Site": "cross-site"}}, "PreToolUse", permission.CodeCrossOrigin},
		"a wrong token":            {req{body: pr, token: "not-the-token"}, "PermissionRequest", permission.CodeUnauthorized},
		"unknown query":            {req{body: pre, path: HookClaudePath + "?destinaton=user"}, "PreToolUse", "destinaton"},
		"bad destination":          {req{body: pre, path: HookClaudePath + "?destination=managed"}, "PreToolUse", "destination"},
		"body over max_body_bytes": {req{body: big}, "PreToolUse", "max_body_bytes"},
	} {
		status, got := s.hookPost(t, c.q)
		var a struct {
			HSO map[string]any `json:"hookSpecificOutput"`
		}
		_ = json.Unmarshal([]byte(got), &a)
		v := verdict(t, got)
		if status != http.StatusOK || v != "deny" || a.HSO["hookEventName"] != c.event || !strings.Contains(got, c.in) {
			t.Errorf("%s: %d %s (read as %s), want a %s deny naming %s", name, status, got, v, c.event, c.in)
		}
	}
	// The administrators' token, and none, are both answered (the route
	// only decides, as a check).
	for _, tok := range []string{"", admin, h.token(t, hookproto.TokenFileName)} {
		if _, got := s.hookPost(t, req{body: pre, token: tok}); verdict(t, got) != "ask" {
			t.Errorf("token %q: %s", tok, got)
		}
	}
	// The refused requests wrote nothing and decided nothing.
	if rules := h.p.Engine().Settings().AllRules(); len(rules) != 1 {
		t.Errorf("rules after the refusals: %v", rules)
	}
}
