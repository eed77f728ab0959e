package adapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// TestGeminiWebFetchChecksEveryURL (issue 24): Gemini CLI's web_fetch
// fetches the URLs in its prompt (and, in its direct mode, url). Every one
// is decided against the WebFetch rules, end to end through `permopa hook
// gemini`: DENY when any URL is denied, ALLOW only when every URL is
// allowed, ASK otherwise; hosts are read as a browser's URL parser reads
// them, and a URL whose host is in doubt blocks the call.
func TestGeminiWebFetchChecksEveryURL(t *testing.T) {
	t.Parallel()
	var rules []permission.Rule
	for s, b := range map[string]string{
		"WebFetch(domain:evil.example)":              permission.Deny,
		"WebFetch(domain:raw.githubusercontent.com)": permission.Deny,
		"WebFetch(domain:10.0.0.1)":                  permission.Deny,
		"WebFetch(domain:docs.python.org)":           permission.Allow,
		"WebFetch(domain:github.com)":                permission.Allow,
	} {
		r, err := settings.ParseRule(s, b)
		if err != nil {
			t.Fatal(err)
		}
		r.Source, r.Layer = "userSettings", "/root/.permopa/settings.yaml"
		rules = append(rules, r)
	}
	eng, err := engine.New(context.Background(), engine.WithSettings(settings.Settings{Home: "/root", Rules: rules}))
	if err != nil {
		t.Fatal(err)
	}
	opts := adapter.HookOptions{Engine: func(context.Context, string) (*engine.Engine, error) { return eng, nil }}
	const blocked = "blocked" // a deny that says the call could not be decided
	cases := []struct {
		name string
		in   map[string]any
		want string // allow, ask, deny, blocked
		say  string
	}{
		{"url allowed", map[string]any{"url": "https://docs.python.org/3/"}, "allow", ""},
		{"the issue's call", map[string]any{"url": "https://docs.python.org/3/", "prompt": "summarize https://evil.example/x"}, "deny", "evil.example"},
		{"prompt only, allowed", map[string]any{"prompt": "Summarize https://docs.python.org/3/library/ in 3 lines"}, "allow", ""},
		{"prompt only, denied", map[string]any{"prompt": "Summarize https://evil.example/x"}, "deny", "evil.example"},
		{"prompt only, unknown host", map[string]any{"prompt": "Compare https://docs.python.org/3/ with https://other.example/"}, "ask", "other.example"},
		{"a denied URL among allowed ones", map[string]any{"prompt": "https://docs.python.org/a https://github.com/o/r https://evil.example/b"}, "deny", "evil.example"},
		{"split at a newline", map[string]any{"prompt": "read:\nhttps://evil.example/x"}, "deny", ""},
		{"split at a no-break space", map[string]any{"prompt": "read\u00a0https://evil.example/x"}, "deny", ""},
		{"split at a byte-order mark", map[string]any{"prompt": "https://docs.python.org/\ufeffhttps://evil.example/x"}, "deny", ""},
		{"backslash before the host", map[string]any{"prompt": "https://evil.example\\@docs.python.org/"}, "deny", ""},
		{"backslashes as slashes", map[string]any{"url": "https:\\\\evil.example/x"}, "deny", ""},
		{"no slashes at all", map[string]any{"url": "https:evil.example"}, "deny", ""},
		{"several @ in the authority", map[string]any{"prompt": "https://docs.python.org@x@evil.example/"}, "deny", ""},
		{"user and password", map[string]any{"prompt": "https://docs.python.org:pw@evil.example/"}, "deny", ""},
		{"upper case and a trailing dot", map[string]any{"prompt": "HTTPS://EVIL.EXAMPLE./x"}, "deny", ""},
		{"percent-encoded host", map[string]any{"prompt": "https://evil%2Eexample/x"}, "deny", ""},
		{"default port", map[string]any{"prompt": "https://evil.example:443/x"}, "deny", ""},
		{"a tab inside the host", map[string]any{"url": "https://evil.exa\tmple/x"}, "deny", ""},
		{"IPv4 in hex", map[string]any{"prompt": "http://0xa.1/"}, "deny", ""},
		{"IPv4 as one number", map[string]any{"prompt": "http://167772161/"}, "deny", ""},
		{"a GitHub blob URL is fetched raw", map[string]any{"prompt": "explain https://github.com/o/r/blob/main/x.go"}, "deny", "raw.githubusercontent.com"},
		{"no URL at all", map[string]any{"prompt": "what is the weather"}, blocked, "names no URL"},
		{"another scheme", map[string]any{"prompt": "fetch ftp://evil.example/x"}, blocked, "only http and https"},
		{"a non-ASCII host", map[string]any{"prompt": "https://evil\u3002example/"}, blocked, "not ASCII"},
		{"a non-string url", map[string]any{"url": 1}, blocked, "tool_input.url"},
		{"an empty label", map[string]any{"prompt": "https://evil..example/"}, blocked, "empty label"},
		{"a bad port", map[string]any{"prompt": "https://evil.example:99999/"}, blocked, "bad port"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			payload, _ := json.Marshal(map[string]any{"hook_event_name": "BeforeTool", "cwd": "/w", "tool_name": "web_fetch", "tool_input": c.in})
			out, errOut, code := runHook(t, "gemini", string(payload), opts)
			if code != 0 {
				t.Fatalf("exit %d: %s %s", code, out, errOut)
			}
			got := decode(t, out)
			want := c.want
			if want == blocked {
				want = "deny"
			}
			if got["decision"] != want {
				t.Fatalf("decision %v, want %s: %s", got["decision"], c.want, out)
			}
			reason, _ := got["reason"].(string)
			if (c.want == blocked) != strings.Contains(reason, "could not decide it") {
				t.Errorf("blocked as undecidable: %v, want %v: %s", !(c.want == blocked), c.want == blocked, reason)
			}
			if c.want == "deny" && !strings.Contains(reason, "WebFetch(domain:") {
				t.Errorf("no deny rule named: %s", reason)
			}
			if !strings.Contains(reason, c.say) {
				t.Errorf("the reason does not say %q: %s", c.say, reason)
			}
		})
	}
}
