package adapter_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

var (
	linesEngineOnce sync.Once
	linesEngine     *engine.Engine
	linesEngineErr  error
)

// newEngine is the embedded policy with no settings rules, compiled once
// for the package's tests: none of them changes it (no settings, observer
// or rule is added), and Decide is safe for concurrent use.
func newEngine(t testing.TB) *engine.Engine {
	t.Helper()
	linesEngineOnce.Do(func() {
		linesEngine, linesEngineErr = engine.New(context.Background(), engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w"}))
	})
	if linesEngineErr != nil {
		t.Fatal(linesEngineErr)
	}
	return linesEngine
}

func decideAll(t *testing.T, eng *engine.Engine, in string) []permission.Decision {
	t.Helper()
	return decideParts(t, eng, in)
}

// decideParts is decideAll of the parts one after the other, read from
// each in turn: inputs of many MiB are not copied into one string first.
func decideParts(t *testing.T, eng *engine.Engine, parts ...string) []permission.Decision {
	t.Helper()
	readers := make([]io.Reader, len(parts))
	for i, p := range parts {
		readers[i] = strings.NewReader(p)
	}
	var out bytes.Buffer
	if err := adapter.DecideStream(context.Background(), eng, io.MultiReader(readers...), &out); err != nil {
		t.Fatal(err)
	}
	var ds []permission.Decision
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var d permission.Decision
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		ds = append(ds, d)
	}
	return ds
}

// A bad line gets its own DENY and the lines after it are still decided.
func TestDecideStreamBadLinesKeepGoing(t *testing.T) {
	t.Parallel()
	eng := newEngine(t)
	in := strings.Join([]string{
		`{"tool_name":"Bash","tool_input":{"command":"git status"},"tool_use_id":"a"}`,
		`{not json`,
		`{"tool_input":{"command":"ls"}}`,
		`{"tool_name":"Bash","tool_input":"ls"}`,
		`{"tool_name":"Bash","tool_input":{"command":"ls"},"permission_mode":"yolo"}`,
		`{"tool_name":"Write","tool_input":{"file_path":7}}`,
		``,
		`{"tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"z","extra":{"ignored":true}}`,
	}, "\n")
	ds := decideAll(t, eng, in)
	if len(ds) != 7 {
		t.Fatalf("got %d decisions, want 7", len(ds))
	}
	if ds[0].Behavior != permission.Allow || ds[0].ToolUseID != "a" {
		t.Errorf("line 1: %+v", ds[0])
	}
	wantField := []string{"", "not valid JSON", "tool_name", "tool_input", "permission_mode", "tool_input.file_path"}
	for i := 1; i <= 5; i++ {
		d := ds[i]
		if d.Behavior != permission.Deny || d.Step != permission.StepError || d.Code == "" {
			t.Errorf("line %d: want DENY/error with a code, got %+v", i+1, d)
		}
		if !strings.Contains(d.Message, wantField[i]) {
			t.Errorf("line %d: message %q does not name %q", i+1, d.Message, wantField[i])
		}
	}
	if ds[1].Code != permission.CodeInvalidJSON || ds[2].Code != permission.CodeInputError {
		t.Errorf("codes: %q %q", ds[1].Code, ds[2].Code)
	}
	if ds[6].Behavior != permission.Ask || ds[6].Step != permission.StepToolCheck || !ds[6].BypassImmune || ds[6].ToolUseID != "z" {
		t.Errorf("last line: %+v", ds[6])
	}
}

// A pretty-printed single document is one input.
func TestDecideStreamSingleDocument(t *testing.T) {
	t.Parallel()
	eng := newEngine(t)
	ds := decideAll(t, eng, "{\n  \"tool_name\": \"Read\",\n  \"tool_input\": {\"file_path\": \"/w/a.go\"}\n}\n")
	if len(ds) != 1 || ds[0].Behavior != permission.Allow || ds[0].Step != permission.StepReadOnly {
		t.Fatalf("got %+v", ds)
	}
}

func TestCallInput(t *testing.T) {
	t.Parallel()
	eng := newEngine(t)
	ro := true
	d := adapter.Decide(context.Background(), eng, adapter.Call{
		ToolName:  "deploy",
		ToolInput: map[string]any{"target": "staging"},
		ToolUseID: "t9",
		Mode:      "default",
		ReadOnly:  &ro,
	})
	if d.Behavior != permission.Allow || d.Step != permission.StepReadOnly || d.ToolUseID != "t9" {
		t.Fatalf("got %+v", d)
	}
	d = adapter.Decide(context.Background(), eng, adapter.Call{
		ToolName:  "deploy",
		ToolInput: map[string]any{"target": "prod"},
		Mode:      "dontAsk",
		ToolCheck: &adapter.ToolCheck{Behavior: "ASK", BypassImmune: true, Message: "production deploy"},
	})
	if d.Behavior != permission.Deny || d.Step != permission.StepToolCheck || !strings.Contains(d.Message, "production deploy") {
		t.Fatalf("got %+v", d)
	}
}

