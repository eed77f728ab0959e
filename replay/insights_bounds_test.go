package replay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
)

// projectsLog is n plain inputs, each an ASK whose suggested rule the
// policy checks, in n distinct working directories (issue 24: an agent can
// write its own --log file).
func projectsLog(n int) Source {
	var log bytes.Buffer
	for i := range n {
		fmt.Fprintf(&log, `{"tool_name":"Bash","tool_input":{"command":"npm install --ignore-scripts pkg%d"},"cwd":"/p/proj%d","permission_mode":"default"}`+"\n", i, i)
	}
	data := log.Bytes()
	return Source{Name: "calls.log", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

// insightsAlloc is the bytes RunInsights allocates on a log of n projects,
// the engine built beforehand.
func insightsAlloc(t *testing.T, n int) uint64 {
	t.Helper()
	ctx := context.Background()
	eng, err := engine.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	src := projectsLog(n)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	in, err := RunInsights(ctx, []Source{src}, InsightsOptions{Engine: func(context.Context) (*engine.Engine, error) { return eng, nil }, Jobs: 2})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if in.Calls != n || len(in.Suggestions) != 1 || in.Suggestions[0].Calls != n || in.Unchecked != 0 {
		t.Fatalf("%d calls, suggestions %+v, %d unchecked: every call's suggestion should be checked", in.Calls, in.Suggestions, in.Unchecked)
	}
	return after.TotalAlloc - before.TotalAlloc
}

// TestInsightsMemoryLinearInProjects: what insights allocates grows
// linearly with the projects of a log. Each suggested rule was checked in
// a session left in the checking engine, whose settings document every
// later check rewrote: 2,000 projects took 6.3 GB (BENCHMARKS.md,
// "Insights"). Doubling the projects must not much more than double the
// bytes allocated (a square law gives four times). Not parallel: it reads
// the process's allocation counters.
func TestInsightsMemoryLinearInProjects(t *testing.T) {
	if testing.Short() {
		t.Skip("decides 300 calls (600 with -tags slow)")
	}
	// The quick suite doubles 100 projects, -tags slow 200: the quadratic
	// run's ~6 KB more per call for each project of the log (~6 MB a call
	// at 1,000) already makes 200 projects ~3.5 times 100 and ~1.2 MB a call.
	n := 100
	if slowTests {
		n = 200
	}
	small, large := insightsAlloc(t, n), insightsAlloc(t, 2*n)
	t.Logf("%d projects: %d MB, %d projects: %d MB", n, small>>20, 2*n, large>>20)
	if large > small*27/10 {
		t.Fatalf("%d projects allocate %d MB, %d projects %d MB: more than linear", n, small>>20, 2*n, large>>20)
	}
	// And a bound per call, far above the ~160 KB measured, far below the
	// ~6 MB per call of the quadratic run at 1,000 projects.
	if per := large / uint64(2*n); per > 1<<20 {
		t.Fatalf("%d KB per call", per>>10)
	}
}

// TestInsightsSaysWhatItDidNotCheck: past MaxChecked (rules, project)
// pairs, suggestions are not checked, and the report says how many and
// from which file and line.
func TestInsightsSaysWhatItDidNotCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := engine.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in, err := RunInsights(ctx, []Source{projectsLog(20)}, InsightsOptions{Engine: func(context.Context) (*engine.Engine, error) { return eng, nil }, Jobs: 1, MaxChecked: 5})
	if err != nil {
		t.Fatal(err)
	}
	if in.Unchecked != 15 || in.UncheckedFrom != "calls.log:6" || in.UncheckedLimit != 5 || in.AsksWithoutRule != 15 || in.Suggestions[0].Calls != 5 {
		t.Fatalf("unchecked %d from %q (limit %d), %d ASKs without a rule, suggestions %+v", in.Unchecked, in.UncheckedFrom, in.UncheckedLimit, in.AsksWithoutRule, in.Suggestions)
	}
	var text, html bytes.Buffer
	if err := WriteInsightsText(&text, in, 10); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "truncated: 15 ASKs not checked for a rule, from calls.log:6 on") {
		t.Errorf("the text report does not say what it left out:\n%s", text.String())
	}
	if err := WriteInsightsHTML(&html, in, 10); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "Truncated: 15 ASKs not checked for a rule, from <code>calls.log:6</code>") {
		t.Errorf("the HTML report does not say what it left out")
	}
	// The checks leave no session behind in the engine.
	if s := eng.Settings(); len(s.SessionRules) != 0 {
		t.Errorf("sessions left in the checking engine: %v", s.SessionRules)
	}
}

// BenchmarkInsightsProjects: insights on a log of 1,000 calls in 1,000
// projects, each an ASK whose suggested rule is checked (B/call and
// allocs/op: memory per input, BENCHMARKS.md "Insights").
func BenchmarkInsightsProjects(b *testing.B) {
	ctx := context.Background()
	src := projectsLog(1000)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		eng, err := engine.New(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := RunInsights(ctx, []Source{src}, InsightsOptions{Engine: func(context.Context) (*engine.Engine, error) { return eng, nil }, Jobs: 2}); err != nil {
			b.Fatal(err)
		}
	}
}
