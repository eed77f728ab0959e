package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
)

// kindCalls are the calls of BENCHMARKS.md "Per kind against the floor",
// one per kind of call, in a project directory that exists on disk (%s):
// file tools, a single read-only Bash command and compound Bash commands.
var kindCalls = []struct{ kind, call string }{
	{"Read", `{"tool_name":"Read","tool_input":{"file_path":"%s/src/main.go"},"permission_mode":"default","cwd":"%s","session_id":"s1"}`},
	{"Write", `{"tool_name":"Write","tool_input":{"file_path":"%s/src/new.go","content":"package x"},"permission_mode":"acceptEdits","cwd":"%s","session_id":"s1"}`},
	{"Edit", `{"tool_name":"Edit","tool_input":{"file_path":"%s/src/main.go","old_string":"a","new_string":"b"},"permission_mode":"acceptEdits","cwd":"%s","session_id":"s1"}`},
	{"Glob", `{"tool_name":"Glob","tool_input":{"pattern":"**/*.go","path":"%s/src"},"permission_mode":"default","cwd":"%s","session_id":"s1"}`},
	{"Grep", `{"tool_name":"Grep","tool_input":{"pattern":"func main","path":"%s"},"permission_mode":"default","cwd":"%s","session_id":"s1"}`},
	{"BashSingle", `{"tool_name":"Bash","tool_input":{"command":"git log -n 5"},"permission_mode":"default","cwd":"%s","session_id":"s1"}`},
	{"BashCompound", `{"tool_name":"Bash","tool_input":{"command":"ls -la src | wc -l && git diff --stat"},"permission_mode":"default","cwd":"%s","session_id":"s1"}`},
	{"BashNotReadOnly", `{"tool_name":"Bash","tool_input":{"command":"npm ci && npm run build && npm test"},"permission_mode":"default","cwd":"%s","session_id":"s1"}`},
}

// kindsProject is a project directory on disk for kindCalls: a git
// repository with a source file.
func kindsProject(b testing.TB) string {
	dir := b.TempDir()
	for _, d := range []string{".git", "src"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// kindInput fills a kindCalls template with the project directory.
func kindInput(b testing.TB, tmpl, dir string) ast.Value {
	doc := strings.ReplaceAll(tmpl, "%s", dir)
	v, err := ast.ValueFromReader(strings.NewReader(doc))
	if err != nil {
		b.Fatal(fmt.Errorf("%s: %w", doc, err))
	}
	return v
}

// floorQuery is OPA's floor: a trivial prepared policy over the same input.
func floorQuery(b testing.TB) rego.PreparedEvalQuery {
	pq, err := rego.New(
		rego.Query("data.floor.decision"),
		rego.Module("floor.rego", `package floor
decision := {"behavior": "ALLOW", "step": "read_only"} if input.tool_name != ""`),
	).PrepareForEval(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return pq
}

// BenchmarkDecideKinds is the per-kind regression guard (scripts/benchcmp):
// each kind of call with 10 rules of every kind in every layer (user,
// project, local, session, org bundle), decided by engine.Decide and by
// OPA's floor in turns in the same loop, so both see the same machine.
// It reports per kind the minimum and median time of a decision and of
// the floor over the iterations (kind-ns, floor-ns: medians), their
// ratio (x-floor, of the medians; min-x-floor, of the minimums) and the
// allocations of each (allocs, floor-allocs), and what one decision
// evaluates (rules entered, expressions, built-in calls: DecideCounted). A block of 20 decisions is
// timed at a time so that the clock's resolution does not count.
func BenchmarkDecideKinds(b *testing.B) {
	ctx := context.Background()
	dir := kindsProject(b)
	s, org := manyRulesSettings(b, "mixed", 10)
	s.Cwd = dir
	eng, err := engine.New(ctx, engine.WithSettings(s), engine.WithBundles(orgBundle(b, org)))
	if err != nil {
		b.Fatal(err)
	}
	floor := floorQuery(b)
	for _, kc := range kindCalls {
		in := kindInput(b, kc.call, dir)
		if d := eng.Decide(ctx, in); d.Step == permission.StepError || d.MatchedRule != nil {
			b.Fatalf("%s: want no error and no rule to decide, got %+v", kc.kind, d)
		}
		_, counts := eng.DecideCounted(ctx, in)
		b.Run(kc.kind, func(b *testing.B) {
			const block = 20
			ways := [2]func(){
				func() {
					for range block {
						eng.Decide(ctx, in)
					}
				},
				func() {
					for range block {
						if _, err := floor.Eval(ctx, rego.EvalParsedInput(in)); err != nil {
							b.Fatal(err)
						}
					}
				},
			}
			allocs := testing.AllocsPerRun(5, ways[0]) / block
			floorAllocs := testing.AllocsPerRun(5, ways[1]) / block
			var ts [2][]float64
			i := 0
			for b.Loop() {
				for k := range 2 {
					j := (i + k) % 2
					t0 := time.Now()
					ways[j]()
					ts[j] = append(ts[j], float64(time.Since(t0).Nanoseconds())/block)
				}
				i++
			}
			var med, low [2]float64
			for j := range ts {
				slices.Sort(ts[j])
				med[j], low[j] = ts[j][len(ts[j])/2], ts[j][0]
			}
			b.ReportMetric(med[0], "kind-ns")
			b.ReportMetric(med[1], "floor-ns")
			b.ReportMetric(med[0]/med[1], "x-floor")
			b.ReportMetric(low[0]/low[1], "min-x-floor")
			b.ReportMetric(allocs, "allocs")
			b.ReportMetric(floorAllocs, "floor-allocs")
			b.ReportMetric(float64(counts.Rules), "rules")
			b.ReportMetric(float64(counts.Exprs), "exprs")
			b.ReportMetric(float64(counts.Builtins), "builtins")
			b.ReportMetric(float64(counts.PermopaBuiltins), "permopa-builtins")
		})
	}
}
