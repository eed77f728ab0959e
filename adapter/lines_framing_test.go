package adapter_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/permission"
)

// want is what one decision of a framing case must say.
type want struct {
	behavior string // "" for any
	code     string // "" for a decided call
	line     int    // the line an error decision names (0: not an error)
	id       any    // the tool_use_id echoed
	msg      string // a part of the message
}

func ok(id string) want { return want{id: id} }

func bad(code string, line int, id any, msg string) want {
	return want{behavior: permission.Deny, code: code, line: line, id: id, msg: msg}
}

func call(id, cmd string) string {
	return fmt.Sprintf(`{"tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":%q}`, cmd, id)
}

// TestDecideStreamFraming: one decision per non-blank line, in order; a
// broken line never takes the next one with it; error decisions name the
// line and, when the broken line shows it, the call's tool_use_id.
func TestDecideStreamFraming(t *testing.T) {
	t.Parallel()
	pretty := "{\n  \"tool_name\": \"Bash\",\n  \"tool_input\": {\n    \"command\": \"ls\"\n  },\n  \"tool_use_id\": \"p\"\n}"
	cases := []struct {
		name  string
		lines []string
		want  []want
	}{
		{"the issue's four lines, one truncated", []string{call("a", "ls"), `{"tool_name":"Bash",`, call("c", "git status"), call("d", "pwd")},
			[]want{ok("a"), bad(permission.CodeInvalidJSON, 2, nil, "line 2, column"), ok("c"), ok("d")}},
		{"a truncated line keeps its tool_use_id", []string{`{"tool_use_id":"t1","tool_name":"Bash","tool_input":{"command":"rm -rf`, call("b", "ls")},
			[]want{bad(permission.CodeInvalidJSON, 1, "t1", "not valid JSON"), ok("b")}},
		{"an id after the cut is lost, not guessed", []string{`{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t`, call("b", "ls")},
			[]want{bad(permission.CodeInvalidJSON, 1, nil, "line 1"), ok("b")}},
		{"garbage around the id", []string{`{oops, "tool_use_id" : "g1", nope}`, call("b", "ls")},
			[]want{bad(permission.CodeInvalidJSON, 1, "g1", "line 1"), ok("b")}},
		{"an escaped id", []string{`{"tool_use_id":"a\"b\u00e9","tool_name":`},
			[]want{bad(permission.CodeInvalidJSON, 1, `a"bé`, "line 1")}},
		{"two different ids: none echoed", []string{`{"tool_use_id":"x","tool_use_id":"y",`},
			[]want{bad(permission.CodeInvalidJSON, 1, nil, "line 1")}},
		{"an id inside tool_input is not the call's", []string{`{"tool_name":"mcp__x","tool_input":{"tool_use_id":"inner"},`},
			[]want{bad(permission.CodeInvalidJSON, 1, nil, "line 1")}},
		{"an id inside a string is not a key", []string{`{"tool_input":{"command":"echo \"tool_use_id\":\"s\""},`},
			[]want{bad(permission.CodeInvalidJSON, 1, nil, "line 1")}},
		{"two documents on one line are one bad input", []string{call("a", "ls") + " " + call("b", "rm -rf /"), call("c", "ls")},
			[]want{bad(permission.CodeInvalidJSON, 1, nil, "line 1"), ok("c")}},
		{"not an object", []string{`[` + call("a", "ls") + `]`, `"ls"`, `42`, `null`, call("e", "ls")},
			[]want{bad(permission.CodeInputError, 1, nil, "not a JSON array"), bad(permission.CodeInputError, 2, nil, "JSON string"),
				bad(permission.CodeInputError, 3, nil, "JSON number"), bad(permission.CodeInputError, 4, nil, "JSON null"), ok("e")}},
		{"validation errors name the line and keep the id", []string{call("a", "ls"), `{"tool_input":{"command":"ls"},"tool_use_id":"v"}`},
			[]want{ok("a"), bad(permission.CodeInputError, 2, "v", "tool_name")}},
		{"blank lines get no decision but count", []string{"", call("a", "ls"), "   \t", `{"x":`},
			[]want{ok("a"), bad(permission.CodeInvalidJSON, 4, nil, "line 4")}},
		{"CRLF line ends", []string{call("a", "ls") + "\r", `{"tool_name":` + "\r", call("c", "ls") + "\r"},
			[]want{ok("a"), bad(permission.CodeInvalidJSON, 2, nil, "line 2"), ok("c")}},
		{"a pretty-printed document is one input", []string{pretty, call("b", "ls")},
			[]want{ok("p"), ok("b")}},
		{"a pretty-printed document that fails validation names its first line", []string{call("a", "ls"), "{\n  \"tool_input\": {},\n  \"tool_use_id\": \"q\"\n}"},
			[]want{ok("a"), bad(permission.CodeInputError, 2, "q", "tool_name")}},
		{"a lone { does not swallow the lines after it", []string{"{", call("a", "ls"), call("b", "ls")},
			[]want{bad(permission.CodeInvalidJSON, 1, nil, "line 1"), ok("a"), ok("b")}},
		{"a lone { before indented lines and a }: each line on its own", []string{"{", "  " + call("a", "ls"), "  " + call("b", "ls"), "}"},
			[]want{bad(permission.CodeInvalidJSON, 1, nil, "line 1"), ok("a"), ok("b"), bad(permission.CodeInvalidJSON, 4, nil, "line 4")}},
		{"a document cut by an unindented line", []string{"{", `  "tool_name": "Bash",`, call("c", "ls")},
			[]want{bad(permission.CodeInvalidJSON, 1, nil, "line 1"), bad(permission.CodeInvalidJSON, 2, nil, "line 2"), ok("c")}},
		{"a document cut by a blank line", []string{"{", `  "tool_use_id": "k",`, "", call("c", "ls")},
			[]want{bad(permission.CodeInvalidJSON, 1, nil, "line 1"), bad(permission.CodeInvalidJSON, 2, nil, "line 2"), ok("c")}},
		{"a document cut by the end of the input", []string{call("a", "ls"), "{", `  "tool_name": "Bash"`},
			[]want{ok("a"), bad(permission.CodeInvalidJSON, 2, nil, "line 2"), bad(permission.CodeInvalidJSON, 3, nil, "line 3")}},
	}
	eng := newEngine(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := decideAll(t, eng, strings.Join(c.lines, "\n")+"\n")
			if len(ds) != len(c.want) {
				t.Fatalf("%d decisions, want %d: %+v", len(ds), len(c.want), ds)
			}
			for i, w := range c.want {
				checkDecision(t, i, ds[i], w)
			}
		})
	}
}

