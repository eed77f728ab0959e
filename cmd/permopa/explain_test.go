package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `permopa explain` on a denied compound command names the leaf and the
// rule (with its file) that denied it; --json carries the same.
func TestExplainCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.yaml")
	if err := os.WriteFile(settings, []byte("permissions:\n  deny: [\"Bash(rm -rf:*)\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := `{"tool_name":"Bash","tool_input":{"command":"git status && sudo rm -rf build"},"cwd":"/tmp","permission_mode":"default"}`
	out, stderr, code := permopa(t, in, "explain", "--settings", settings)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"Decision: DENY at deny_rule", "rule: Bash(rm -rf:*) from " + settings, "hits leaf 2: rm -rf build   (through sudo)", "leaf 1: git status"} {
		if !strings.Contains(out, s) {
			t.Errorf("explain lacks %q:\n%s", s, out)
		}
	}
	out, _, code = permopa(t, in+"\n"+`{"tool_name":"Read","tool_input":{"file_path":"/tmp/x"}}`, "explain", "--json", "--settings", settings)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, %d lines: %s", code, len(lines), out)
	}
	var ex struct {
		Decision struct{ Behavior, Step string }
		Points   []struct {
			Step, Status string
			Leaves       []int
		}
		BashAnalysis map[string]any `json:"bash_analysis"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Decision.Behavior != "DENY" || ex.Points[0].Status != "decided" || len(ex.Points[0].Leaves) != 1 || ex.Points[0].Leaves[0] != 1 || ex.BashAnalysis == nil {
		t.Fatalf("%+v", ex)
	}
}

// explain --project-settings reads the settings of the input's cwd, as hooks do.
func TestExplainProjectSettings(t *testing.T) {
	t.Parallel()
	cwd, home := hookWorkspace(t)
	raw, _ := os.ReadFile("../../adapter/testdata/hooks/claude/pretooluse-bash-ask-rule.json")
	in := strings.ReplaceAll(string(raw), "{{CWD}}", cwd)
	out, stderr, code := permopaWith(t, in, map[string]string{"HOME": home}, "explain", "--project-settings")
	if code != 0 || !strings.Contains(out, "ASK at ask_rule") || !strings.Contains(out, "projectSettings") {
		t.Fatalf("exit %d: %s %s", code, out, stderr)
	}
}

func TestBashAnalyzeCommand(t *testing.T) {
	t.Parallel()
	out, stderr, code := permopa(t, "", "bash", "analyze", "--cwd", "/tmp", "find . -name '*.go' | xargs rm")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"not read-only", "leaf 1: find . -name '*.go'", "(through xargs)"} {
		if !strings.Contains(out, s) {
			t.Errorf("analysis lacks %q:\n%s", s, out)
		}
	}
	out, _, code = permopa(t, "", "bash", "analyze", "--json", "ls -la")
	var a struct {
		ReadOnly bool `json:"read_only"`
		Leaves   []any
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil || code != 0 || !a.ReadOnly || len(a.Leaves) != 1 {
		t.Fatalf("exit %d %v: %s", code, err, out)
	}
}

func TestMatrixCommand(t *testing.T) {
	t.Parallel()
	out, stderr, code := permopa(t, "", "matrix")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{
		"| point | representative call | DEFAULT | ACCEPT_EDITS | EXPLORE | BYPASS | DONT_ASK |",
		"| ASK | ASK | ASK | ASK | DENY |",
		"| ASK | ASK | DENY | ALLOW | DENY |",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("matrix lacks %q:\n%s", s, out)
		}
	}
	out, _, code = permopa(t, "", "matrix", "--format", "html")
	if code != 0 || !strings.HasPrefix(out, "<!DOCTYPE html>") {
		t.Fatalf("html: exit %d %s", code, out)
	}
	if _, _, code := permopa(t, "", "matrix", "--format", "pdf"); code == 0 {
		t.Fatal("--format pdf accepted")
	}
}

// permopaEnv runs permopa with extra environment variables.
func permopaEnv(t *testing.T, stdin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	return permopaAt(t, "", stdin, env, args...)
}

// explain --host explains what the hook decides for a host's payload: a
// Codex patch is one explanation per file.
func TestExplainHostPayload(t *testing.T) {
	t.Parallel()
	cwd, home := hookWorkspace(t)
	raw, _ := os.ReadFile("../../adapter/testdata/hooks/codex/pretooluse-apply-patch-git-hook.json")
	in := strings.ReplaceAll(string(raw), "{{CWD}}", cwd)
	out, stderr, code := permopaWith(t, in, map[string]string{"HOME": home}, "explain", "--host", "codex", "--project-settings")
	if code != 0 || strings.Count(out, "Decision:") != 2 || !strings.Contains(out, "Call:     Write in mode ACCEPT_EDITS") || !strings.Contains(out, ".git/hooks/pre-commit") {
		t.Fatalf("exit %d: %s %s", code, out, stderr)
	}
}
