package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The rule an ASK suggests for a command that runs a package script,
// added with `permopa rules add` as the ASK says, makes `permopa decide`
// ALLOW the same call, and only it: another script of the same file still
// asks (issue 27, docs/rules.md "Scripts and suggested rules").
func TestScriptSuggestionAcceptedAllowsTheCall(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, project := filepath.Join(root, "home"), filepath.Join(root, "p")
	putFile(t, filepath.Join(project, "package.json"), `{"scripts": {"build": "tsc -p . && cp -r static dist", "nuke": "rm -rf ~"}}`+"\n")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := isolatedEnv(home)
	decide := func(cmd string) decision {
		t.Helper()
		in, _ := json.Marshal(map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": project, "permission_mode": "default"})
		out, errOut, code := permopaAt(t, project, string(in)+"\n", env, "decide")
		var d decision
		if code != 0 || json.Unmarshal([]byte(out), &d) != nil {
			t.Fatalf("permopa decide %q: exit %d\n%s%s", cmd, code, out, errOut)
		}
		return d
	}
	d := decide("npm run build")
	if d.Behavior != "ASK" || !strings.Contains(d.Message, "script build: tsc -p ., cp -r static dist") ||
		len(d.SuggestedRules) != 1 || d.SuggestedRules[0]["rule_content"] != "npm run build" {
		t.Fatalf("npm run build: %s/%s (%s) suggesting %v; want an ASK showing the script and suggesting Bash(npm run build)", d.Behavior, d.Step, d.Message, d.SuggestedRules)
	}
	if out, errOut, code := permopaAt(t, project, "", env, "rules", "add", "--project", project, "--destination", "local", "Bash(npm run build)"); code != 0 {
		t.Fatalf("permopa rules add: exit %d\n%s%s", code, out, errOut)
	}
	if d := decide("npm run build"); d.Behavior != "ALLOW" || d.Step != "allow_rule" {
		t.Errorf("npm run build after accepting the suggestion: %s/%s (%s), want ALLOW by it", d.Behavior, d.Step, d.Message)
	}
	if d := decide("npm run nuke"); d.Behavior == "ALLOW" {
		t.Errorf("npm run nuke after accepting Bash(npm run build): ALLOW (%s)", d.Message)
	}
}
