package main_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
)

// `permopa explain` and `permopa decide` agree on every case of the
// decision matrix and on the table of Bash calls of adapter's tests, in
// every mode: the same decision, explained as decided at its own step,
// with its rule. The quick suite checks each matrix row and each Bash
// call in one mode, a different one row after row (every mode and every row
// still checked); -tags slow checks every row in every mode (issue 25, the
// quick suite; docs/development.md).
func TestExplainAgreesWithDecide(t *testing.T) {
	t.Parallel()
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	add := func(in map[string]any) {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	// sampled: the quick suite's one mode for row i, or every mode.
	sampled := func(i, j, modes int) bool { return slowTests || j == i%modes }
	for i, row := range adapter.BuildMatrix(context.Background(), eng).Rows {
		modes := adapter.MatrixModes()
		for j, mode := range modes {
			if sampled(i, j, len(modes)) {
				add(row.Input(mode))
			}
		}
	}
	raw, err := os.ReadFile("../../adapter/explain/testdata/bash-calls.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	calls := strings.Split(strings.TrimSpace(string(raw)), "\n")
	calls = append(calls, `{"tool_name":"Bash","tool_input":{"command":"echo`+strings.Repeat(" a", 20_000)+`"},"cwd":"/tmp/permopa-ws"}`)
	for i, c := range calls {
		modes := []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"}
		for j, mode := range modes {
			if !sampled(i, j, len(modes)) {
				continue
			}
			var in map[string]any
			if err := json.Unmarshal([]byte(c), &in); err != nil {
				t.Fatal(err)
			}
			in["permission_mode"] = mode
			add(in)
		}
	}
	stdin := strings.Join(lines, "\n") + "\n"
	decided, stderr, code := permopa(t, stdin, "decide")
	if code != 0 {
		t.Fatalf("decide: exit %d: %s", code, stderr)
	}
	explained, stderr, code := permopa(t, stdin, "explain", "--json")
	if code != 0 {
		t.Fatalf("explain: exit %d: %s", code, stderr)
	}
	ds := strings.Split(strings.TrimSpace(decided), "\n")
	es := strings.Split(strings.TrimSpace(explained), "\n")
	if len(ds) != len(lines) || len(es) != len(lines) {
		t.Fatalf("%d inputs, %d decisions, %d explanations", len(lines), len(ds), len(es))
	}
	type rule struct {
		ToolName    string  `json:"tool_name"`
		RuleContent *string `json:"rule_content"`
		Layer       string  `json:"layer"`
	}
	type decision struct {
		Behavior, Step, Message string
		MatchedRule             *rule `json:"matched_rule"`
	}
	for i := range lines {
		var d decision
		var ex struct {
			Decision decision
			Points   []struct {
				Step, Status string
				Rule         *rule
			}
		}
		if err := json.Unmarshal([]byte(ds[i]), &d); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(es[i]), &ex); err != nil {
			t.Fatal(err)
		}
		name := lines[i]
		if len(name) > 160 {
			name = name[:160]
		}
		if ex.Decision.Behavior != d.Behavior || ex.Decision.Step != d.Step || ex.Decision.Message != d.Message {
			t.Errorf("%s: explain %+v, decide %+v", name, ex.Decision, d)
		}
		n := 0
		for _, p := range ex.Points {
			if p.Status != "decided" {
				continue
			}
			n++
			if p.Step != d.Step {
				t.Errorf("%s: explain decides at %s, decide at %s", name, p.Step, d.Step)
			}
			if d.MatchedRule != nil && (p.Rule == nil || p.Rule.ToolName != d.MatchedRule.ToolName ||
				p.Rule.Layer != d.MatchedRule.Layer || (p.Rule.RuleContent == nil) != (d.MatchedRule.RuleContent == nil) ||
				(p.Rule.RuleContent != nil && *p.Rule.RuleContent != *d.MatchedRule.RuleContent)) {
				t.Errorf("%s: explain's rule %+v, decide's %+v", name, p.Rule, d.MatchedRule)
			}
		}
		if n != 1 {
			t.Errorf("%s: %d decided points", name, n)
		}
	}
}
