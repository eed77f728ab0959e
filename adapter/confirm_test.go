package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// project is a real project on disk with its own managed, user and project
// settings directories, and an engine attached to its layers.
type project struct {
	dir, managed, user, home string
	eng                      *engine.Engine
	layers                   *settings.Layers
}

func newProject(t *testing.T) *project {
	t.Helper()
	root := t.TempDir()
	p := &project{
		dir:     filepath.Join(root, "proj"),
		managed: filepath.Join(root, "etc"),
		user:    filepath.Join(root, "home", ".config", "permopa"),
		home:    filepath.Join(root, "home"),
	}
	for _, d := range []string{p.dir, p.managed, p.user} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	eng, err := engine.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.eng = eng
	p.layers = settings.NewLayers(p.options())
	if problems := p.layers.Attach(ctx, eng); len(problems) > 0 {
		t.Fatalf("attach: %v", problems)
	}
	return p
}

func (p *project) options() settings.LayerOptions {
	return settings.LayerOptions{
		ManagedDir: p.managed, ProjectDir: p.dir, UserDir: p.user,
		Home: p.home, Cwd: p.dir, Environ: []string{},
	}
}

func (p *project) write(t *testing.T, rel, content string) string {
	t.Helper()
	f := filepath.Join(p.dir, rel)
	if filepath.IsAbs(rel) {
		f = rel
	}
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// askingCalls are calls that ASK in DEFAULT mode with no rules, each with
// suggestions that must round-trip.
func askingCalls(dir string) map[string]adapter.Call {
	bash := func(cmd string) adapter.Call {
		return adapter.Call{ToolName: "Bash", ToolInput: map[string]any{"command": cmd}, Cwd: dir}
	}
	return map[string]adapter.Call{
		"Bash single":              bash("npm install"),
		"Bash compound":            bash("make build && cargo test --all | tee out.log; go vet ./..."),
		"Bash interpreter":         bash("python3 scripts/gen.py --fast"),
		"Bash wrapper":             bash("timeout 10 docker compose up -d"),
		"Write in working dir":     {ToolName: "Write", ToolInput: map[string]any{"file_path": filepath.Join(dir, "src", "a.go"), "content": "x"}, Cwd: dir},
		"Write out of working dir": {ToolName: "Write", ToolInput: map[string]any{"file_path": "/var/tmp/permopa-out/a.txt", "content": "x"}, Cwd: dir},
		"Edit in working dir":      {ToolName: "Edit", ToolInput: map[string]any{"file_path": filepath.Join(dir, "docs", "x.md")}, Cwd: dir},
		"Edit out of working dir":  {ToolName: "Edit", ToolInput: map[string]any{"file_path": "/opt/other/main.go"}, Cwd: dir},
		"Edit relative":            {ToolName: "Edit", ToolInput: map[string]any{"file_path": "lib/util.go"}, Cwd: dir},
		"MCP tool":                 {ToolName: "mcp__github__create_issue", ToolInput: map[string]any{"title": "x"}, Cwd: dir},
		"custom tool":              {ToolName: "deploy", ToolInput: map[string]any{"env": "prod"}, Cwd: dir},
		"WebFetch":                 {ToolName: "WebFetch", ToolInput: map[string]any{"url": "https://docs.example.com/a"}, Cwd: dir},
	}
}

// Accepting every suggestion of an ASK makes the same call ALLOW, for every
// destination, and the deciding rule names its layer.
func TestSuggestionsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, dest := range []string{"session", "local", "project", "user"} {
		t.Run(dest, func(t *testing.T) {
			p := newProject(t)
			for name, call := range askingCalls(p.dir) {
				call.SessionID = "s1"
				d := adapter.Decide(ctx, p.eng, call)
				if d.Behavior != permission.Ask || len(d.SuggestedRules) == 0 {
					t.Errorf("%s: want ASK with suggestions, got %s/%s %v", name, d.Behavior, d.Step, d.SuggestedRules)
					continue
				}
				c, err := adapter.Confirm(ctx, p.eng, p.layers, adapter.ConfirmResult{
					Confirmed: true, ToolCall: call, Rules: d.SuggestedRules, Destination: dest,
				})
				if err != nil {
					t.Fatalf("%s: confirm: %v", name, err)
				}
				if !c.Approved || len(c.Rules) != len(d.SuggestedRules) {
					t.Errorf("%s: confirmation %+v", name, c)
				}
				again := adapter.Decide(ctx, p.eng, call)
				if again.Behavior != permission.Allow || again.Step != permission.StepAllowRule {
					t.Errorf("%s: after accepting %v: %s/%s %s", name, d.SuggestedRules, again.Behavior, again.Step, again.Message)
					continue
				}
				if again.MatchedRule == nil || again.MatchedRule.Layer == "" || again.MatchedRule.Source == "" {
					t.Errorf("%s: matched rule without layer: %+v", name, again.MatchedRule)
				}
			}
			if dest != "session" {
				// A fresh engine reading the same files decides the same way: the rules persisted.
				fresh, err := engine.New(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if problems := settings.NewLayers(p.options()).Attach(ctx, fresh); len(problems) > 0 {
					t.Fatal(problems)
				}
				for name, call := range askingCalls(p.dir) {
					if d := adapter.Decide(ctx, fresh, call); d.Behavior != permission.Allow {
						t.Errorf("%s: a new engine on the same files: %s %s", name, d.Behavior, d.Message)
					}
				}
			}
		})
	}
}

// Safety ASKs carry no suggestions: no rule can clear them.
func TestSafetyAsksHaveNoSuggestions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newProject(t)
	for name, call := range map[string]adapter.Call{
		"Write .bashrc":         {ToolName: "Write", ToolInput: map[string]any{"file_path": filepath.Join(p.dir, ".bashrc")}, Cwd: p.dir},
		"Edit .git/config":      {ToolName: "Edit", ToolInput: map[string]any{"file_path": filepath.Join(p.dir, ".git", "config")}, Cwd: p.dir},
		"rm -rf /":              {ToolName: "Bash", ToolInput: map[string]any{"command": "rm -rf /"}, Cwd: p.dir},
		"Bash writes .env":      {ToolName: "Bash", ToolInput: map[string]any{"command": "echo A=1 > .env"}, Cwd: p.dir},
		"Bash not analysable":   {ToolName: "Bash", ToolInput: map[string]any{"command": "eval \"$CMD\""}, Cwd: p.dir},
		"Read private key":      {ToolName: "Read", ToolInput: map[string]any{"file_path": filepath.Join(p.home, ".ssh", "id_rsa")}, Cwd: p.dir},
		"host safety ASK (MCP)": {ToolName: "mcp__db__drop", ToolInput: map[string]any{}, Cwd: p.dir, ToolCheck: &adapter.ToolCheck{Behavior: "ASK", BypassImmune: true, Message: "drops a table"}},
	} {
		d := adapter.Decide(ctx, p.eng, call)
		if d.Behavior != permission.Ask || !d.BypassImmune || d.Step != permission.StepToolCheck {
			t.Errorf("%s: want a safety ASK, got %s/%s immune=%v", name, d.Behavior, d.Step, d.BypassImmune)
		}
		if len(d.SuggestedRules) != 0 {
			t.Errorf("%s: safety ASK with suggestions %v", name, d.SuggestedRules)
		}
	}
}

