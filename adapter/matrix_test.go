package adapter_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

var (
	defaultEngineOnce sync.Once
	defaultEngine     *engine.Engine
	defaultEngineErr  error
)

// testEngine is the embedded default policy with no settings rules.
func testEngine(t *testing.T) *engine.Engine {
	t.Helper()
	defaultEngineOnce.Do(func() {
		defaultEngine, defaultEngineErr = engine.New(context.Background(),
			engine.WithSettings(settings.Settings{Home: "/root", Cwd: "/tmp/permopa-ws"}))
	})
	if defaultEngineErr != nil {
		t.Fatal(defaultEngineErr)
	}
	return defaultEngine
}

// documentedMatrix is docs/decision.md's table, transcribed per representative
// row: "BEHAVIOR" when the row's own point decides, "BEHAVIOR via STEP"
// when the point is skipped or not decisive in that mode.
//
//	| point | DEFAULT | ACCEPT_EDITS | EXPLORE | BYPASS | DONT_ASK |
//	| 1 deny rule matches | DENY | DENY | DENY | DENY | DENY |
//	| 1 deny rule could match (uncertain) | safety ASK | safety ASK | DENY | DENY; safety ASK with bypass_honours_safety | DENY |
//	| 2 ask rule matches | ASK | ASK | ASK | ASK | DENY |
//	| 3 call is read-only | ALLOW | ALLOW | ALLOW | ALLOW | ALLOW |
//	| 4 tool check | ALLOW/DENY as given; safety ASK → ASK | same, plus edits inside working dirs → ALLOW | skipped | ALLOW/DENY as given; every ASK ignored | as ACCEPT_EDITS, but every ASK → DENY |
//	| 5 allow rule matches | ALLOW | ALLOW | skipped | ALLOW | ALLOW |
//	| 6 fallback | ASK | ASK | DENY | ALLOW | DENY |
//
// A plain (not bypass-immune) ASK is treated like PASSTHROUGH, so that row
// falls through to the fallback in every mode.
var documentedMatrix = map[string][5]string{
	"deny rule matches":                 {"DENY", "DENY", "DENY", "DENY", "DENY"},
	"deny rule could match (uncertain)": {"ASK", "ASK", "DENY", "DENY", "DENY"},
	"ask rule matches":                  {"ASK", "ASK", "ASK", "ASK", "DENY"},
	"call is read-only":                 {"ALLOW", "ALLOW", "ALLOW", "ALLOW", "ALLOW"},
	"tool check ALLOW":                  {"ALLOW", "ALLOW", "DENY via mode_fallback", "ALLOW", "ALLOW"},
	"tool check DENY":                   {"DENY", "DENY", "DENY via mode_fallback", "DENY", "DENY"},
	"tool check safety ASK":             {"ASK", "ASK", "DENY via mode_fallback", "ALLOW via mode_fallback", "DENY"},
	"tool check plain ASK":              {"ASK via mode_fallback", "ASK via mode_fallback", "DENY via mode_fallback", "ALLOW via mode_fallback", "DENY via mode_fallback"},
	"edit inside a working directory":   {"ASK via mode_fallback", "ALLOW", "DENY via mode_fallback", "ALLOW via mode_fallback", "ALLOW"},
	"allow rule matches":                {"ALLOW", "ALLOW", "DENY via mode_fallback", "ALLOW", "ALLOW"},
	"nothing decides (fallback)":        {"ASK", "ASK", "DENY", "ALLOW", "DENY"},
}

func TestMatrixIsDocumented(t *testing.T) {
	t.Parallel()
	m := adapter.BuildMatrix(context.Background(), testEngine(t))
	if len(m.Rows) != len(documentedMatrix) {
		t.Fatalf("%d rows, want %d", len(m.Rows), len(documentedMatrix))
	}
	for _, r := range m.Rows {
		want, ok := documentedMatrix[r.Title]
		if !ok {
			t.Errorf("row %q is not in the transcribed docs/decision.md", r.Title)
			continue
		}
		for i, mode := range adapter.MatrixModes() {
			if got := r.Cells[mode].Text(r.Step); got != want[i] {
				t.Errorf("%d %s / %s: %s (%s), docs/decision.md says %s", r.Point, r.Title, mode, got, r.Cells[mode].Message, want[i])
			}
		}
	}
	var md, html bytes.Buffer
	if err := m.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"| 2 ask rule matches |", "| ASK | ASK | ASK | ASK | DENY |", "DONT_ASK"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("markdown lacks %q:\n%s", s, md.String())
		}
	}
	if !strings.Contains(html.String(), `<td class="DENY" title=`) || !strings.Contains(html.String(), "</html>") {
		t.Errorf("html:\n%s", html.String())
	}
}

// A policy change shows in the matrix: bypass_honours_safety keeps the
// safety ASK in BYPASS.
func TestMatrixShowsSettingsChange(t *testing.T) {
	t.Parallel()
	eng, err := engine.New(context.Background(), engine.WithSettings(settings.Settings{Home: "/root", BypassHonoursSafety: true}))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range adapter.BuildMatrix(context.Background(), eng).Rows {
		if r.Title == "tool check safety ASK" {
			if got := r.Cells["BYPASS"].Text(r.Step); got != "ASK" {
				t.Fatalf("BYPASS with bypass_honours_safety: %s", got)
			}
			return
		}
	}
	t.Fatal("no safety ASK row")
}
