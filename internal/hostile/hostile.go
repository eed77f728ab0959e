// Package hostile builds the pathological tool calls that tests and
// benchmarks throw at permopa to show that no input exhausts it (SECURITY.md,
// "Bounded work"): deep command substitutions, very long pipelines and
// chains, huge and deeply nested JSON. Each is a complete call as a hook
// or the server receives it.
package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Input is one pathological call.
type Input struct {
	Name string
	// Call is the tool call (the input of /v1/permission/check).
	Call map[string]any
	// Refused: the call is beyond what permopa analyses, so the answer is
	// a DENY with step "error" and a code (limit_exceeded from the Bash
	// analyser's limits, or timeout). The others (huge or deep JSON that
	// the policy does not look into) get their ordinary decision.
	Refused bool
}

// JSON is the call as one line of JSON (without HTML escapes, so that
// `&&` stays two bytes).
func (in Input) JSON() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in.Call); err != nil {
		panic(err)
	}
	return bytes.TrimSpace(buf.Bytes())
}

func bash(cmd string) map[string]any {
	return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": "/work/app", "permission_mode": "default"}
}

// Inputs are the pathological calls, each well under the server's default
// 1 MiB body limit (so that they reach the analyser and the policy rather
// than being refused by size).
func Inputs() []Input {
	// Deeply nested JSON inside the tool's input, under encoding/json's
	// depth limit of 10000 so that it parses.
	nested := strings.Repeat(`{"a":`, 9000) + `1` + strings.Repeat(`}`, 9000)
	var deepObj any
	if err := json.Unmarshal([]byte(nested), &deepObj); err != nil {
		panic(err)
	}
	wide := make(map[string]any, 20000)
	for i := range 20000 {
		wide[fmt.Sprintf("k%05d", i)] = strings.Repeat("v", 20)
	}
	return []Input{
		{"deep command substitution", bash("echo " + strings.Repeat("$(", 7500) + "x" + strings.Repeat(")", 7500)), true},
		{"deep backquote substitution", bash("echo " + strings.Repeat("$(echo `", 2000) + "x" + strings.Repeat("`)", 2000)), true},
		{"100k-part pipeline", bash(strings.Repeat("a|", 100000) + "a"), true},
		{"100k && chain", bash(strings.Repeat("a&&", 100000) + "a"), true},
		{"100k ; list", bash(strings.Repeat("a;", 100000) + "a"), true},
		{"deep subshells", bash(strings.Repeat("(", 20000) + "a" + strings.Repeat(")", 20000)), true},
		{"long word", bash("echo " + strings.Repeat("x", 900000)), true},
		{"huge Write content", map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": "/work/app/big.txt", "content": strings.Repeat("line of text\n", 70000)}, "cwd": "/work/app", "permission_mode": "acceptEdits"}, false},
		{"deeply nested MCP input", map[string]any{"tool_name": "mcp__db__query", "tool_input": map[string]any{"q": deepObj}, "cwd": "/work/app", "permission_mode": "default"}, false},
		{"wide MCP input", map[string]any{"tool_name": "mcp__db__query", "tool_input": wide, "cwd": "/work/app", "permission_mode": "default"}, false},
	}
}

// Ordinary are everyday calls with the decision the default policy gives
// them (behavior and step), for checking that answers stay right while
// pathological calls arrive.
func Ordinary() []struct {
	Call           map[string]any
	Behavior, Step string
} {
	return []struct {
		Call           map[string]any
		Behavior, Step string
	}{
		{bash("git status"), "ALLOW", "read_only"},
		{bash("ls -la src | grep foo && git diff --stat"), "ALLOW", "read_only"},
		{bash("npm install"), "ASK", "mode_fallback"},
		{map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": "/work/app/README.md"}, "cwd": "/work/app"}, "ALLOW", "read_only"},
		{map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": "/work/app/.env", "content": "X=1"}, "cwd": "/work/app", "permission_mode": "acceptEdits"}, "ASK", "tool_check"},
	}
}
