package explain_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/adapter/explain"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
)

// explainModes are the modes every call is explained in.
var explainModes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"}

// bashExplainCalls reads the table of Bash calls (compound commands,
// deny/ask/allow rule hits, safety ASKs, read-only and network reads) and
// adds calls beyond the analyser's limits.
func bashExplainCalls(t *testing.T) []map[string]any {
	t.Helper()
	f, err := os.Open("testdata/bash-calls.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var in map[string]any
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			t.Fatal(err)
		}
		out = append(out, in)
	}
	for _, cmd := range []string{
		strings.Repeat("$(", 200) + "ls" + strings.Repeat(")", 200),
		"echo" + strings.Repeat(" a", 20_000),
		strings.Repeat("ls|", 5000) + "ls",
	} {
		out = append(out, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": "/tmp/permopa-ws"})
	}
	return out
}

func inMode(in map[string]any, mode string) map[string]any {
	out := make(map[string]any, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	out["permission_mode"] = mode
	return out
}

// assertExplainAgrees holds the policy's explanation of a call (through
// eng.Evaluate of explain.Query and through explain.Decide) to the decision:
// the same decision, exactly one decided point, at the decision's step,
// with its rule; passed or skipped points before it, none reached after.
func assertExplainAgrees(t *testing.T, eng *engine.Engine, in map[string]any, name string) {
	t.Helper()
	ctx := context.Background()
	d := eng.Decide(ctx, in)
	raw, err := eng.Evaluate(ctx, explain.Query, in)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	doc, _ := raw.(map[string]any)
	pd, _ := doc["decision"].(map[string]any)
	if pd["behavior"] != d.Behavior || pd["step"] != d.Step || pd["message"] != d.Message {
		t.Errorf("%s: explanation's decision %v at %v (%v), decision %s at %s (%s)", name,
			pd["behavior"], pd["step"], pd["message"], d.Behavior, d.Step, d.Message)
	}
	ex, err := explain.Decide(ctx, eng, in)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !reflect.DeepEqual(ex.Decision, d) {
		t.Errorf("%s: explained decision %+v, decision %+v", name, ex.Decision, d)
	}
	var decided []explain.Point
	seen := false
	for _, p := range ex.Points {
		switch {
		case p.Status == "decided":
			decided = append(decided, p)
			seen = true
		case seen && p.Status != "not reached":
			t.Errorf("%s: point %d after the decided one is %s", name, p.Point, p.Status)
		case !seen && p.Status != "passed" && p.Status != "skipped":
			t.Errorf("%s: point %d before the decided one is %s (%s)", name, p.Point, p.Status, p.Detail)
		}
	}
	if len(ex.Points) != 6 && !(d.Step == permission.StepError && len(ex.Points) == 7) {
		t.Errorf("%s: %d points", name, len(ex.Points))
	}
	if len(decided) != 1 || decided[0].Step != d.Step {
		t.Fatalf("%s: decided points %+v, decision at %s", name, decided, d.Step)
	}
	p := decided[0]
	switch d.Step {
	case permission.StepDenyRule, permission.StepDenyRuleUncertain, permission.StepAskRule, permission.StepAllowRule:
		if p.Rule == nil || d.MatchedRule == nil || ruleKey(*p.Rule) != ruleKey(*d.MatchedRule) {
			t.Errorf("%s: point %d rule %+v, decision's %+v", name, p.Point, p.Rule, d.MatchedRule)
		}
	default:
		if d.MatchedRule != nil {
			t.Errorf("%s: decision at %s has rule %v", name, d.Step, d.MatchedRule)
		}
	}
	if ex.Tool != "Bash" || d.Step == permission.StepError {
		return
	}
	// Why a command is not read-only lists a reason exactly when the
	// read-only rule does not hold.
	v, err := eng.Evaluate(ctx, `ro := [x | data.permopa.policy.tools.bash.read_only; x := true]
why := data.permopa.policy.tools.bash.not_read_only_because`, in)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, _ := v.(map[string]any)
	ro, _ := b["ro"].([]any)
	why, _ := b["why"].([]any)
	if (len(ro) == 1) != (len(why) == 0) {
		t.Errorf("%s: read-only %v, but not read-only because %v", name, len(ro) == 1, why)
	}
	switch d.Step {
	case permission.StepDenyRule, permission.StepAskRule:
		if len(p.Leaves) == 0 {
			t.Errorf("%s: the %s hits no leaf", name, d.Step)
		}
	case permission.StepAllowRule:
		if len(p.Coverage) == 0 {
			t.Errorf("%s: allowed by rule, no coverage", name)
		}
		for _, c := range p.Coverage {
			if c.By == "" {
				t.Errorf("%s: allowed by rule, but leaf %d is not covered: %+v", name, c.Leaf+1, p.Coverage)
			}
		}
	}
}

func ruleKey(r permission.Rule) string {
	return r.String() + "|" + r.Behavior + "|" + r.Layer + "|" + r.Source
}

// The explanation and the decision agree on every case of the decision
// matrix, in every mode.
func TestExplainAgreesWithMatrix(t *testing.T) {
	t.Parallel()
	eng := testEngine(t)
	m := adapter.BuildMatrix(context.Background(), eng)
	for _, row := range m.Rows {
		for _, mode := range adapter.MatrixModes() {
			assertExplainAgrees(t, eng, row.Input(mode), row.Title+" / "+mode)
		}
	}
}

// The explanation and the decision agree on a table of Bash calls in every mode.
func TestExplainAgreesOnBashCalls(t *testing.T) {
	t.Parallel()
	eng := testEngine(t)
	steps := map[string]bool{}
	for _, in := range bashExplainCalls(t) {
		for _, mode := range explainModes {
			call := inMode(in, mode)
			name := mode + " " + in["tool_input"].(map[string]any)["command"].(string)
			if len(name) > 80 {
				name = name[:80]
			}
			assertExplainAgrees(t, eng, call, name)
			steps[eng.Decide(context.Background(), call).Step] = true
		}
	}
	// The table reaches every decision point.
	for _, s := range []string{permission.StepError, permission.StepDenyRule, permission.StepDenyRuleUncertain, permission.StepAskRule, permission.StepReadOnly,
		permission.StepToolCheck, permission.StepAllowRule, permission.StepModeFallback} {
		if !steps[s] {
			t.Errorf("no call of the table is decided at %s", s)
		}
	}
}
