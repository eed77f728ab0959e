package opaplugin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/permopa/permopa/internal/engineops"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// With decision_cache on, a repeated check is answered from the cache
// (and says so to the decision log), and every bundle activation, of
// rules data or of a policy, makes the next check decide again.
func TestDecisionCacheFollowsBundles(t *testing.T) {
	t.Parallel()
	bs := newBundleServer(t)
	bs.set(t, "org", "r1", []string{"permopa/rules"}, nil, map[string]any{"permopa": map[string]any{"rules": map[string]any{}}})
	h := start(t, bs, `{"decision_cache": {"entries": 100}}`)
	h.trigger(t)
	check := func(id string) (permission.Decision, bool) {
		t.Helper()
		var in any
		if err := json.Unmarshal([]byte(`{"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}, "cwd": "/tmp", "tool_use_id": "`+id+`"}`), &in); err != nil {
			t.Fatal(err)
		}
		ctx, hit := engineops.WithCacheHitReport(context.Background())
		d, err := h.p.decide(ctx, in, nil)
		if err != nil {
			t.Fatal(err)
		}
		return d, hit()
	}
	if d, hit := check("t1"); d.Behavior != permission.Ask || hit {
		t.Fatalf("first: %+v hit %v", d, hit)
	}
	if d, hit := check("t2"); d.Behavior != permission.Ask || !hit || d.ToolUseID != "t2" {
		t.Fatalf("repeated: %+v hit %v", d, hit)
	}
	dir := settingsDir(t, "")
	org := filepath.Join(dir, "org.yaml")
	if err := os.WriteFile(org, []byte("permissions:\n  deny: [\"Bash(rm:*)\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rules, _, err := settings.ExportRules([]string{org}, settings.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bs.set(t, "org", "r2", []string{"permopa/rules"}, nil, map[string]any{"permopa": map[string]any{"rules": rules}})
	h.trigger(t)
	if d, hit := check("t3"); d.Behavior != permission.Deny || hit {
		t.Fatalf("after the rules bundle: %+v hit %v", d, hit)
	}
	if d, hit := check("t4"); d.Behavior != permission.Deny || !hit {
		t.Fatalf("repeated after the rules bundle: %+v hit %v", d, hit)
	}
	bs.set(t, "org", "r3", nil, map[string]string{"org.rego": `package permopa.policy
decision := {"behavior": "ALLOW", "message": "org policy", "reason": "org", "step": "allow_rule", "suggested_rules": []}
`}, nil)
	h.trigger(t)
	if d, hit := check("t5"); d.Behavior != permission.Allow || hit {
		t.Fatalf("after the policy bundle: %+v hit %v", d, hit)
	}
}
