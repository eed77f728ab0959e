package hookproto

import (
	"encoding/json"
	"strings"
	"testing"
)

// A notice (a decision log that cannot be written) reaches the host's
// user with any answer, and never changes the decision.
func TestAnswerWithNotice(t *testing.T) {
	const note = "permopa: the decision log x is not written"
	for _, tc := range []struct {
		name string
		in   Answer
		// want: the stdout JSON's systemMessage, or the stderr text
		wantStdout, wantStderr string
		wantExit               int
	}{
		{"empty allow (Codex)", Answer{}, `{"systemMessage":"` + note + `"}`, "", 0},
		{"Claude allow", Answer{Stdout: []byte(`{"hookSpecificOutput":{"permissionDecision":"allow"}}` + "\n")}, `"permissionDecision":"allow"`, "", 0},
		{"Gemini deny with a message", Answer{Stdout: []byte(`{"decision":"deny","reason":"r","systemMessage":"m"}`)}, `"decision":"deny","reason":"r","systemMessage":"m\n`, "", 0},
		{"exit 2 block", Answer{Stderr: "blocked: r", Exit: 2}, "", "blocked: r\n" + note, 2},
	} {
		got := tc.in.WithNotice(note)
		if got.Exit != tc.wantExit || !strings.Contains(got.Stderr, tc.wantStderr) {
			t.Errorf("%s: %+v", tc.name, got)
		}
		if tc.wantStdout != "" {
			var m map[string]any
			if err := json.Unmarshal(got.Stdout, &m); err != nil {
				t.Fatalf("%s: stdout is not JSON: %s", tc.name, got.Stdout)
			}
			if !strings.Contains(string(got.Stdout), tc.wantStdout) || !strings.HasSuffix(m["systemMessage"].(string), note) {
				t.Errorf("%s: stdout %s, want %s and the notice", tc.name, got.Stdout, tc.wantStdout)
			}
		}
		if tc.in.WithNotice("").Exit != tc.in.Exit || string(tc.in.WithNotice("").Stdout) != string(tc.in.Stdout) {
			t.Errorf("%s: an empty notice changed the answer", tc.name)
		}
	}
}
