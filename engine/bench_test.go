package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

var benchInputs = map[string]string{
	"Read":         `{"tool_name":"Read","tool_input":{"file_path":"/w/src/main.go"},"permission_mode":"default","cwd":"/w"}`,
	"Write":        `{"tool_name":"Write","tool_input":{"file_path":"/w/src/new.go","content":"package x"},"permission_mode":"acceptEdits","cwd":"/w"}`,
	"BashCompound": `{"tool_name":"Bash","tool_input":{"command":"ls -la src | grep foo && git diff --stat"},"permission_mode":"default","cwd":"/w"}`,
}

func parsed(b *testing.B, doc string) ast.Value {
	v, err := ast.ValueFromReader(strings.NewReader(doc))
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// reportCPU adds cpu-ns/op, the process's CPU time per operation, to a
// benchmark: on a machine shared with other work the wall time per
// operation swings with the load, the CPU a decision uses much less
// (BENCHMARKS.md, "Decide").
func reportCPU(b *testing.B, start time.Duration) {
	if now := cpuTime(); b.N > 0 && now > 0 {
		b.ReportMetric(float64(now-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkDecide measures one decision of the default policy in process.
func BenchmarkDecide(b *testing.B) {
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w"}))
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"Read", "Write", "BashCompound"} {
		in := parsed(b, benchInputs[name])
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				if d := eng.Decide(ctx, in); d.Step == permission.StepError {
					b.Fatal(d.Message)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkDecideParallel measures Decide from GOMAXPROCS goroutines.
func BenchmarkDecideParallel(b *testing.B) {
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w"}))
	if err != nil {
		b.Fatal(err)
	}
	in := parsed(b, benchInputs["BashCompound"])
	// Compiling the policy and the first decision (the Bash analysis
	// cached, the evaluator goroutines started) are not per decision: as in
	// BenchmarkDecide, where they happen outside the timed sub-benchmark.
	eng.Decide(ctx, in)
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			eng.Decide(ctx, in)
		}
	})
	reportCPU(b, start)
}

// BenchmarkFloor is the OPA floor: a trivial prepared policy over the same inputs.
func BenchmarkFloor(b *testing.B) {
	ctx := context.Background()
	pq, err := rego.New(
		rego.Query("data.floor.decision"),
		rego.Module("floor.rego", `package floor
decision := {"behavior": "ALLOW", "step": "read_only"} if input.tool_name != ""`),
	).PrepareForEval(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"Read", "Write", "BashCompound"} {
		in := parsed(b, benchInputs[name])
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				if _, err := pq.Eval(ctx, rego.EvalParsedInput(in)); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkDecideRecursiveRead measures a recursive read of this
// repository (rg, grep -r: a bounded walk of the tree for credential
// names) against a plain read-only command in the same directory.
func BenchmarkDecideRecursiveRead(b *testing.B) {
	ctx := context.Background()
	repo, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	eng, err := engine.New(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: repo}))
	if err != nil {
		b.Fatal(err)
	}
	for _, cmd := range []string{"git status", "rg foo .", "grep -rn foo ."} {
		in := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "permission_mode": "default", "cwd": repo}
		b.Run(strings.ReplaceAll(cmd, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if d := eng.Decide(ctx, in); d.Step == permission.StepError {
					b.Fatal(d.Message)
				}
			}
		})
	}
}
