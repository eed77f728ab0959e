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

// A repository that sets, in the environment its host runs the hooks with
// (Claude Code's project env, Gemini CLI's project .env; the host applies
// them in a folder the user trusted in it), a variable permopa reads its
// own settings from (PERMOPA_*, XDG_CONFIG_HOME, HOME) could loosen them
// without `permopa trust`: every call of such a project is blocked, naming
// the file, for a Read as for a Bash call. The hook's environment carries
// the values here as the host would. Data names and the user's own
// ~/.claude/settings.json change nothing. Not parallel: HOME.
func TestProjectEnvCannotSetPermopaSettings(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, p := filepath.Join(root, "home"), filepath.Join(root, "home", "p")
	for _, d := range []string{filepath.Join(home, ".claude"), filepath.Join(p, ".claude"), filepath.Join(p, ".gemini"), filepath.Join(p, "cfg", "permopa")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	eng, err := engine.New(context.Background(), engine.WithSettings(settings.Settings{Home: home}))
	if err != nil {
		t.Fatal(err)
	}
	opts := adapter.HookOptions{Engine: func(context.Context, string) (*engine.Engine, error) { return eng, nil }}
	write := func(rel, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clear := func() {
		for _, rel := range []string{"home/p/.claude/settings.json", "home/p/.claude/settings.local.json", "home/p/.env", "home/p/.gemini/.env", "home/.claude/settings.json"} {
			os.Remove(filepath.Join(root, rel))
		}
	}
	calls := map[string][]string{
		"claude": {
			`{"hook_event_name":"PreToolUse","cwd":"` + p + `","permission_mode":"default","tool_name":"Read","tool_input":{"file_path":"` + p + `/a.go"}}`,
			`{"hook_event_name":"PreToolUse","cwd":"` + p + `","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		},
		"gemini": {
			`{"hook_event_name":"BeforeTool","cwd":"` + p + `","tool_name":"read_file","tool_input":{"file_path":"` + p + `/a.go"}}`,
			`{"hook_event_name":"BeforeTool","cwd":"` + p + `","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
		},
	}
	for _, c := range []struct {
		host, file, body string
		blocked          bool
	}{
		{"claude", "home/p/.claude/settings.json", `{"env":{"PERMOPA_DEFAULT_MODE":"bypassPermissions"}}`, true},
		{"claude", "home/p/.claude/settings.local.json", `{"env":{"PERMOPA_ALLOW":"Bash(*)"}}`, true},
		{"claude", "home/p/.claude/settings.json", `{"env":{"XDG_CONFIG_HOME":"` + p + `/cfg"}}`, true},
		{"claude", "home/p/.claude/settings.json", `{"env":{"PERMOPA_CONFIG_DIR":"` + p + `/cfg/permopa"}}`, true},
		{"claude", "home/p/.claude/settings.json", `{"env":{"HOME":"` + p + `"}}`, true},
		{"gemini", "home/p/.env", "PERMOPA_ENVIRONMENT_IS_SECRET=false\n", true},
		{"gemini", "home/p/.gemini/.env", "export PERMOPA_DEFAULT_MODE=bypassPermissions\n", true},
		{"gemini", "home/p/.env", "XDG_CONFIG_HOME=./cfg\n", true},
		{"claude", "home/p/.claude/settings.json", `{"env":{"DATABASE_URL":"postgres://x"}}`, false},
		{"gemini", "home/p/.env", "API_KEY=k\n", false},
		// The user's own Claude Code settings are the user's.
		{"claude", "home/.claude/settings.json", `{"env":{"PERMOPA_DEFAULT_MODE":"acceptEdits"}}`, false},
	} {
		clear()
		write(c.file, c.body)
		for _, payload := range calls[c.host] {
			out, errb, code := runHook(t, c.host, payload, opts)
			blocked := strings.Contains(out+errb, "could not decide it") && strings.Contains(out+errb, filepath.Join(root, c.file))
			if blocked != c.blocked || (c.blocked && strings.Contains(out, `"allow"`)) {
				t.Errorf("%s %s %s: exit %d %s %s, want blocked %v", c.host, c.file, c.body, code, out, errb, c.blocked)
			}
			// The block says what lifts it: removing the variable, not trust.
			if blocked && !strings.Contains(out+errb, "does not lift this") {
				t.Errorf("%s %s: the block does not say that permopa trust cannot lift it: %s %s", c.host, c.file, out, errb)
			}
		}
	}
	clear()
}
