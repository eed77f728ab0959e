package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

func strp(s string) *string { return &s }

func npmInstall() map[string]any {
	return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "npm install"}, "cwd": "/w"}
}

// Settings change without re-preparing: the next Decide sees the new rules.
func TestSetSettingsChangesDecisions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w"}))
	if err != nil {
		t.Fatal(err)
	}
	if d := eng.Decide(ctx, npmInstall()); d.Behavior != permission.Ask {
		t.Fatalf("before: %+v", d)
	}
	s := eng.Settings()
	s.Rules = append(s.Rules, permission.Rule{ToolName: "Bash", RuleContent: strp("npm install:*"), Behavior: "ALLOW", Source: "userSettings", Layer: "user"})
	if err := eng.SetSettings(ctx, s); err != nil {
		t.Fatal(err)
	}
	d := eng.Decide(ctx, npmInstall())
	if d.Behavior != permission.Allow || d.Step != permission.StepAllowRule || d.MatchedRule == nil || d.MatchedRule.Layer != "user" {
		t.Fatalf("after: %+v", d)
	}
	s.Rules = append(s.Rules, permission.Rule{ToolName: "Bash", RuleContent: strp("npm:*"), Behavior: "DENY", Source: "projectSettings", Layer: "project"})
	if err := eng.SetSettings(ctx, s); err != nil {
		t.Fatal(err)
	}
	if d := eng.Decide(ctx, npmInstall()); d.Behavior != permission.Deny || d.MatchedRule.Layer != "project" {
		t.Fatalf("deny anywhere wins: %+v", d)
	}
}

// Concurrent Decide calls while settings change: no race, every answer is one of the two states.
func TestConcurrentDecide(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w"}))
	if err != nil {
		t.Fatal(err)
	}
	allow := settings.Settings{Home: "/home/u", Cwd: "/w", Rules: []permission.Rule{{ToolName: "Bash", RuleContent: strp("npm install"), Behavior: "ALLOW", Layer: "session"}}}
	var wg sync.WaitGroup
	errs := make(chan string, 1000)
	for g := 0; g < 20; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				d := eng.Decide(ctx, npmInstall())
				if d.Behavior != permission.Ask && d.Behavior != permission.Allow {
					errs <- d.Behavior + " " + d.Message
				}
			}
		}()
	}
	for i := 0; i < 10; i++ {
		s := settings.Settings{Home: "/home/u", Cwd: "/w"}
		if i%2 == 0 {
			s = allow
		}
		if err := eng.SetSettings(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// A cancelled context fails closed with code timeout.
func TestCancelledContextFailsClosed(t *testing.T) {
	t.Parallel()
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	time.Sleep(time.Millisecond)
	d := eng.Decide(ctx, npmInstall())
	if d.Behavior != permission.Deny || d.Step != permission.StepError || d.Code != permission.CodeTimeout {
		t.Fatalf("got %+v", d)
	}
}

// A policy whose entrypoint is undefined, or that produces a non-decision,
// fails closed.
func TestBadPolicyFailsClosed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := map[string]struct{ src, code string }{
		"undefined":              {"package bad\ndecision := 1 if false\n", permission.CodeUndefinedDecision},
		"not a decision":         {"package bad\ndecision := {\"behavior\": \"MAYBE\"}\n", permission.CodeBadDecision},
		"allow without behavior": {"package bad\ndecision := \"ALLOW\"\n", permission.CodeBadDecision},
		"builtin error":          {"package bad\ndecision := {\"behavior\": \"ALLOW\"} if permopa.glob.match_any([\"[\"], [\"/x\"], {}) == 0\n", permission.CodeEvalError},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			p := write(strings.ReplaceAll(name, " ", "_")+".rego", c.src)
			eng, err := engine.New(context.Background(), engine.WithoutDefaultPolicy(), engine.WithPolicyPaths(p), engine.WithQuery("data.bad.decision"))
			if err != nil {
				t.Fatal(err)
			}
			d := eng.Decide(context.Background(), npmInstall())
			if d.Behavior != permission.Deny || d.Step != permission.StepError || d.Code != c.code {
				t.Fatalf("got %+v, want DENY/error/%s", d, c.code)
			}
		})
	}
}

func TestLoadSettingsFileKeepsValidRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.yaml")
	src := `permissions:
  defaultMode: acceptEdits
  allow: ["Bash(npm run:*)", {tool_name: deploy, rule_content: null}, "Bash(unclosed"]
  deny: ["Read(~/.ssh/**)", {rule_content: "x"}]
  additionalDirectories: ["../lib"]
bypass_honours_safety: true
`
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, problems, err := settings.LoadSettingsFile(p, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 2 {
		t.Fatalf("want 2 problems, got %v", problems)
	}
	for _, pr := range problems {
		if !strings.Contains(pr.Error(), p) {
			t.Errorf("problem %q does not name the file", pr)
		}
	}
	if len(s.Rules) != 3 || s.DefaultMode != "acceptEdits" || !s.BypassHonoursSafety {
		t.Fatalf("settings: %+v", s)
	}
	if s.WorkingDirectories[0] != filepath.Join(filepath.Dir(dir), "lib") {
		t.Errorf("additionalDirectories resolved to %v", s.WorkingDirectories)
	}
}

func TestParseRule(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Bash":                   "Bash",
		"Bash(npm run:*)":        "Bash(npm run:*)",
		"Bash()":                 "Bash",
		"Bash(echo (x))":         "Bash(echo (x))",
		"WebFetch(domain:x.com)": "WebFetch(domain:x.com)",
		"mcp__github__*":         "mcp__github__*",
		"  Write(src/**)  ":      "Write(src/**)",
	} {
		r, err := settings.ParseRule(in, "allow")
		if err != nil || r.String() != want || r.Behavior != "ALLOW" {
			t.Errorf("ParseRule(%q) = %v, %v; want %s", in, r, err, want)
		}
	}
	for _, bad := range []string{"", "(x)", "Bash(x", "Bash x", "Ba sh(x)"} {
		if _, err := settings.ParseRule(bad, "deny"); err == nil || !strings.Contains(err.Error(), "rule") {
			t.Errorf("ParseRule(%q) should fail naming the rule, got %v", bad, err)
		}
	}
}
