package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// TestRunKeepsLogOrder: calls are decided by several workers and reach
// OnCall in log order, bad values among them in their place.
func TestRunKeepsLogOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	deny := permission.Rule{ToolName: "Bash", Behavior: permission.Deny}
	content := "rm:*"
	deny.RuleContent = &content
	eng, err := engine.New(ctx, engine.WithSettings(settings.Settings{Rules: []permission.Rule{deny}}))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	const n = 300
	removals := 0
	for i := range n {
		if i%50 == 7 {
			log.WriteString("not json\n")
			continue
		}
		cmd := "ls"
		if i%3 == 0 {
			removals++
			cmd = fmt.Sprintf("rm -f x%d", i)
		}
		line, _ := json.Marshal(map[string]any{
			"input":  map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "tool_use_id": fmt.Sprint(i), "cwd": "/tmp", "permission_mode": "default"},
			"result": map[string]any{"behavior": "ASK", "step": "mode_fallback"},
		})
		log.Write(append(line, '\n'))
	}
	src := Source{Name: "log", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(log.Bytes())), nil }}
	var order []string
	var errs []string
	sum, err := Run(ctx, []Source{src}, Options{
		Candidate: eng, Jobs: 4,
		OnCall:  func(c *Call) error { order = append(order, c.ToolUseID); return nil },
		OnError: func(err error) { errs = append(errs, err.Error()) },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, id := range order {
		for want%50 == 7 {
			want++
		}
		if id != fmt.Sprint(want) {
			t.Fatalf("call %s reached OnCall where %d was due: %v", id, want, order)
		}
		want++
	}
	if len(order) != n-6 || len(errs) != 6 || !strings.HasPrefix(errs[0], "log:8: not JSON") {
		t.Errorf("%d calls, errors %q", len(order), errs)
	}
	if sum.Behaviors["ASK → DENY"] != removals || sum.Narrowed != removals || sum.Behaviors["ASK → ALLOW"] != n-6-removals {
		t.Errorf("summary %+v", sum.Behaviors)
	}
}

// TestLogStringsDoNotGrowMemory: the strings a log controls (recorded
// steps, tool names, modes, cwds) are kept only cut short and in bounded
// numbers, however many distinct and long ones a log holds.
func TestLogStringsDoNotGrowMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := engine.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	// n passes maxStepKeys; each string is past 2*maxKeyBytes (the bound
	// the step keys are checked against below), in two-byte runes so a cut
	// can fall inside one.
	const n = maxStepKeys + 500
	long := strings.Repeat("é", maxKeyBytes+50)
	log.Grow(n * 4 * (len(long) + 64))
	for i := range n {
		line, _ := json.Marshal(map[string]any{
			"input": map[string]any{"tool_name": fmt.Sprintf("mcp__x__%d%s", i, long), "tool_input": map[string]any{"q": 1},
				"cwd": fmt.Sprintf("/w/%d%s", i, long), "permission_mode": "default"},
			"result": map[string]any{"behavior": "DENY", "step": fmt.Sprintf("step%d%s", i, long)},
		})
		log.Write(append(line, '\n'))
	}
	src := Source{Name: "log", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(log.Bytes())), nil }}
	sum, err := Run(ctx, []Source{src}, Options{Candidate: eng, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Calls != n || len(sum.Steps) > maxStepKeys+1 || sum.Steps["(other)"] != n-maxStepKeys {
		t.Errorf("%d calls, %d step keys, %d under (other)", sum.Calls, len(sum.Steps), sum.Steps["(other)"])
	}
	for k := range sum.Steps {
		if len(k) > 2*maxKeyBytes {
			t.Fatalf("a step key of %d bytes is kept", len(k))
		}
	}
	in, err := RunInsights(ctx, []Source{src}, InsightsOptions{Engine: func(ctx context.Context) (*engine.Engine, error) { return eng, nil }})
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range [][]Row{in.ByTool, in.ByProject, in.ByRule} {
		if len(rows) != n {
			t.Errorf("%d rows, want %d", len(rows), n)
		}
		for _, r := range rows {
			if len(r.Key) > maxKeyBytes+len("…") || !utf8.ValidString(r.Key) {
				t.Fatalf("a key of %d bytes (valid UTF-8: %v) is kept", len(r.Key), utf8.ValidString(r.Key))
			}
		}
	}
}
