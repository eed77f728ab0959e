package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// agentSession is n calls as an agent working in dir makes them
// (BENCHMARKS.md "Repeated calls"): a loop of reading a file of the
// working set, editing it (each edit its own), running the tests, git
// status and diff, listing, now and then a build or a search, every call
// with its own tool_use_id. As a decision log, and as inputs.
func agentSession(b *testing.B, dir string, n int) ([]byte, [][]byte) {
	b.Helper()
	for i := range 20 {
		p := filepath.Join(dir, "src", fmt.Sprintf("f%d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package p\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	bash := func(cmd string) map[string]any {
		return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}}
	}
	var log bytes.Buffer
	var inputs [][]byte
	for i := 0; len(inputs) < n; i++ {
		f := filepath.Join(dir, "src", fmt.Sprintf("f%d.go", i*7%20))
		cycle := []map[string]any{
			{"tool_name": "Read", "tool_input": map[string]any{"file_path": f}},
			{"tool_name": "Edit", "tool_input": map[string]any{"file_path": f, "old_string": fmt.Sprintf("v%d", i), "new_string": fmt.Sprintf("v%d", i+1)}},
			bash("go test ./..."),
			bash("git status"),
			bash("git diff"),
		}
		switch i % 4 {
		case 0:
			cycle = append(cycle, bash("ls -la"), bash("npm test"))
		case 1:
			cycle = append(cycle, bash(fmt.Sprintf("grep -rn 'func F%d' src", i)), bash("go build ./..."))
		case 2:
			cycle = append(cycle, map[string]any{"tool_name": "Grep", "tool_input": map[string]any{"pattern": "TODO", "path": "src"}}, bash("go vet ./..."))
		case 3:
			cycle = append(cycle, bash(fmt.Sprintf("cat src/f%d.go | head -20", i%20)), bash("git log -n 5 --oneline"))
		}
		for _, in := range cycle {
			if len(inputs) == n {
				break
			}
			in["cwd"], in["permission_mode"], in["session_id"] = dir, "default", "s1"
			in["tool_use_id"] = fmt.Sprintf("toolu_%d", len(inputs))
			raw, _ := json.Marshal(in)
			inputs = append(inputs, raw)
			masked, _ := decisionlog.MaskInput(in, decisionlog.DefaultMask)
			line, _ := json.Marshal(map[string]any{"decision_id": "x", "path": decisionlog.DefaultPath, "input": masked,
				"result": map[string]any{"behavior": "ASK", "step": "mode_fallback"}, "timestamp": "2026-12-01T10:00:00Z"})
			log.Write(append(line, '\n'))
		}
	}
	return log.Bytes(), inputs
}

// BenchmarkRepeatedCalls decides an agent's session (agentSession) with
// the decision cache off and on, in the same run: decide/… as `permopa
// decide` does (DecideJSON per line), replay/… through Run (a logged
// session replayed, one worker). hit% is the share of calls the cache
// answered. BENCHMARKS.md "Repeated calls".
func BenchmarkRepeatedCalls(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	log, inputs := agentSession(b, dir, 1000)
	base := settings.Settings{Cwd: dir, Home: filepath.Join(dir, "home")}
	engines := map[string]func() *engine.Engine{}
	for _, mode := range []string{"off", "on"} {
		opts := []engine.Option{engine.WithSettings(base)}
		if mode == "on" {
			opts = append(opts, engine.WithDecisionCache(0, 0))
		}
		engines[mode] = func() *engine.Engine {
			eng, err := engine.New(ctx, opts...)
			if err != nil {
				b.Fatal(err)
			}
			return eng
		}
	}
	// Each pass is one session on a fresh engine (built outside the
	// timer): the cache starts empty, as for a new agent session.
	hitRate := func(eng *engine.Engine) float64 {
		st := eng.CacheStats()
		return 100 * float64(st.Hits) / float64(st.Hits+st.Misses+st.Stale+st.Uncacheable)
	}
	for _, mode := range []string{"off", "on"} {
		b.Run("decide/"+mode, func(b *testing.B) {
			b.ReportAllocs()
			calls, hits := 0, 0.0
			for calls < b.N {
				b.StopTimer()
				eng := engines[mode]()
				b.StartTimer()
				for _, in := range inputs {
					if d := eng.DecideJSON(ctx, in); d.Step == permission.StepError {
						b.Fatal(d)
					}
				}
				calls += len(inputs)
				if mode == "on" {
					hits = hitRate(eng)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls), "ns/call")
			if mode == "on" {
				b.ReportMetric(hits, "hit%")
			}
		})
	}
	src := Source{Name: "log", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(log)), nil }}
	for _, mode := range []string{"off", "on"} {
		b.Run("replay/"+mode, func(b *testing.B) {
			calls, hits := 0, 0.0
			for calls < b.N {
				b.StopTimer()
				eng := engines[mode]()
				b.StartTimer()
				sum, err := Run(ctx, []Source{src}, Options{Candidate: eng, Jobs: 1})
				if err != nil || sum.Errors > 0 {
					b.Fatal(err, sum.Errors)
				}
				calls += sum.Calls
				if mode == "on" {
					hits = hitRate(eng)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls), "ns/call")
			if mode == "on" {
				b.ReportMetric(hits, "hit%")
			}
		})
	}
}

// BenchmarkDecideCacheHit decides one repeated call with the cache off
// and on (every call after the first a hit: the key, the lookup, the
// replay of the file system answers, a copy of the decision).
// BENCHMARKS.md "Repeated calls".
func BenchmarkDecideCacheHit(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	if err := os.MkdirAll(dir+"/src", 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(dir+"/src/main.go", []byte("package main\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	calls := map[string]map[string]any{
		"git_status": {"tool_name": "Bash", "tool_input": map[string]any{"command": "git status"}},
		"go_test":    {"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}},
		"read":       {"tool_name": "Read", "tool_input": map[string]any{"file_path": dir + "/src/main.go"}},
	}
	for _, name := range []string{"git_status", "go_test", "read"} {
		in := calls[name]
		in["cwd"], in["session_id"] = dir, "s1"
		for _, mode := range []string{"off", "on"} {
			opts := []engine.Option{engine.WithSettings(settings.Settings{Cwd: dir, Home: dir + "/home"})}
			if mode == "on" {
				opts = append(opts, engine.WithDecisionCache(0, 0))
			}
			eng, err := engine.New(ctx, opts...)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(name+"/"+mode, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					in["tool_use_id"] = fmt.Sprint("toolu_", i)
					raw, _ := json.Marshal(in)
					if d := eng.DecideJSON(ctx, raw); d.Step == permission.StepError {
						b.Fatal(d)
					}
				}
			})
		}
	}
}
