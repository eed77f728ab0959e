package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// Links as each program treats them (issues 23 and 26; docs/reads.md,
// "Links"): every recursive reader runs under strace in a throwaway home
// and project holding one hostile link, with and without the option that
// makes it follow links. A program that skips links must be judged
// read-only (a project holding a link to ~/.ssh must not make find, rg,
// tree or grep -r prompt) and must open nothing through the link; one that
// follows links must be a credential read, and under Read(~/.ssh/**) a
// DENY in every mode, BYPASS included. The trace proves each program's
// entry in the vocabulary: it opens ~/.ssh (or the key) exactly when the
// entry says it follows.
func TestLinksAgainstStrace(t *testing.T) {
	t.Parallel()
	strace, err := exec.LookPath("strace")
	if err != nil {
		proofUnavailable(t, "strace is not installed (apt-get install strace); .ci/run installs it")
	}
	if testing.Short() {
		t.Skip("runs programs")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := root + "/home"
	for _, d := range []string{home + "/.ssh", root + "/elsewhere/inner"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(home+"/.ssh/id_rsa", []byte("KEY secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home+"/.ssh", root+"/elsewhere/inner/deep"); err != nil {
		t.Fatal(err)
	}
	// Hostile trees: one link each, in a project of its own. follow says
	// what a program that follows links reaches: the key's contents, or
	// (names) the listing of ~/.ssh.
	trees := []struct {
		name            string
		links           map[string]string
		contents, names bool
	}{
		{"link to ~/.ssh", map[string]string{"sshlink": home + "/.ssh"}, true, true},
		{"link to the key", map[string]string{"keylink": home + "/.ssh/id_rsa"}, true, false},
		{"link to a directory holding a link", map[string]string{"other": root + "/elsewhere"}, true, true},
		{"link through /proc/self/cwd", map[string]string{"up": "/proc/self/cwd/.."}, true, true},
		{"link loop", map[string]string{"loop1": "loop2", "loop2": "loop1", "self": "."}, false, false},
	}
	// Programs and their link options; names: prints names only.
	cmds := []struct {
		cmd            string
		follows, names bool
	}{
		{"find . -name '*.go'", false, true}, {"find -H . -name '*.go'", false, true}, {"find -L -P .", false, true},
		{"find -L . -name '*'", true, true}, {"find . -follow", true, true},
		{"grep -rn KEY .", false, false}, {"grep -rn KEY", false, false}, {"grep -d recurse -n KEY .", false, false},
		{"grep -Rn KEY .", true, false}, {"grep -rR KEY .", true, false},
		{"rg -n KEY", false, false}, {"rg --hidden -n KEY", false, false}, {"rg -L --no-follow KEY", false, false},
		{"rg --files", false, true}, {"rg -L KEY", true, false}, {"rg --follow --files", true, true},
		{"tree", false, true}, {"tree -a", false, true}, {"tree -l", true, true},
		{"ls -R", false, true}, {"ls -aR", false, true}, {"ls -RL", true, true},
		{"du -a", false, true}, {"du -aL -P", false, true}, {"du -aL", true, true},
		{"git grep --no-index KEY", false, false},
		{"ag KEY", false, false}, {"ag --hidden -u KEY", false, false}, {"ag -f KEY", true, false},
		{"ag -g go", false, true}, {"ag --follow -g go", true, true},
		{"lsattr -Ra", false, true}, {"getfacl -R .", false, true}, {"getfacl -RL .", true, true},
		{"find . -exec cat {} +", true, false}, {"find . -print0 | xargs -0 cat", true, false},
		{"find . | xargs cat", true, false}, {"find . -maxdepth 1 -exec cat {} +", true, false},
		// A path pasted into a sh -c script (issue 26, pastescript.go).
		{"find . -exec sh -c 'cat {}' \\;", true, false}, {"find . -print0 | xargs -0 -I{} sh -c 'cat {}'", true, false},
	}
	opened := regexp.MustCompile(`= \d+<([^>]*)>`)
	secret := func(p string) bool { return p == home+"/.ssh" || strings.HasPrefix(p, home+"/.ssh/") }
	for i, tr := range trees {
		proj := home + "/p" + string(rune('a'+i))
		if err := os.MkdirAll(proj+"/src", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(proj+"/src/a.go", []byte("package a // KEY\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for name, target := range tr.links {
			if err := os.Symlink(target, proj+"/"+name); err != nil {
				t.Fatal(err)
			}
		}
		plain := newTestEngine(t, settings.Settings{Home: home, Cwd: proj})
		ruled := ruleEngine(t, home, proj, "deny:Read(~/.ssh/**)")
		for j, c := range cmds {
			// The quick suite: each command in one tree of the five (the
			// j-th in tree j mod 5), so every command and every tree runs,
			// each tree with commands that follow links and ones that do
			// not; -tags slow (.ci/run) runs every command in every tree.
			if !slowTests && j%len(trees) != i {
				continue
			}
			prog := strings.Fields(c.cmd)[0]
			if _, err := exec.LookPath(prog); err != nil {
				proofUnavailable(t, prog+" is not installed; .ci/run installs it")
			}
			reaches := c.follows && (c.names && tr.names || !c.names && tr.contents)
			if strings.Contains(c.cmd, "cat") {
				// cat opens each name find hands it, through the link: the
				// key, or ~/.ssh itself (which it cannot read); find does
				// not descend into a link.
				reaches = tr.name == "link to the key" || tr.name == "link to ~/.ssh"
			}
			d := decideBash(plain, c.cmd, proj, "default")
			// The trace proves the vocabulary's entry. The quick suite
			// proves the mechanism with two traced commands: find that
			// skips the link to ~/.ssh and opens nothing through it, and
			// find -L that reaches it through /proc/self/cwd; -tags slow
			// (.ci/run) traces every command in every tree. Every sampled
			// command is decided either way.
			if !slowTests && j != 0 && j != 3 {
				checkLinkDecision(t, ruled, tr.name, c.cmd, proj, d, c.follows, reaches, nil)
				continue
			}
			trace := t.TempDir() + "/trace"
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			run := exec.CommandContext(ctx, strace, "--seccomp-bpf", "-f", "-qq", "-y", "-e", "trace=open,openat,openat2", "-o", trace, "bash", "-c", c.cmd)
			run.Dir = proj
			run.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
			_ = run.Run()
			cancel()
			data, err := os.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			var read []string
			for _, m := range opened.FindAllStringSubmatch(string(data), -1) {
				if secret(m[1]) {
					read = append(read, m[1])
				}
			}
			if (len(read) > 0) != reaches {
				t.Errorf("%s, %q: opened %v; the vocabulary says it reaches ~/.ssh: %v", tr.name, c.cmd, read, reaches)
			}
			checkLinkDecision(t, ruled, tr.name, c.cmd, proj, d, c.follows, reaches, read)
		}
		// The file tools read as a program that follows links does.
		for ti, tool := range []struct {
			name string
			in   map[string]any
			ok   bool
		}{{"Grep", map[string]any{"pattern": "KEY"}, tr.contents}, {"Glob", map[string]any{"pattern": "**/*.go"}, tr.names}} {
			for m, mode := range allModes {
				// Each tool in each tree in two modes quick (every mode
				// for some tree); every mode with -tags slow (.ci/run).
				if !inQuickModes(2*i+ti, m) {
					continue
				}
				r := decideTool(ruled, tool.name, tool.in, proj, mode)
				if (ruleOf(r) == "Read(~/.ssh/**)") != tool.ok {
					t.Errorf("%s, %s tool, %s: %s/%s (%s); want denied by Read(~/.ssh/**): %v", tr.name, tool.name, mode, r.Behavior, r.Step, r.Message, tool.ok)
				}
			}
		}
	}
}

// checkLinkDecision holds a command's decisions in a tree with a link to what
// the trace (read: the secret paths it opened, nil untraced) or the
// vocabulary's entry says it reaches.
func checkLinkDecision(t *testing.T, ruled *engine.Engine, tree, cmd, proj string, d permission.Decision, follows, reaches bool, read []string) {
	t.Helper()
	ro := d.Step == permission.StepReadOnly
	switch {
	case ro && len(read) > 0:
		t.Errorf("%s, %q: judged read-only but opens %v", tree, cmd, read)
	case !follows && !ro && tree != "link loop":
		t.Errorf("%s, %q: does not follow links, yet %s/%s (%s)", tree, cmd, d.Behavior, d.Step, d.Message)
	case reaches && !d.BypassImmune:
		t.Errorf("%s, %q: reaches ~/.ssh through a link, yet %s/%s (%s), not the credential ASK", tree, cmd, d.Behavior, d.Step, d.Message)
	}
	if !reaches {
		return
	}
	for _, mode := range allModes {
		if r := decideBash(ruled, cmd, proj, mode); ruleOf(r) != "Read(~/.ssh/**)" {
			t.Errorf("%s, %q, %s: %s/%s (%s), want denied by Read(~/.ssh/**)", tree, cmd, mode, r.Behavior, r.Step, r.Message)
		}
	}
}
