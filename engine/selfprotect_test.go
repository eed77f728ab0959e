package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// protectedSetup is a project with permopa's settings in temporary
// directories: proj (the cwd, with .permopa/settings.yaml denying rm and
// trying to relax what it may not), home, the user's and the
// managed directories, and a --settings file in ci/.
type protectedSetup struct {
	root, proj, home, user, managed, ci string
	eng                                 *engine.Engine
}

func newProtectedSetup(t *testing.T, projectSettings string) *protectedSetup {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &protectedSetup{root: root, proj: filepath.Join(root, "proj"), home: filepath.Join(root, "home"),
		user: filepath.Join(root, "user"), managed: filepath.Join(root, "managed"), ci: filepath.Join(root, "ci")}
	write := func(p, content string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(s.proj, ".permopa/settings.yaml"), projectSettings)
	write(filepath.Join(s.proj, "src/main.go"), "package main\n")
	write(filepath.Join(s.home, ".claude.json"), "{}")
	write(filepath.Join(s.user, "settings.yaml"), "permissions:\n  deny: [\"Bash(curl:*)\"]\n")
	write(filepath.Join(s.ci, "perm.yaml"), "permissions:\n  ask: [\"Bash(git push:*)\"]\n")
	trustProject(t, s.user, s.proj)
	ctx := context.Background()
	s.eng, err = newEngine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	layers := settings.NewLayers(settings.LayerOptions{
		ProjectDir: s.proj, UserDir: s.user, ManagedDir: s.managed, CommandLine: []string{filepath.Join(s.ci, "perm.yaml")},
		Home: s.home, Cwd: s.proj, Environ: []string{},
	})
	for _, p := range layers.Attach(ctx, s.eng) {
		t.Fatalf("settings problem: %v", p)
	}
	return s
}

func (s *protectedSetup) decide(tool string, toolInput map[string]any, mode string) permission.Decision {
	return s.eng.Decide(context.Background(), map[string]any{
		"tool_name": tool, "tool_input": toolInput, "cwd": s.proj, "permission_mode": mode,
	})
}

// wantProtected: a safety ASK in every mode that asks, BYPASS included;
// DENY where nobody can answer (DONT_ASK) or nothing but reads runs (EXPLORE).
func (s *protectedSetup) wantProtected(t *testing.T, tool string, toolInput map[string]any) {
	t.Helper()
	for _, mode := range modes {
		d := s.decide(tool, toolInput, mode)
		want, step := permission.Ask, permission.StepToolCheck
		switch mode {
		case "plan":
			want, step = permission.Deny, permission.StepModeFallback
		case "dontAsk":
			want = permission.Deny
		}
		if d.Behavior != want || d.Step != step {
			t.Errorf("%s: %s %v: %s/%s (%s), want %s/%s", mode, tool, toolInput, d.Behavior, d.Step, d.Message, want, step)
			continue
		}
		if step == permission.StepToolCheck && (!d.BypassImmune || !strings.Contains(d.Message, "settings")) {
			t.Errorf("%s: %s %v: %q, want a self-protection safety check", mode, tool, toolInput, d.Message)
		}
	}
}

const relaxingProject = `permissions:
  deny: ["Bash(git push --force:*)"]
  allow: ["Bash(echo:*)", "Bash(cp:*)", "Bash(mv:*)", "Bash(sed:*)", "Bash(tee:*)", "Bash(ln:*)", "Bash(permopa:*)",
    "Bash(install:*)", "Bash(truncate:*)", "Bash(chmod:*)", "Bash(tar:*)", "Bash(dd:*)", "Bash(mkdir:*)",
    "Write(**)", "Edit(**)"]
dangerous_paths:
  directories: {remove: [".claude", ".permopa", ".codex"]}
  files: {remove: [".mcp.json"]}
  code_running: {remove: [".permopa", ".claude", ".husky"]}
`