// A host can keep `permopa decide` open: each decision is written as soon as
// its line arrives, before the input ends.
func TestDecideStreamAnswersBeforeEOF(t *testing.T) {
	t.Parallel()
	eng := newEngine(t)
	pr, pw := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- adapter.DecideStream(context.Background(), eng, pr, outW); outW.Close() }()
	lines := bufio.NewReader(outR)
	for _, cmd := range []string{"git status", "npm install"} {
		fmt.Fprintf(pw, `{"tool_name":"Bash","tool_input":{"command":%q}}`+"\n", cmd)
		got, err := lines.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		var d permission.Decision
		if err := json.Unmarshal([]byte(got), &d); err != nil || d.Behavior == "" {
			t.Fatalf("decision for %q: %q (%v)", cmd, got, err)
		}
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A truncated document at the end of the input is one invalid_json DENY.
func TestDecideStreamTruncatedDocument(t *testing.T) {
	t.Parallel()
	eng := newEngine(t)
	ds := decideAll(t, eng, `{"tool_name":"Bash","tool_input":{"command":"ls"}}`+"\n"+`{"tool_name":"Bash",`+"\n")
	if len(ds) != 2 || ds[0].Behavior != permission.Allow || ds[1].Code != permission.CodeInvalidJSON || ds[1].Line != 2 {
		t.Fatalf("got %+v", ds)
	}
}

// Answers are written out before DecideStream waits for input, whatever
// the framing of what came before: single lines, a pretty-printed document,
// a line that arrives in pieces, a bad line. The host writes each input
// only after it has read the previous answer, so a decision held back in
// the output buffer would stall both sides.
func TestDecideStreamInteractiveNoStall(t *testing.T) {
	t.Parallel()
	eng := newEngine(t)
	pr, pw := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- adapter.DecideStream(context.Background(), eng, pr, outW); outW.Close() }()
	answers := make(chan string)
	go func() {
		lines := bufio.NewReader(outR)
		for {
			l, err := lines.ReadString('\n')
			if err != nil {
				close(answers)
				return
			}
			answers <- l
		}
	}()
	steps := []struct {
		writes []string
		want   string // a word of the answer's message or its behavior
		id     string
	}{
		{[]string{`{"tool_name":"Bash","tool_input":{"command":"git status"},"tool_use_id":"a"}` + "\n"}, permission.Allow, "a"},
		{[]string{"{\n", `  "tool_name": "Bash",` + "\n", `  "tool_input": {"command": "ls"},` + "\n", `  "tool_use_id": "b"` + "\n", "}\n"}, permission.Allow, "b"},
		{[]string{`{"tool_name":"Bash","tool_inp`, `ut":{"command":"rm -rf /"},"tool_use_id":"c"}` + "\n"}, permission.Ask, "c"},
		{[]string{`{"tool_name":"Bash","tool_use_id":"d",` + "\n"}, permission.Deny, "d"},
		{[]string{"\n", `{"tool_name":"Read","tool_input":{"file_path":"/w/x"},"tool_use_id":"e"}`}, permission.Allow, "e"},
	}
	for i, s := range steps {
		for _, w := range s.writes {
			if _, err := io.WriteString(pw, w); err != nil {
				t.Fatal(err)
			}
		}
		if i == len(steps)-1 {
			// The last input has no newline: its end is the end of the input.
			pw.Close()
		}
		var got string
		select {
		case got = <-answers:
		case <-time.After(2 * time.Minute):
			t.Fatalf("step %d: no answer while the host waits for it", i+1)
		}
		var d permission.Decision
		if err := json.Unmarshal([]byte(got), &d); err != nil || d.Behavior != s.want || d.ToolUseID != s.id {
			t.Fatalf("step %d: %q (%v), want %s for %s", i+1, got, err, s.want, s.id)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if extra, ok := <-answers; ok {
		t.Fatalf("an answer too many: %q", extra)
	}
}

// writeCounter counts the writes a host would see as separate reads.
type writeCounter struct {
	bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// Lines that are all there already are answered in one write, every one
// of them still answered in order.
func TestDecideStreamBatchOneWrite(t *testing.T) {
	t.Parallel()
	eng := newEngine(t)
	var in strings.Builder
	for i := range 20 {
		fmt.Fprintf(&in, `{"tool_name":"Bash","tool_input":{"command":"ls %d"},"tool_use_id":"id%d"}`+"\n", i, i)
	}
	var out writeCounter
	if err := adapter.DecideStream(context.Background(), eng, strings.NewReader(in.String()), &out); err != nil {
		t.Fatal(err)
	}
	if out.writes != 1 {
		t.Errorf("%d writes for 20 decisions, want 1", out.writes)
	}
	for i, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var d permission.Decision
		if err := json.Unmarshal([]byte(l), &d); err != nil || d.ToolUseID != fmt.Sprintf("id%d", i) || d.Behavior != permission.Allow {
			t.Fatalf("decision %d: %q (%v)", i, l, err)
		}
	}
}

// failWriter refuses every write: the host has gone.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// A decision that cannot be written is an error of DecideStream, also when
// it was only buffered until the end of the input.
func TestDecideStreamWriteErrorReported(t *testing.T) {
	t.Parallel()
	eng := newEngine(t)
	in := `{"tool_name":"Bash","tool_input":{"command":"ls"}}` + "\n" + `{"tool_name":"Bash","tool_input":{"command":"pwd"}}`
	err := adapter.DecideStream(context.Background(), eng, strings.NewReader(in), failWriter{})
	if !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("got %v, want the write error", err)
	}
}
