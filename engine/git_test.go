package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// runGit runs the real git in dir with an empty configuration of its own.
func runGit(t *testing.T, root, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(root, "home"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	_ = cmd.Run() // the exit status does not matter: what ran does
}

// bareRepository lays out dir as a repository without a .git segment whose
// config runs "touch marker" on "git status" (core.fsmonitor), the way an
// agent could write it with echo and mkdir.
func bareRepository(t *testing.T, dir, marker string) {
	t.Helper()
	for _, d := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"HEAD":   "ref: refs/heads/main\n",
		"config": "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = touch " + marker + "\n",
	}
	for f, body := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// git runs programs named by a repository's configuration; a directory laid
// out as a bare repository has no .git segment. Checked against the real
// git first (the attack works, and safe.bareRepository=explicit stops it),
// then through the engine: such a repository is never read-only, in every
// mode, and writing one is a safety ASK (issue 10, "programs that run
// repository-configured code").
func TestBareRepositoryRunsNothingReadOnly(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := filepath.Join(root, "w")
	if err := os.MkdirAll(filepath.Join(root, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(w, 0o755); err != nil {
		t.Fatal(err)
	}
	runGit(t, root, w, "init", "-q")
	marker := filepath.Join(root, "pwn")
	bareRepository(t, filepath.Join(w, "e"), marker)

	// The real git: "git -C e status", and "git status" anywhere below e,
	// run e/config's fsmonitor; safe.bareRepository=explicit refuses.
	for _, c := range []struct {
		dir  string
		args []string
		runs bool
	}{
		{w, []string{"-C", "e", "status"}, true},
		{filepath.Join(w, "e", "objects"), []string{"status"}, true},
		{w, []string{"-c", "safe.bareRepository=explicit", "-C", "e", "status"}, false},
		{w, []string{"status"}, false},
	} {
		os.Remove(marker)
		runGit(t, root, c.dir, c.args...)
		_, err := os.Stat(marker)
		if ran := err == nil; ran != c.runs {
			t.Fatalf("real git %v in %s: fsmonitor ran %v, want %v", c.args, c.dir, ran, c.runs)
		}
	}
	os.Remove(marker)

	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: filepath.Join(root, "home"), Cwd: w,
		Rules: []permission.Rule{mustRule(t, "Bash(git status:*)"), mustRule(t, "Bash(git log:*)"), mustRule(t, "Bash(git:*)")}}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd, mode string) permission.Decision {
		return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"cwd": w, "permission_mode": mode})
	}
	for _, cmd := range []string{
		"git -C e status",
		"cd e && git status",
		"git -C e/objects log --oneline",
		"cd e/refs && git diff",
		"git -C e ls-files",
		"git -C " + filepath.Join(w, "e") + " grep x",
		"git --git-dir=e log",
	} {
		for _, mode := range modes {
			d := decide(cmd, mode)
			want, step := permission.Ask, permission.StepToolCheck
			switch mode {
			case "plan":
				want, step = permission.Deny, permission.StepModeFallback
			case "dontAsk":
				want = permission.Deny
			case "bypassPermissions":
				want, step = permission.Allow, ""
			}
			if d.Behavior != want || (step != "" && d.Step != step) {
				t.Errorf("%s: %q: %s/%s (%s), want %s/%s", mode, cmd, d.Behavior, d.Step, d.Message, want, step)
			}
		}
	}
	// Configuration that makes git run programs is a dangerous write, even
	// under a git allow rule.
	for _, cmd := range []string{
		"git config core.fsmonitor 'touch /tmp/x'",
		"git config --global core.pager 'sh -c x'",
		"git -C e config core.hooksPath /tmp/h",
		"git config --local --add alias.st '!sh -c x'",
		"git config -f e/config core.fsmonitor x",
	} {
		if d := decide(cmd, "default"); d.Behavior != permission.Ask || !d.BypassImmune {
			t.Errorf("default: %q: %s/%s (%s), want a safety ASK", cmd, d.Behavior, d.Step, d.Message)
		}
	}
	// The work tree's own repository is read-only as before.
	for _, cmd := range []string{"git status", "git log --oneline", "cd src 2>/dev/null; git diff"} {
		if d := decide(cmd, "plan"); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
			t.Errorf("plan: %q: %s/%s (%s), want read-only", cmd, d.Behavior, d.Step, d.Message)
		}
	}

	// Built and run in one call: the writes make a repository.
	oneCall := "mkdir -p f/objects f/refs && echo 'ref: refs/heads/main' > f/HEAD && " +
		"printf '[core]\\n\\tfsmonitor = touch " + marker + "\\n' > f/config && git -C f status"
	for _, mode := range []string{"acceptEdits", "default", "dontAsk"} {
		if d := decide(oneCall, mode); d.Behavior == permission.Allow {
			t.Errorf("%s: the one-call build was allowed: %s", mode, d.Message)
		}
	}
	noRules, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: filepath.Join(root, "home"), Cwd: w}))
	if err != nil {
		t.Fatal(err)
	}
	step := func(tool string, input map[string]any) permission.Decision {
		return noRules.Decide(ctx, map[string]any{"tool_name": tool, "tool_input": input, "cwd": w, "permission_mode": "acceptEdits"})
	}
	if d := step("Bash", map[string]any{"command": oneCall}); d.Behavior != permission.Ask || !d.BypassImmune {
		t.Errorf("acceptEdits, no rules: the one-call build: %s/%s (%s), want a safety ASK", d.Behavior, d.Step, d.Message)
	}

	// Built over several calls: the call that completes it asks, and so
	// does every later write into it.
	g := filepath.Join(w, "g")
	if d := step("Bash", map[string]any{"command": "mkdir -p g/objects"}); d.Behavior != permission.Allow {
		t.Fatalf("mkdir -p g/objects: %s (%s)", d.Behavior, d.Message)
	}
	if err := os.MkdirAll(filepath.Join(g, "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool  string
		input map[string]any
	}{
		{"Bash", map[string]any{"command": "mkdir g/refs"}},
		{"Bash", map[string]any{"command": "echo 'ref: refs/heads/main' > g/HEAD"}},
		{"Write", map[string]any{"file_path": filepath.Join(g, "HEAD"), "content": "ref: refs/heads/main\n"}},
	} {
		if d := step(c.tool, c.input); d.Behavior != permission.Ask || !d.BypassImmune {
			t.Errorf("%s %v: %s/%s (%s), want a safety ASK", c.tool, c.input, d.Behavior, d.Step, d.Message)
		}
	}
	bareRepository(t, g, marker)
	for _, c := range []struct {
		tool  string
		input map[string]any
	}{
		{"Write", map[string]any{"file_path": filepath.Join(g, "config"), "content": "[core]\n"}},
		{"Edit", map[string]any{"file_path": "g/config", "old_string": "a", "new_string": "b"}},
		{"Bash", map[string]any{"command": "echo '#!/bin/sh' > g/hooks/post-checkout"}},
		{"Bash", map[string]any{"command": "cp /tmp/attributes g/info/attributes"}},
	} {
		if d := step(c.tool, c.input); d.Behavior != permission.Ask || !d.BypassImmune {
			t.Errorf("%s %v: %s/%s (%s), want a safety ASK", c.tool, c.input, d.Behavior, d.Step, d.Message)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a check ran the repository's fsmonitor")
	}

	// A repository git itself makes without a .git segment (init --bare,
	// clone --bare/--mirror, --separate-git-dir) is a safety ASK even
	// under a git allow rule, and so is a chain that then writes its config
	// and runs git there; a work tree's own init or clone is not.
	for _, cmd := range []string{
		"git init --bare h",
		"git init -q --bare h && cp /tmp/evil h/config && git -C h status",
		"git clone --bare https://example.com/r.git && git -C r.git log",
		"git clone --mirror https://example.com/r.git m",
		"git init --separate-git-dir=sep wt",
		"git clone --separate-git-dir=../sep https://example.com/r.git",
		"git init --template=t n",
	} {
		if d := decide(cmd, "default"); d.Behavior != permission.Ask || !d.BypassImmune {
			t.Errorf("default: %q: %s/%s (%s), want a safety ASK", cmd, d.Behavior, d.Step, d.Message)
		}
	}
	for _, cmd := range []string{"git init", "git init -q n", "git clone https://example.com/r.git"} {
		if d := decide(cmd, "default"); d.Behavior != permission.Allow || d.Step != permission.StepAllowRule {
			t.Errorf("default: %q: %s/%s (%s), want ALLOW by rule", cmd, d.Behavior, d.Step, d.Message)
		}
	}
}

func mustRule(t testing.TB, s string) permission.Rule {
	t.Helper()
	r, err := settings.ParseRule(s, permission.Allow)
	if err != nil {
		t.Fatal(err)
	}
	r.Source, r.Layer = settings.SourceUser, "user"
	return r
}
