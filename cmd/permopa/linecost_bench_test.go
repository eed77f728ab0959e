package main_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// lineCostCalls are the calls of BENCHMARKS.md "Decide".
var lineCostCalls = []string{
	`{"tool_name":"Read","tool_input":{"file_path":"/w/src/main.go"},"permission_mode":"default","cwd":"/w"}`,
	`{"tool_name":"Write","tool_input":{"file_path":"/w/src/new.go","content":"package x"},"permission_mode":"acceptEdits","cwd":"/w"}`,
	`{"tool_name":"Bash","tool_input":{"command":"ls -la src | grep foo && git diff --stat"},"permission_mode":"default","cwd":"/w"}`,
}

// BenchmarkDecideLineCost measures, side by side in one run, what a line
// of `permopa decide` costs beyond the policy: the same block of lines is
// decided (1) by engine.Decide on inputs parsed beforehand, the policy
// alone; (2) the same with the deadline and concurrency bound `permopa
// decide` sets; (3) by adapter.DecideStream in process, bytes in and out
// (reading, parsing, encoding, flushing); (4) by a `permopa decide`
// process over pipes. Reported: the median per line of each, the ratios
// of (2), (3) and (4) to (1), and allocations per line of (1) to (3).
func BenchmarkDecideLineCost(b *testing.B) {
	ctx := context.Background()
	s := settings.Settings{Home: "/home/u", Cwd: "/w"}
	plain, err := engine.New(ctx, engine.WithSettings(s))
	if err != nil {
		b.Fatal(err)
	}
	bounded, err := engine.New(ctx, engine.WithSettings(s), engine.WithTimeout(5*time.Second), engine.WithMaxConcurrent(2))
	if err != nil {
		b.Fatal(err)
	}
	const perBlock = 60
	var lines strings.Builder
	var parsedIn []ast.Value
	for i := 0; i < perBlock; i++ {
		c := lineCostCalls[i%len(lineCostCalls)]
		lines.WriteString(c)
		lines.WriteByte('\n')
		v, err := ast.ValueFromReader(strings.NewReader(c))
		if err != nil {
			b.Fatal(err)
		}
		parsedIn = append(parsedIn, v)
	}
	block := lines.String()
	proc := startDecide(b, []string{"decide"}, lineCostCalls)
	var out bytes.Buffer
	ways := []func(){
		func() {
			for _, v := range parsedIn {
				if d := plain.Decide(ctx, v); d.Step == permission.StepError {
					b.Fatal(d.Message)
				}
			}
		},
		func() {
			for _, v := range parsedIn {
				if d := bounded.Decide(ctx, v); d.Step == permission.StepError {
					b.Fatal(d.Message)
				}
			}
		},
		func() {
			out.Reset()
			if err := adapter.DecideStream(ctx, bounded, strings.NewReader(block), &out); err != nil {
				b.Fatal(err)
			}
			if n := bytes.Count(out.Bytes(), []byte("\n")); n != perBlock {
				b.Fatalf("%d decisions", n)
			}
		},
		func() { proc.block(b, block, perBlock) },
	}
	// Allocations do not depend on the machine's load: per line, for the
	// three in-process ways.
	allocs := map[string]float64{}
	for j, name := range []string{"decide", "bounded", "stream"} {
		allocs[name+"-allocs/line"] = testing.AllocsPerRun(3, ways[j]) / perBlock
	}
	ts := make([][]float64, len(ways))
	i := 0
	for b.Loop() {
		for k := range ways {
			j := (i + k) % len(ways)
			t0 := time.Now()
			ways[j]()
			ts[j] = append(ts[j], float64(time.Since(t0).Nanoseconds())/perBlock)
		}
		i++
	}
	med := make([]float64, len(ways))
	for j := range ts {
		slices.Sort(ts[j])
		med[j] = ts[j][len(ts[j])/2]
	}
	b.ReportMetric(med[0], "decide-ns/line")
	b.ReportMetric(med[1], "bounded-ns/line")
	b.ReportMetric(med[2], "stream-ns/line")
	b.ReportMetric(med[3], "process-ns/line")
	b.ReportMetric(med[1]/med[0], "bounded/decide")
	b.ReportMetric(med[2]/med[0], "stream/decide")
	b.ReportMetric(med[3]/med[0], "process/decide")
	for unit, n := range allocs {
		b.ReportMetric(n, unit)
	}
}
