package adapter_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// A project's .env, which Gemini CLI loads into its environment in a
// trusted folder (the only one where it runs hooks), reaches every
// command: BASH_ENV there makes `bash -c ls` run the project's script
// (shown with the real bash first). The Gemini hook names the file's
// variables in project_env, and the policy makes no command read-only
// while one of them is a name a shell or a program reads; a .env of data
// names only (DATABASE_URL) keeps ls read-only. Not parallel: HOME.
func TestGeminiProjectEnvIsNotReadOnly(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, p := filepath.Join(root, "home"), filepath.Join(root, "p")
	for _, d := range []string{home, p} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(root, "ran")
	if err := os.WriteFile(filepath.Join(p, "x.sh"), []byte("echo ran > "+marker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", "ls")
	cmd.Dir = p
	cmd.Env = append(os.Environ(), "BASH_ENV=./x.sh")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bash -c ls: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("bash -c ls did not source BASH_ENV: the case proves nothing")
	}
	t.Setenv("HOME", home)
	eng, err := engine.New(context.Background(), engine.WithSettings(settings.Settings{Home: home}))
	if err != nil {
		t.Fatal(err)
	}
	opts := adapter.HookOptions{Engine: func(context.Context, string) (*engine.Engine, error) { return eng, nil }}
	decide := func(command string) map[string]any {
		payload, _ := json.Marshal(map[string]any{"hook_event_name": "BeforeTool", "cwd": p, "tool_name": "run_shell_command",
			"tool_input": map[string]any{"command": command}})
		out, errb, code := runHook(t, "gemini", string(payload), opts)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s %s", command, code, out, errb)
		}
		return decode(t, out)
	}
	for _, c := range []struct{ env, want string }{
		{"", "allow"},
		{"DATABASE_URL=postgres://x\nAPI_KEY=k\n", "allow"},
		{"BASH_ENV=./x.sh\n", "ask"},
		{"export GIT_PAGER='sh -c x'\n", "ask"},
		{"NODE_OPTIONS=--require=./x.js\n", "ask"},
	} {
		os.Remove(filepath.Join(p, ".env"))
		if c.env != "" {
			if err := os.WriteFile(filepath.Join(p, ".env"), []byte(c.env), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, command := range []string{"ls", "git status"} {
			d := decide(command)
			if d["decision"] != c.want {
				t.Errorf(".env %q: %q: %v, want %s", c.env, command, d, c.want)
			}
			if c.want == "ask" && !strings.Contains(d["reason"].(string), ".env") {
				t.Errorf(".env %q: %q: the reason does not name the file: %v", c.env, command, d)
			}
		}
	}
}