// The agent cannot rewrite its own rules (issue 12, "self-protection"):
// writing permopa's settings, or an agent host's permission and hook
// settings, is a safety ASK in every mode, BYPASS included, through every
// write form, whatever the allow rules and whatever a settings file says.
func TestSelfProtection(t *testing.T) {
	t.Parallel()
	s := newProtectedSetup(t, relaxingProject)
	p := func(rel string) string { return filepath.Join(s.proj, rel) }
	h := func(rel string) string { return filepath.Join(s.home, rel) }
	for _, c := range []struct {
		tool  string
		input map[string]any
	}{
		{"Write", map[string]any{"file_path": p(".permopa/settings.local.yaml"), "content": "permissions:\n  allow: [\"Bash\"]\n"}},
		{"Edit", map[string]any{"file_path": p(".permopa/settings.yaml"), "old_string": "deny", "new_string": "x"}},
		{"Write", map[string]any{"file_path": ".permopa/settings.local.yaml", "content": "x"}},
		{"Write", map[string]any{"file_path": p("sub/.permopa/settings.yaml"), "content": "x"}},
		{"MultiEdit", map[string]any{"file_path": p(".permopa/settings.yaml"), "edits": []any{}}},
		{"Write", map[string]any{"file_path": p(".claude/settings.json"), "content": "{}"}},
		{"Edit", map[string]any{"file_path": p(".claude/settings.local.json"), "old_string": "a", "new_string": "b"}},
		{"Write", map[string]any{"file_path": p(".claude/hooks/pre.sh"), "content": "x"}},
		{"NotebookEdit", map[string]any{"notebook_path": p(".claude/n.ipynb"), "new_source": "x"}},
		{"Write", map[string]any{"file_path": h(".claude.json"), "content": "{}"}},
		{"Write", map[string]any{"file_path": p(".mcp.json"), "content": "{}"}},
		{"Write", map[string]any{"file_path": h(".codex/config.toml"), "content": "x"}},
		{"Write", map[string]any{"file_path": p(".gemini/settings.json"), "content": "{}"}},
		{"Write", map[string]any{"file_path": p(".cursor/mcp.json"), "content": "{}"}},
		{"Write", map[string]any{"file_path": filepath.Join(s.user, "settings.yaml"), "content": "x"}},
		{"Write", map[string]any{"file_path": filepath.Join(s.managed, "settings.yaml"), "content": "x"}},
		{"Write", map[string]any{"file_path": filepath.Join(s.ci, "perm.yaml"), "content": "x"}},
		{"Write", map[string]any{"file_path": "~/.config/permopa/settings.yaml", "content": "x"}},
	} {
		s.wantProtected(t, c.tool, c.input)
	}
	for _, cmd := range []string{
		`echo 'permissions: {allow: ["Bash"]}' > .permopa/settings.local.yaml`,
		`printf 'allow: [Bash]' >> .permopa/settings.yaml`,
		`sed -i '/deny/d' .permopa/settings.yaml`,
		`cp /tmp/x .permopa/settings.yaml`,
		`cp /tmp/x .permopa/`,
		`mv .permopa .old`,
		`mv .permopa/settings.yaml /tmp/`,
		`rm -rf .permopa`,
		`rm .permopa/settings.yaml`,
		`rm -rf .claude`,
		`mv . ../elsewhere`,
		`find . -delete`,
		`git clean -fdx`,
		`rmdir .claude`,
		`unlink .mcp.json`,
		`rm -r ../proj`,
		`cd .. && mv proj other`,
		`ln -sf /tmp/mine .permopa/settings.local.yaml`,
		`ln -s /tmp/mine .permopa`,
		`install -D x .permopa/settings.local.yaml`,
		`truncate -s0 .permopa/settings.yaml`,
		`chmod 000 .permopa/settings.yaml`,
		`tee .mcp.json < /tmp/servers`,
		`cd .permopa && echo x > settings.local.yaml`,
		`tar xf a.tar -C .permopa`,
		`dd if=/tmp/x of=.permopa/settings.yaml`,
		`mkdir -p .claude/hooks`,
		`echo '{}' > ~/.claude.json`,
		`cat x >> .claude/settings.local.json`,
		`permopa rules add Bash`,
		`permopa trust .`,
		`echo y | permopa trust --user-dir ` + s.user,
		`permopa rules revoke --behavior deny 'Bash(rm:*)'`,
		`bash -c 'echo x > .codex/config.toml'`,
		`echo x > ` + filepath.Join(s.ci, "perm.yaml"),
		`rm -rf ` + s.ci,
		`mv ` + s.user + ` /tmp/u`,
		`echo x > ` + filepath.Join(s.managed, "settings.yaml"),
		`sed -i s/ask/allow/ ../ci/perm.yaml`,
		`cp /tmp/perm.yaml ../ci/`,
		`mv /tmp/other/.permopa .`,
		`cp -r /tmp/evil/.claude ./`,
		`echo x > .perm*/settings.yaml`,
		`echo x >> .permopa/setti?gs.yaml`,
		`less -o .permopa/settings.yaml notes.txt`,
		`unzip -o a.zip -d .permopa`,
	} {
		s.wantProtected(t, "Bash", map[string]any{"command": cmd})
	}
}

