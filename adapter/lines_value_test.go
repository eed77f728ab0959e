package adapter_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/permission"
)

// The line protocol decides each input as engine.Decide decides the value
// ast.ValueFromReader reads from the same line: over the matrix corpus,
// each line also with a repeated tool_name key in front (the last one
// counts) and with invalid UTF-8 and escapes in its strings.
func TestDecideStreamSameAsDecide(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../engine/testdata/matrix-cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 0; sc.Scan(); n++ {
		l := sc.Text()
		lines = append(lines, l)
		// Every case as it is; its two rewritings (as a Write, with an
		// escaped, surrogate and invalid UTF-8 key) for one case in four
		// in the quick suite, every case with -tags slow (docs/development.md).
		if slowTests || n%4 == 0 {
			lines = append(lines, `{"tool_name":"Write",`+strings.TrimPrefix(l, "{"),
				strings.Replace(l, `"tool_input": {`, "\"tool_input\": {\"x\\u00e9\\ud800\":\"\xff\xfe\\u0041\", ", 1))
		}
	}
	if err := sc.Err(); err != nil || len(lines) == 0 {
		t.Fatalf("corpus: %d lines, %v", len(lines), err)
	}
	lines = append(lines,
		`{"tool_name":"Bash","tool_input":{"command":"git status","command":"rm -rf /"}}`,
		`{"tool_name":"Bash","tool_input":{"command":"rm -rf /","command":"git status"}}`,
		`{"tool_name":"Write","tool_input":{"file_path":"/w/a","content":"x","file_path":"/etc/passwd"}}`,
		`{"tool_name":"Read","tool_input":{"file_path":"/w/a","offset":1e2,"limit":10.0}}`,
		`{"tool_name":"Read","tool_input":{"file_path":"/w/\u002e\u002e/etc/shadow"}}`,
	)
	eng := newEngine(t)
	ctx := context.Background()
	var out bytes.Buffer
	for i, l := range lines {
		out.Reset()
		if err := adapter.DecideStream(ctx, eng, strings.NewReader(l+"\n"), &out); err != nil {
			t.Fatal(err)
		}
		var got permission.Decision
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("line %d: %q: %v", i+1, out.String(), err)
		}
		v, err := ast.ValueFromReader(strings.NewReader(l))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		want := eng.Decide(ctx, v)
		// What the line protocol adds to an error decision: the line
		// number, and the tool_use_id read from the raw line.
		got.Line = 0
		if want.ToolUseID == nil {
			got.ToolUseID = nil
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if !bytes.Equal(gj, wj) {
			t.Errorf("line %.100q:\n got %s\nwant %s", l, gj, wj)
		}
	}
}
