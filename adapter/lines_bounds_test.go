package adapter_test

import (
	"strings"
	"testing"

	"github.com/permopa/permopa/permission"
)

// DecideStream keeps one decision per input whatever the input: a line
// over the 16 MiB cap, data after a document, nesting deeper than JSON
// decoders take, a document cut short (one decision per line: docs/usage.md,
// "Input and output"), and a long pretty-printed document (scanned once,
// not once per line) each get their own answer, and the lines after them
// are still decided.
func TestDecideStreamBoundedInputs(t *testing.T) {
	t.Parallel()
	eng := newEngine(t)
	ok := `{"tool_name":"Bash","tool_input":{"command":"git status"},"tool_use_id":"ok"}`
	pretty := "{\n  \"tool_name\": \"Bash\",\n  \"tool_input\": {\"command\": \"git status\"},\n  \"pad\": [\n" +
		strings.Repeat("    1,\n", 200000) + "    1\n  ]\n}"
	cases := []struct {
		name, in string
		code     string // "" for a decision of the policy
		mention  string
	}{
		{"a line over 16 MiB", `{"tool_name":"Write","tool_input":{"content":"` + strings.Repeat("x", 17<<20) + `"}}`, permission.CodeInputError, "over 16777216 bytes"},
		{"a line over 16 MiB without JSON", strings.Repeat("x", 17<<20), permission.CodeInputError, "over 16777216 bytes"},
		{"data after the document", ok + ` {"tool_name":"Read"}`, permission.CodeInvalidJSON, "data after"},
		{"nesting deeper than decoders take", strings.Repeat("[", 100000), permission.CodeInvalidJSON, "not valid JSON"},
		{"a long pretty-printed document", pretty, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := decideParts(t, eng, c.in, "\n"+ok+"\n")
			if len(ds) != 2 {
				t.Fatalf("%d decisions, want 2", len(ds))
			}
			d := ds[0]
			if c.code != "" && (d.Behavior != permission.Deny || d.Code != c.code || !strings.Contains(d.Message, c.mention)) {
				t.Errorf("first input: %+v, want DENY %s naming %q", d, c.code, c.mention)
			}
			if c.code == "" && (d.Behavior != permission.Allow || d.Step != permission.StepReadOnly) {
				t.Errorf("first input: %+v", d)
			}
			if len(d.Message) > 1000 {
				t.Errorf("the message quotes the input at length: %d bytes", len(d.Message))
			}
			if ds[1].Behavior != permission.Allow || ds[1].ToolUseID != "ok" {
				t.Errorf("the line after: %+v", ds[1])
			}
		})
	}
	ds := decideAll(t, eng, ok+"\n{\n  \"tool_name\": \"Bash\",\n  \"tool_input\": {")
	if len(ds) != 4 || ds[0].ToolUseID != "ok" {
		t.Fatalf("a document cut short by the end of input: %+v", ds)
	}
	for i, d := range ds[1:] {
		if d.Behavior != permission.Deny || d.Code != permission.CodeInvalidJSON || d.Line != i+2 {
			t.Errorf("a document cut short by the end of input, line %d: %+v", i+2, d)
		}
	}
}
