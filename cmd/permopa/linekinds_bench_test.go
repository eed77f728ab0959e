package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// floorName is the name under which the test binary runs floorDecide
// (TestMain): OPA's floor per line, a process that reads JSON lines,
// evaluates a trivial prepared policy on each (input parsed by OPA's
// ast.ValueFromReader) and writes each result as a JSON line, flushing
// when no more input is waiting, as `permopa decide` does.
const floorName = "opa-floor"

func floorDecide(in io.Reader, out io.Writer) int {
	ctx := context.Background()
	pq, err := rego.New(
		rego.Query("data.floor.decision"),
		rego.Module("floor.rego", `package floor
decision := {"behavior": "ALLOW", "step": "read_only"} if input.tool_name != ""`),
	).PrepareForEval(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	r := bufio.NewReaderSize(in, 1<<16)
	w := bufio.NewWriter(out)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			v, perr := ast.ValueFromReader(strings.NewReader(string(line)))
			if perr != nil {
				fmt.Fprintln(os.Stderr, perr)
				return 1
			}
			rs, eerr := pq.Eval(ctx, rego.EvalParsedInput(v))
			if eerr != nil || len(rs) == 0 {
				fmt.Fprintln(os.Stderr, "floor:", eerr)
				return 1
			}
			b, _ := json.Marshal(rs[0].Expressions[0].Value)
			w.Write(b)
			w.WriteByte('\n')
			if r.Buffered() == 0 {
				w.Flush()
			}
		}
		if err != nil {
			w.Flush()
			return 0
		}
	}
}

// lineKinds are the rows of BENCHMARKS.md "Per kind against the floor",
// per line of `permopa decide`: %d is the line's number (each line a
// different call, as an agent's are), %s the project directory.
var lineKinds = []struct{ name, call string }{
	{"Read", `{"tool_name":"Read","tool_input":{"file_path":"%s/src/f%d.go"},"permission_mode":"default","cwd":"%s"}`},
	{"Write", `{"tool_name":"Write","tool_input":{"file_path":"%s/src/n%d.go","content":"package x"},"permission_mode":"acceptEdits","cwd":"%s"}`},
	{"Edit", `{"tool_name":"Edit","tool_input":{"file_path":"%s/src/f%d.go","old_string":"a","new_string":"b"},"permission_mode":"acceptEdits","cwd":"%s"}`},
	{"Glob", `{"tool_name":"Glob","tool_input":{"pattern":"**/*%d.go","path":"%s/src"},"permission_mode":"default","cwd":"%s"}`},
	{"Grep", `{"tool_name":"Grep","tool_input":{"pattern":"func f%d","path":"%s/src"},"permission_mode":"default","cwd":"%s"}`},
	{"git_log", `{"tool_name":"Bash","tool_input":{"command":"git log -n %d"},"permission_mode":"default","cwd":"%s"}`},
	{"ls_wc_git_diff", `{"tool_name":"Bash","tool_input":{"command":"ls -la src%d | wc -l && git diff --stat"},"permission_mode":"default","cwd":"%s"}`},
	{"npm_ci_run_test", `{"tool_name":"Bash","tool_input":{"command":"npm ci && npm run build%d && npm test"},"permission_mode":"default","cwd":"%s"}`},
}

// lineKindsLine fills a lineKinds template: the project directory for
// every %s, i for %d.
func lineKindsLine(tmpl, dir string, i int) string {
	var b strings.Builder
	for k, part := range strings.Split(tmpl, "%s") {
		if k > 0 {
			b.WriteString(dir)
		}
		b.WriteString(strings.ReplaceAll(part, "%d", fmt.Sprint(i)))
	}
	return b.String()
}

// BenchmarkDecideLineKinds measures, per kind of call, a line of `permopa
// decide --settings` with 10 rules of every kind (three settings files and
// an org bundle, as BenchmarkDecideCLIManyRules) against OPA's floor per
// line (floorDecide, a process fed the same lines), in turns in one run:
// reported per kind the median time per line of each (permopa-ns,
// floor-ns) and the ratio of the medians (x-floor) and of the minimums
// (min-x-floor); "mix" is every kind in turn. The calls are in a project
// directory on disk (a git repository with source files). Both processes
// are started and warmed before the clock starts.
func BenchmarkDecideLineKinds(b *testing.B) {
	dir := b.TempDir()
	for _, d := range []string{".git", "src"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	const perBlock = 60
	for i := range perBlock {
		if err := os.WriteFile(filepath.Join(dir, "src", fmt.Sprintf("f%d.go", i)), []byte("package main\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	blocks := map[string]string{}
	var names, warm []string
	var mix strings.Builder
	for _, k := range lineKinds {
		var lines strings.Builder
		for i := range perBlock {
			lines.WriteString(lineKindsLine(k.call, dir, i))
			lines.WriteByte('\n')
		}
		blocks[k.name] = lines.String()
		names = append(names, k.name)
		warm = append(warm, lineKindsLine(k.call, dir, perBlock))
	}
	for i := range perBlock {
		k := lineKinds[i%len(lineKinds)]
		mix.WriteString(lineKindsLine(k.call, dir, perBlock+1+i))
		mix.WriteByte('\n')
	}
	blocks["mix"] = mix.String()
	names = append(names, "mix")
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	floorBin := filepath.Join(b.TempDir(), floorName)
	if err := os.Symlink(self, floorBin); err != nil {
		b.Fatal(err)
	}
	args := manyRulesFiles(b, 10)
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			procs := [2]*decideProc{
				startDecide(b, args, warm),
				startProc(b, floorBin, nil, warm),
			}
			var ts [2][]float64
			i := 0
			for b.Loop() {
				for k := range 2 {
					j := (i + k) % 2
					t0 := time.Now()
					procs[j].block(b, blocks[name], perBlock)
					ts[j] = append(ts[j], float64(time.Since(t0).Nanoseconds())/perBlock)
				}
				i++
			}
			var med, low [2]float64
			for j := range ts {
				slices.Sort(ts[j])
				med[j], low[j] = ts[j][len(ts[j])/2], ts[j][0]
			}
			b.ReportMetric(med[0], "permopa-ns/line")
			b.ReportMetric(med[1], "floor-ns/line")
			b.ReportMetric(med[0]/med[1], "x-floor")
			b.ReportMetric(low[0]/low[1], "min-x-floor")
		})
	}
}
