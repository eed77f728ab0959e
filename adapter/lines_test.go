package adapter_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
)

func newEngine(t testing.TB) *engine.Engine {
	t.Helper()
	eng, err := engine.New(context.Background(), engine.WithSettings(engine.Settings{Home: "/home/u", Cwd: "/w"}))
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

func decideAll(t *testing.T, eng *engine.Engine, in string) []engine.Decision {
	t.Helper()
	var out bytes.Buffer
	if err := adapter.DecideStream(context.Background(), eng, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var ds []engine.Decision
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var d engine.Decision
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		ds = append(ds, d)
	}
	return ds
}

// A bad line gets its own DENY and the lines after it are still decided.
func TestDecideStreamBadLinesKeepGoing(t *testing.T) {
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
	if ds[0].Behavior != engine.Allow || ds[0].ToolUseID != "a" {
		t.Errorf("line 1: %+v", ds[0])
	}
	wantField := []string{"", "not valid JSON", "tool_name", "tool_input", "permission_mode", "tool_input.file_path"}
	for i := 1; i <= 5; i++ {
		d := ds[i]
		if d.Behavior != engine.Deny || d.Step != engine.StepError || d.Code == "" {
			t.Errorf("line %d: want DENY/error with a code, got %+v", i+1, d)
		}
		if !strings.Contains(d.Message, wantField[i]) {
			t.Errorf("line %d: message %q does not name %q", i+1, d.Message, wantField[i])
		}
	}
	if ds[1].Code != engine.CodeInvalidJSON || ds[2].Code != engine.CodeInputError {
		t.Errorf("codes: %q %q", ds[1].Code, ds[2].Code)
	}
	if ds[6].Behavior != engine.Ask || ds[6].Step != engine.StepToolCheck || !ds[6].BypassImmune || ds[6].ToolUseID != "z" {
		t.Errorf("last line: %+v", ds[6])
	}
}

// A pretty-printed single document is one input.
func TestDecideStreamSingleDocument(t *testing.T) {
	eng := newEngine(t)
	ds := decideAll(t, eng, "{\n  \"tool_name\": \"Read\",\n  \"tool_input\": {\"file_path\": \"/w/a.go\"}\n}\n")
	if len(ds) != 1 || ds[0].Behavior != engine.Allow || ds[0].Step != engine.StepReadOnly {
		t.Fatalf("got %+v", ds)
	}
}

func TestCallInput(t *testing.T) {
	eng := newEngine(t)
	ro := true
	d := adapter.Decide(context.Background(), eng, adapter.Call{
		ToolName:  "deploy",
		ToolInput: map[string]any{"target": "staging"},
		ToolUseID: "t9",
		Mode:      "default",
		ReadOnly:  &ro,
	})
	if d.Behavior != engine.Allow || d.Step != engine.StepReadOnly || d.ToolUseID != "t9" {
		t.Fatalf("got %+v", d)
	}
	d = adapter.Decide(context.Background(), eng, adapter.Call{
		ToolName:  "deploy",
		ToolInput: map[string]any{"target": "prod"},
		Mode:      "dontAsk",
		ToolCheck: &adapter.ToolCheck{Behavior: "ASK", BypassImmune: true, Message: "production deploy"},
	})
	if d.Behavior != engine.Deny || d.Step != engine.StepToolCheck || !strings.Contains(d.Message, "production deploy") {
		t.Fatalf("got %+v", d)
	}
}

// A host can keep `permopa decide` open: each decision is written as soon as
// its line arrives, before the input ends.
func TestDecideStreamAnswersBeforeEOF(t *testing.T) {
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
		var d engine.Decision
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
	eng := newEngine(t)
	ds := decideAll(t, eng, `{"tool_name":"Bash","tool_input":{"command":"ls"}}`+"\n"+`{"tool_name":"Bash",`+"\n")
	if len(ds) != 2 || ds[0].Behavior != engine.Allow || ds[1].Code != engine.CodeInvalidJSON || ds[1].Line != 2 {
		t.Fatalf("got %+v", ds)
	}
}
