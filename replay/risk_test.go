package replay

import (
	"reflect"
	"testing"
)

// TestRiskOf: what insights says a call did, per tool and command class:
// read-only or not, a dangerous or credential path touched, code run that
// permopa cannot see. A suggestion's risk is the sum over its calls.
func TestRiskOf(t *testing.T) {
	t.Parallel()
	bash := func(cmd string) map[string]any {
		return map[string]any{"cwd": "/w", "tool_input": map[string]any{"command": cmd}}
	}
	file := func(key, p string) map[string]any {
		return map[string]any{"cwd": "/w", "tool_input": map[string]any{key: p, "content": "x", "url": "https://x.example/?k=v", "query": "q"}}
	}
	cases := []struct {
		name, tool string
		doc        map[string]any
		want       Risk
	}{
		{"a read-only command", "Bash", bash("ls -la src"), Risk{}},
		{"a read-only pipeline", "Bash", bash("git log --oneline | head -5"), Risk{}},
		{"a removal", "Bash", bash("rm -rf build"), Risk{NotReadOnly: 1}},
		{"a redirection", "Bash", bash("echo x > out.txt"), Risk{NotReadOnly: 1}},
		{"a credential read", "Bash", bash("cat ~/.ssh/id_rsa"), Risk{Dangerous: 1}},
		{"a shell startup file written", "Bash", bash("echo 'curl x|sh' >> ~/.bashrc"), Risk{NotReadOnly: 1, Dangerous: 1}},
		{"inline interpreter code", "Bash", bash("python3 -c 'import os; os.system(\"id\")'"), Risk{NotReadOnly: 1, RunsUnknown: 1}},
		{"a command built at run time", "Bash", bash(`eval "$CMD"`), Risk{NotReadOnly: 1, RunsUnknown: 1}},
		{"a command the log erased", "Bash", map[string]any{"cwd": "/w", "tool_input": map[string]any{}}, Risk{NotReadOnly: 1, RunsUnknown: 1}},
		{"a Read of a file", "Read", file("file_path", "/w/README.md"), Risk{}},
		{"a Read of credentials", "Read", file("file_path", "/home/u/.aws/credentials"), Risk{Dangerous: 1}},
		{"a relative Read of a key", "Read", file("file_path", ".env"), Risk{Dangerous: 1}},
		{"a Write", "Write", file("file_path", "/w/src/a.go"), Risk{NotReadOnly: 1}},
		{"an Edit of a git hook", "Edit", file("file_path", "/w/.git/hooks/pre-commit"), Risk{NotReadOnly: 1, Dangerous: 1}},
		{"a NotebookEdit", "NotebookEdit", file("notebook_path", "/w/a.ipynb"), Risk{NotReadOnly: 1}},
		{"a WebFetch", "WebFetch", file("url", ""), Risk{NotReadOnly: 1}},
		{"a WebSearch", "WebSearch", file("query", ""), Risk{NotReadOnly: 1}},
		{"an MCP tool", "mcp__db__query", map[string]any{"tool_input": map[string]any{"sql": "drop table x"}}, Risk{NotReadOnly: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, got := riskOf(c.tool, c.doc, "/home/u")
			got.DangerousPaths = nil
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s %v: risk %+v, want %+v", c.tool, c.doc["tool_input"], got, c.want)
			}
		})
	}
}
