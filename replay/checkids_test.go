package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// checkLog is a log of Bash calls, each with its recorded result (nil:
// none, the policy decides it).
func checkLog(t *testing.T, calls [][2]any) Source {
	t.Helper()
	var b bytes.Buffer
	for _, c := range calls {
		rec := map[string]any{"input": map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": c[0]},
			"cwd": "/w", "permission_mode": "default"}}
		if c[1] != nil {
			rec["result"] = c[1]
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	return Source{Name: "checks.log", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b.Bytes())), nil }}
}

// TestInsightsGroupsSafetyAsksByCheck: every safety ASK's reason is
// "safety check"; insights tells credential reads, environment dumps and
// unanalysable commands apart by the decision's check id (docs/api.md,
// "Check ids"), in the JSON and the text report. A log written before
// decisions named their check keeps its reason.
func TestInsightsGroupsSafetyAsksByCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w"}))
	if err != nil {
		t.Fatal(err)
	}
	src := checkLog(t, [][2]any{
		{"cat ~/.ssh/id_rsa", nil},
		{"cat .env", nil},
		{"printenv", nil},
		{`eval "$X"`, nil},
		{"env", map[string]any{"behavior": "ASK", "reason": "safety check", "step": "tool_check", "check": "environment_dump", "bypass_immune": true}},
		{"cat .env", map[string]any{"behavior": "ASK", "reason": "safety check", "step": "tool_check", "bypass_immune": true}},
	})
	in, err := RunInsights(ctx, []Source{src}, InsightsOptions{Engine: func(context.Context) (*engine.Engine, error) { return eng, nil }})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, r := range in.ByRule {
		got[r.Key] = r.Ask
	}
	want := map[string]int{
		"tool_check: credential_read":  2,
		"tool_check: environment_dump": 2,
		"tool_check: unanalysable":     1,
		"tool_check: safety check":     1,
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("row %q: %d ASKs, want %d (rows %v)", k, got[k], n, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	var text bytes.Buffer
	if err := WriteInsightsText(&text, in, 10); err != nil {
		t.Fatal(err)
	}
	for k := range want {
		if !strings.Contains(text.String(), k) {
			t.Errorf("the report has no row %q:\n%s", k, text.String())
		}
	}
}

// TestReplayComparesChecks: a call decided by another check with the same
// behavior is a change of reason, listed and counted per step and check;
// the same check, or a recorded decision that names none (an older log),
// is no change.
func TestReplayComparesChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w"}))
	if err != nil {
		t.Fatal(err)
	}
	recorded := func(check string) map[string]any {
		d := map[string]any{"behavior": "ASK", "reason": "safety check", "step": "tool_check", "bypass_immune": true}
		if check != "" {
			d["check"] = check
		}
		return d
	}
	src := checkLog(t, [][2]any{
		{"cat ~/.ssh/id_rsa", recorded("environment_dump")},
		{"cat ~/.ssh/id_rsa", recorded("credential_read")},
		{"cat ~/.ssh/id_rsa", recorded("")},
	})
	var calls []*Call
	var text bytes.Buffer
	report := NewTextReport(&text, ReportOptions{Reasons: true})
	sum, err := Run(ctx, []Source{src}, Options{Candidate: eng, OnCall: func(c *Call) error {
		calls = append(calls, c)
		return report.Call(c)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Finish(sum); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{Reason, Same, Same} {
		if calls[i].Change != want || calls[i].New.Check != "credential_read" {
			t.Errorf("call %d: change %s, new check %q; want %s, credential_read", i+1, calls[i].Change, calls[i].New.Check, want)
		}
	}
	for k, n := range map[string]int{
		"tool_check: environment_dump → tool_check: credential_read": 1,
		"tool_check: credential_read → tool_check: credential_read":  1,
		"tool_check → tool_check: credential_read":                   1,
	} {
		if sum.Steps[k] != n {
			t.Errorf("steps %q: %d, want %d (%v)", k, sum.Steps[k], n, sum.Steps)
		}
	}
	for _, line := range []string{"old  ASK    tool_check: environment_dump", "new  ASK    tool_check: credential_read"} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("the report has no %q:\n%s", line, text.String())
		}
	}
}
