package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/decisionlog"
)

// benchLog is n recorded calls in the mix of replay/testdata/gencalls.go
// (Bash, Read, Write and Edit with their contents masked, Grep, a custom
// tool), as `permopa decide --log` writes them, and the inputs alone.
func benchLog(b *testing.B, eng *engine.Engine, n int) ([]byte, [][]byte) {
	b.Helper()
	ctx := context.Background()
	cmds := []string{"git status", "git log -n %d --oneline", "cat src/file%d.go", "npm test -- test%d", "make target%d",
		"rm -rf build%d", "curl -s https://api%d.example.com/health", "find . -name '*%d.go' | xargs wc -l"}
	var log bytes.Buffer
	var inputs [][]byte
	for i := range n {
		k := i % 97
		var in map[string]any
		switch i % 10 {
		case 0, 1, 2, 3, 4:
			in = map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": fmt.Sprintf(cmds[i%len(cmds)], k)}}
		case 5, 6:
			in = map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": fmt.Sprintf("/w/app/src/f%d.go", k)}}
		case 7:
			in = map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": fmt.Sprintf("/w/app/src/f%d.go", k), "content": "package p"}}
		case 8:
			in = map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": fmt.Sprintf("/w/app/src/f%d.go", k), "old_string": "a", "new_string": "b"}}
		default:
			in = map[string]any{"tool_name": "mcp__db__query", "tool_input": map[string]any{"sql": fmt.Sprintf("select %d", k)}}
		}
		in["cwd"], in["permission_mode"], in["tool_use_id"] = "/w/app", "default", fmt.Sprint(i)
		raw, _ := json.Marshal(in)
		inputs = append(inputs, raw)
		d := eng.DecideJSON(ctx, raw)
		masked, erased := decisionlog.MaskInput(in, decisionlog.DefaultMask)
		ev := map[string]any{"decision_id": "x", "path": decisionlog.DefaultPath, "input": masked, "result": d, "timestamp": "2026-12-01T10:00:00Z"}
		if len(erased) > 0 {
			ev["custom"] = map[string]any{decisionlog.ErasedKey: erased}
		}
		line, _ := json.Marshal(ev)
		log.Write(append(line, '\n'))
	}
	return log.Bytes(), inputs
}

// BenchmarkReplay replays recorded calls on one worker (ns/call: the time
// per call, the logs read whole, 1,000 calls at a time).
// BenchmarkDecideLines decides the same calls' inputs as `permopa decide`
// does: the ratio is what replaying costs over deciding.
func BenchmarkReplay(b *testing.B) {
	ctx := context.Background()
	eng, err := engine.New(ctx)
	if err != nil {
		b.Fatal(err)
	}
	log, _ := benchLog(b, eng, 1000)
	src := Source{Name: "log", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(log)), nil }}
	b.ResetTimer()
	calls := 0
	for calls < b.N {
		sum, err := Run(ctx, []Source{src}, Options{Candidate: eng, Jobs: 1})
		if err != nil || sum.Errors > 0 {
			b.Fatal(err, sum.Errors)
		}
		calls += sum.Calls
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls), "ns/call")
}

func BenchmarkDecideLines(b *testing.B) {
	ctx := context.Background()
	eng, err := engine.New(ctx)
	if err != nil {
		b.Fatal(err)
	}
	_, inputs := benchLog(b, eng, 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = eng.DecideJSON(ctx, inputs[i%len(inputs)])
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/call")
}