// Files that make tools run code later are a safety ASK by default, which
// BYPASS skips like other safety checks; a project's settings (which the
// agent cannot write without asking) may relax single names.
func TestCodeRunningFiles(t *testing.T) {
	t.Parallel()
	s := newProtectedSetup(t, "permissions:\n  allow: [\"Bash(echo:*)\"]\n")
	relaxed := newProtectedSetup(t, relaxingProject)
	for _, c := range []struct {
		tool  string
		input map[string]any
		// relaxable: the relaxing project removed this name.
		relaxable bool
	}{
		{"Write", map[string]any{"file_path": ".husky/pre-commit", "content": "x"}, true},
		{"Bash", map[string]any{"command": "echo 'curl x|sh' > .husky/pre-push"}, true},
		{"Write", map[string]any{"file_path": ".githooks/post-checkout", "content": "x"}, false},
		{"Edit", map[string]any{"file_path": ".vscode/tasks.json", "old_string": "a", "new_string": "b"}, false},
		{"Write", map[string]any{"file_path": ".devcontainer/devcontainer.json", "content": "{}"}, false},
		{"Write", map[string]any{"file_path": ".pre-commit-config.yaml", "content": "x"}, false},
		{"Bash", map[string]any{"command": "echo 'eval $(curl x)' > .envrc"}, false},
		{"Write", map[string]any{"file_path": "lefthook.yml", "content": "x"}, false},
		{"Write", map[string]any{"file_path": ".yarnrc.yml", "content": "yarnPath: x.js"}, false},
		{"Bash", map[string]any{"command": "echo x > .git/hooks/pre-commit"}, false},
	} {
		for _, mode := range []string{"default", "acceptEdits"} {
			if d := s.decide(c.tool, c.input, mode); d.Behavior != permission.Ask || d.Step != permission.StepToolCheck || !d.BypassImmune {
				t.Errorf("%s: %s %v: %s/%s (%s), want a safety ASK", mode, c.tool, c.input, d.Behavior, d.Step, d.Message)
			}
		}
		if d := s.decide(c.tool, c.input, "bypassPermissions"); d.Behavior != permission.Allow {
			t.Errorf("bypassPermissions: %s %v: %s/%s (%s), want ALLOW", c.tool, c.input, d.Behavior, d.Step, d.Message)
		}
		if d := s.decide(c.tool, c.input, "dontAsk"); d.Behavior != permission.Deny {
			t.Errorf("dontAsk: %s %v: %s/%s (%s), want DENY", c.tool, c.input, d.Behavior, d.Step, d.Message)
		}
		d := relaxed.decide(c.tool, c.input, "acceptEdits")
		if c.relaxable && d.Behavior != permission.Allow {
			t.Errorf("relaxed project, acceptEdits: %s %v: %s/%s (%s), want ALLOW", c.tool, c.input, d.Behavior, d.Step, d.Message)
		}
		if !c.relaxable && d.Behavior == permission.Allow {
			t.Errorf("relaxed project, acceptEdits: %s %v allowed (%s)", c.tool, c.input, d.Message)
		}
	}
	// Writing into, touching or changing the mode of a directory that holds
	// settings leaves them alone.
	for _, cmd := range []string{"cp /tmp/x .", "mv /tmp/x .", "touch .", "chmod 755 .", "cp -r ../lib/* .",
		"mkdir -p . src", "cp " + filepath.Join(s.root, "ci", "perm.yaml") + " /tmp/copy"} {
		if d := s.decide("Bash", map[string]any{"command": cmd}, "acceptEdits"); d.Behavior == permission.Ask && d.BypassImmune {
			t.Errorf("acceptEdits: %q: %s (%s), want no safety check", cmd, d.Behavior, d.Message)
		}
	}
	// Ordinary project files stay ordinary edits.
	for _, f := range []string{"Makefile", "package.json", "src/main.go", "docs/AGENTS.md.txt", ".github/workflows/ci.yml"} {
		if d := s.decide("Write", map[string]any{"file_path": f, "content": "x"}, "acceptEdits"); d.Behavior != permission.Allow {
			t.Errorf("acceptEdits: Write %s: %s/%s (%s), want ALLOW", f, d.Behavior, d.Step, d.Message)
		}
	}
}
