package hookproto

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// projectEnvOf runs a host's Bash payload through Inputs and returns the
// project_env it marks ("name file-relative-to-root") and git_pager_cat.
func projectEnvOf(t *testing.T, root, host, cwd string) ([]string, bool) {
	t.Helper()
	var p map[string]any
	switch host {
	case "gemini":
		p = map[string]any{"hook_event_name": "BeforeTool", "cwd": cwd, "tool_name": "run_shell_command", "tool_input": map[string]any{"command": "ls"}}
	case "claude":
		p = map[string]any{"hook_event_name": "PreToolUse", "cwd": cwd, "permission_mode": "default", "tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}}
	case "codex":
		p = map[string]any{"hook_event_name": "PreToolUse", "cwd": cwd, "tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}}
	}
	ins, err := Inputs(host, p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	if l, ok := ins[0]["project_env"].([]any); ok {
		for _, e := range l {
			m := e.(map[string]any)
			rel, _ := filepath.Rel(root, m["file"].(string))
			out = append(out, m["name"].(string)+" "+rel)
		}
	}
	return out, ins[0]["git_pager_cat"] == true
}

// Not parallel: HOME, CLAUDE_PROJECT_DIR and CODEX_HOME are the process's.
func TestProjectEnv(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, p := filepath.Join(root, "home"), filepath.Join(root, "home", "p")
	sub := filepath.Join(p, "src")
	os.MkdirAll(sub, 0o755)
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	t.Setenv("CODEX_HOME", "")
	check := func(host, cwd string, want []string, wantPagerCat bool) {
		t.Helper()
		got, cat := projectEnvOf(t, root, host, cwd)
		if !reflect.DeepEqual(got, want) || host == "codex" && cat != wantPagerCat {
			t.Errorf("%s in %s: project_env %q git_pager_cat %v, want %q %v", host, cwd, got, cat, want, wantPagerCat)
		}
	}
	// Nothing in the project: nothing marked; the home's files are the user's.
	writeFile(t, home+"/.env", "BASH_ENV=/x\n")
	writeFile(t, home+"/.claude/settings.json", `{"env": {"BASH_ENV": "/x"}}`)
	for _, h := range []string{"gemini", "claude", "codex"} {
		check(h, sub, nil, true)
	}
	// Gemini CLI: the first .gemini/.env or .env up from the directory.
	writeFile(t, p+"/.env", "# c\nexport BASH_ENV=./x.sh\nDATABASE_URL=postgres://x\n\nGIT_PAGER: sh\n")
	check("gemini", sub, []string{"BASH_ENV home/p/.env", "DATABASE_URL home/p/.env", "GIT_PAGER home/p/.env"}, true)
	writeFile(t, sub+"/.gemini/.env", "LD_PRELOAD=/x.so\n")
	check("gemini", sub, []string{"LD_PRELOAD home/p/src/.gemini/.env"}, true)
	os.RemoveAll(sub + "/.gemini")
	os.Chmod(p+"/.env", 0o000)
	if os.Getuid() != 0 {
		check("gemini", sub, []string{"? home/p/.env"}, true)
	}
	os.Chmod(p+"/.env", 0o644)
	// Claude Code: the project's settings (CLAUDE_PROJECT_DIR, else the cwd).
	t.Setenv("CLAUDE_PROJECT_DIR", p)
	writeFile(t, p+"/.claude/settings.json", `{"env": {"NODE_OPTIONS": "--require ./x.js", "A": "1"}}`)
	writeFile(t, p+"/.claude/settings.local.json", `{"env": `)
	check("claude", sub, []string{"A home/p/.claude/settings.json", "NODE_OPTIONS home/p/.claude/settings.json", "? home/p/.claude/settings.local.json"}, true)
	// Codex: shell_environment_policy of every .codex/config.toml up.
	writeFile(t, p+"/.codex/config.toml", "model = \"x\"\n[shell_environment_policy]\nset = { BASH_ENV = \"./x.sh\", \"CI\" = \"1\" }\n")
	check("codex", sub, []string{"BASH_ENV home/p/.codex/config.toml", "CI home/p/.codex/config.toml"}, true)
	writeFile(t, p+"/.codex/config.toml", "[shell_environment_policy.set]\nGIT_PAGER = \"sh -c x\"\n")
	check("codex", sub, []string{"GIT_PAGER home/p/.codex/config.toml"}, false)
	writeFile(t, p+"/.codex/config.toml", "[profiles.a.shell_environment_policy]\ninherit = \"none\"\n")
	check("codex", sub, nil, false)
	writeFile(t, p+"/.codex/config.toml", "shell_environment_policy.set.PAGER = \"x\"\n")
	check("codex", sub, []string{"? home/p/.codex/config.toml"}, false)
	os.Remove(p + "/.codex/config.toml")
	// The user's own Codex policy keeps its variables but may drop GIT_PAGER=cat.
	writeFile(t, home+"/.codex/config.toml", "[shell_environment_policy]\nexclude = [\"*PAGER*\"]\n")
	check("codex", sub, nil, false)
	writeFile(t, home+"/.codex/config.toml", "[shell_environment_policy]\nset = { CI = \"1\" }\n")
	check("codex", sub, nil, true)
}