func checkDecision(t *testing.T, i int, d permission.Decision, w want) {
	t.Helper()
	if w.code == "" {
		if d.Step == permission.StepError || d.Line != 0 {
			t.Errorf("decision %d: want a decided call, got %+v", i+1, d)
		}
	} else if d.Behavior != permission.Deny || d.Step != permission.StepError || d.Code != w.code || d.Line != w.line {
		t.Errorf("decision %d: want DENY/error %s at line %d, got %+v", i+1, w.code, w.line, d)
	}
	if w.behavior != "" && d.Behavior != w.behavior {
		t.Errorf("decision %d: behavior %s, want %s", i+1, d.Behavior, w.behavior)
	}
	if d.ToolUseID != w.id {
		t.Errorf("decision %d: tool_use_id %#v, want %#v", i+1, d.ToolUseID, w.id)
	}
	if !strings.Contains(d.Message, w.msg) {
		t.Errorf("decision %d: message %q does not say %q", i+1, d.Message, w.msg)
	}
}

// TestDecideStreamLongLine: a line over the limit is one input_error DENY
// naming its line; it is not kept whole, and the next line is decided
// (lines_internal_test.go checks the limit's edge).
func TestDecideStreamLongLine(t *testing.T) {
	t.Parallel()
	eng := newEngine(t)
	long := []string{`{"tool_use_id":"big","tool_name":"Write","tool_input":{"file_path":"/w/a","content":"`,
		strings.Repeat("x", adapter.MaxLineBytes), `"}}`}
	parts := append(append([]string{call("a", "ls") + "\n"}, long...), "\n"+call("c", "ls")+"\n")
	ds := decideParts(t, eng, append(parts, long...)...)
	want := []want{ok("a"), bad(permission.CodeInputError, 2, "big", "longer than"), ok("c"), bad(permission.CodeInputError, 4, "big", "line 4")}
	if len(ds) != len(want) {
		t.Fatalf("%d decisions, want %d", len(ds), len(want))
	}
	for i, w := range want {
		checkDecision(t, i, ds[i], w)
	}
}