// A rule with a ttl matches until it expires, then the call asks again.
func TestConfirmedRuleExpires(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, dest := range []string{"session", "local"} {
		// Each destination in a project of its own, side by side: each
		// waits a second of real time for its rule to expire.
		t.Run(dest, func(t *testing.T) {
			t.Parallel()
			expiresIn(ctx, t, newProject(t), dest)
		})
	}
}

// expiresIn confirms a rule with a one-second ttl to dest and checks the
// call is allowed before the expiry and asks again after it.
func expiresIn(ctx context.Context, t *testing.T, p *project, dest string) {
	t.Helper()
	call := adapter.Call{ToolName: "Bash", ToolInput: map[string]any{"command": "npm test"}, Cwd: p.dir}
	d := adapter.Decide(ctx, p.eng, call)
	if d.Behavior != permission.Ask {
		t.Fatalf("%s: before: %+v", dest, d)
	}
	c, err := adapter.Confirm(ctx, p.eng, p.layers, adapter.ConfirmResult{Confirmed: true, ToolCall: call, Rules: d.SuggestedRules, Destination: dest, TTL: "1s"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Rules[0].Expires == "" {
		t.Fatalf("%s: rule written without expiry: %+v", dest, c.Rules)
	}
	if d := adapter.Decide(ctx, p.eng, call); d.Behavior != permission.Allow {
		t.Fatalf("%s: before expiry: %+v", dest, d)
	}
	exp, _ := time.Parse(time.RFC3339, c.Rules[0].Expires)
	time.Sleep(time.Until(exp) + 20*time.Millisecond)
	if d := adapter.Decide(ctx, p.eng, call); d.Behavior != permission.Ask {
		t.Fatalf("%s: after expiry: %s via %+v", dest, d.Behavior, d.MatchedRule)
	}
}

// Not confirmed: the call is not approved and allow rules are not kept;
// confirmed without rules is a one-shot approval.
func TestConfirmDeniedAndOneShot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newProject(t)
	call := adapter.Call{ToolName: "deploy", ToolInput: map[string]any{"env": "prod"}, Cwd: p.dir}
	d := adapter.Decide(ctx, p.eng, call)
	c, err := adapter.Confirm(ctx, p.eng, p.layers, adapter.ConfirmResult{Confirmed: false, ToolCall: call, Rules: d.SuggestedRules, Destination: "local"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Approved || c.Message != "Permission denied by user" || len(c.Rules) != 0 {
		t.Fatalf("denied: %+v", c)
	}
	if _, err := os.Stat(filepath.Join(p.dir, ".permopa", "settings.local.yaml")); err == nil {
		t.Error("a denied confirmation wrote the local settings file")
	}
	c, err = adapter.Confirm(ctx, p.eng, p.layers, adapter.ConfirmResult{Confirmed: true, ToolCall: call})
	if err != nil || !c.Approved || c.Decision.Behavior != permission.Ask {
		t.Fatalf("one-shot: %+v %v", c, err)
	}
	// "No, and never": a deny rule in a refusal is kept.
	c, err = adapter.Confirm(ctx, p.eng, p.layers, adapter.ConfirmResult{Confirmed: false, ToolCall: call, Rules: adapter.RuleList{{ToolName: "deploy", Behavior: "deny"}}, Destination: "project"})
	if err != nil || c.Approved || c.Decision.Behavior != permission.Deny || c.Decision.MatchedRule.Source != settings.SourceProject {
		t.Fatalf("deny and remember: %+v %v", c, err)
	}
}

// ConfirmResult reads AgentScope's JSON, rules as objects or strings; bad
// rules and destinations are errors naming them.
func TestConfirmResultJSON(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newProject(t)
	doc := `{"confirmed": true, "destination": "session", "ttl": "24h",
	  "tool_call": {"tool_name": "Bash", "tool_input": {"command": "npm run build"}, "cwd": "` + p.dir + `", "session_id": "s9"},
	  "rules": [{"tool_name": "Bash", "rule_content": "npm run:*", "behavior": "allow", "source": "suggested"}, "Bash(npm ci)"]}`
	var res adapter.ConfirmResult
	if err := json.Unmarshal([]byte(doc), &res); err != nil {
		t.Fatal(err)
	}
	c, err := adapter.Confirm(ctx, p.eng, p.layers, res)
	if err != nil || !c.Approved || c.Decision.Behavior != permission.Allow || c.Decision.MatchedRule.Layer != "session:s9" {
		t.Fatalf("%+v %v", c, err)
	}
	// Session rules belong to their session.
	other := res.ToolCall
	other.SessionID = "s10"
	if d := adapter.Decide(ctx, p.eng, other); d.Behavior != permission.Ask {
		t.Errorf("another session: %s", d.Behavior)
	}
	for doc, want := range map[string]string{
		`{"confirmed": true, "tool_call": {"tool_name": "Bash", "tool_input": {}}, "rules": ["Bash(x"]}`:                                        "Bash(x",
		`{"confirmed": true, "tool_call": {"tool_name": "Read", "tool_input": {}}, "rules": [{"tool_name": "Read", "rule_content": "src/[a"}]}`: "Read(src/[a)",
	} {
		var res adapter.ConfirmResult
		err := json.Unmarshal([]byte(doc), &res)
		if err == nil {
			_, err = adapter.Confirm(ctx, p.eng, p.layers, res)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v should name %s", doc, err, want)
		}
	}
	for res, want := range map[*adapter.ConfirmResult][2]string{
		{Confirmed: true, ToolCall: res.ToolCall, Destination: "team"}:                                                              {"team", permission.CodeInvalidDestination},
		{Confirmed: true, ToolCall: res.ToolCall, Rules: res.Rules, TTL: "soon"}:                                                    {"soon", permission.CodeInvalidTTL},
		{Confirmed: true, Rules: res.Rules}:                                                                                         {"tool_call.tool_name", permission.CodeInvalidToolCall},
		{Confirmed: true, ToolCall: res.ToolCall, Rules: adapter.RuleList{{ToolName: "WebFetch", RuleContent: ptr("example.com")}}}: {"WebFetch(example.com)", permission.CodeInvalidRule},
	} {
		_, err := adapter.Confirm(ctx, p.eng, p.layers, *res)
		var ce *permission.Error
		if !errors.As(err, &ce) || ce.Code != want[1] || !strings.Contains(err.Error(), want[0]) {
			t.Errorf("error %v should name %s with code %s", err, want[0], want[1])
		}
	}
}

func ptr(s string) *string { return &s }