// TestDecideStreamRandomLines mixes good, broken and blank lines at random:
// every non-blank line gets one decision, in order, and each names its call
// or its line.
func TestDecideStreamRandomLines(t *testing.T) {
	t.Parallel()
	eng := newEngine(t)
	kinds := []func(n int) (string, want){
		func(n int) (string, want) { id := fmt.Sprint("ok", n); return call(id, "git status"), ok(id) },
		func(n int) (string, want) {
			id := fmt.Sprint("cut", n)
			return `{"tool_use_id":"` + id + `","tool_name":"Bash",`, bad(permission.CodeInvalidJSON, n, id, "not valid JSON")
		},
		func(n int) (string, want) {
			return `{"tool_name":"Bash","tool_in`, bad(permission.CodeInvalidJSON, n, nil, "not valid JSON")
		},
		func(n int) (string, want) { return `}`, bad(permission.CodeInvalidJSON, n, nil, "not valid JSON") },
		func(n int) (string, want) { return `  ]`, bad(permission.CodeInvalidJSON, n, nil, "not valid JSON") },
		func(n int) (string, want) { return `"str"`, bad(permission.CodeInputError, n, nil, "one JSON object") },
		func(n int) (string, want) {
			id := fmt.Sprint("val", n)
			return `{"tool_name":"Bash","tool_input":"ls","tool_use_id":"` + id + `"}`, bad(permission.CodeInputError, n, id, "tool_input")
		},
		func(n int) (string, want) { return "", want{} },
	}
	r := rand.New(rand.NewPCG(1, 13))
	for round := range 20 {
		var lines []string
		var wants []want
		for n := 1; n <= 30; n++ {
			l, w := kinds[r.IntN(len(kinds))](n)
			lines = append(lines, l)
			if l != "" {
				wants = append(wants, w)
			}
		}
		ds := decideAll(t, eng, strings.Join(lines, "\n"))
		if len(ds) != len(wants) {
			t.Fatalf("round %d: %d decisions for %d non-blank lines", round, len(ds), len(wants))
		}
		for i, w := range wants {
			checkDecision(t, i, ds[i], w)
		}
	}
}

// errReader gives its text, then a read error.
type errReader struct{ r io.Reader }

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if errors.Is(err, io.EOF) {
		return n, errors.New("pipe broke")
	}
	return n, err
}

// TestDecideStreamReadError: a read error ends the stream with an error,
// after every line read so far, a half-read document included, got its
// decision.
func TestDecideStreamReadError(t *testing.T) {
	t.Parallel()
	eng := newEngine(t)
	var out bytes.Buffer
	in := call("a", "ls") + "\n{\n" + `  "tool_use_id": "z",` + "\n"
	err := adapter.DecideStream(context.Background(), eng, &errReader{strings.NewReader(in)}, &out)
	if err == nil || !strings.Contains(err.Error(), "pipe broke") {
		t.Fatalf("err = %v", err)
	}
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Fatalf("%d decisions before the error, want 3: %s", n, out.String())
	}
}
