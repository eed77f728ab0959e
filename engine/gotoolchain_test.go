package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// With GOTOOLCHAIN=auto (the official Go download's default) every go
// command, go version and go env included, reads the go.work or go.mod
// that applies and downloads and runs the newer toolchain its go or
// toolchain line names. Such a project makes no go command read-only; a
// go line older than the local go keeps them read-only. Where go and
// unshare are there, the real go version is first run without a network
// and must try the download (the case proves something).
func TestHostileGoToolchainIsNotReadOnly(t *testing.T) {
	t.Setenv("GOTOOLCHAIN", "auto")
	t.Setenv("GOENV", "off")
	t.Setenv("GOWORK", "")
	t.Setenv("GOFLAGS", "")
	canRun := lookPath("go") && lookPath("unshare")
	cases := []struct {
		name  string
		setup func(t *testing.T, root, p string)
		env   string // GOTOOLCHAIN for the case
		real  bool   // run the real go version first
		cmds  []string
	}{
		{"toolchain line", func(t *testing.T, root, p string) {
			writeModeFile(t, filepath.Join(p, "go.mod"), "module example.com/p\n\ngo 1.21\n\ntoolchain go1.99.1\n", 0o644)
		}, "", true, []string{"go version", "go env GOPATH", "go list ./...", "cd src && go list ."}},
		{"go line newer", func(t *testing.T, root, p string) {
			writeModeFile(t, filepath.Join(p, "go.mod"), "module example.com/p\n\ngo 1.99\n", 0o644)
		}, "", true, []string{"go version", "go env GOPATH"}},
		{"go.work beside", func(t *testing.T, root, p string) {
			writeModeFile(t, filepath.Join(p, "go.work"), "go 1.99\n\nuse .\n", 0o644)
		}, "", true, []string{"go version", "go list ./..."}},
		{"go.mod in a parent directory", func(t *testing.T, root, p string) {
			os.Remove(filepath.Join(p, "go.mod"))
			writeModeFile(t, filepath.Join(root, "go.mod"), "module example.com/r\n\ngo 1.99\n", 0o644)
		}, "", true, []string{"go version", "cd src && go env GOPATH"}},
		{"go.mod a link", func(t *testing.T, root, p string) {
			if err := os.Rename(filepath.Join(p, "go.mod"), filepath.Join(p, "real.mod")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("real.mod", filepath.Join(p, "go.mod")); err != nil {
				t.Fatal(err)
			}
		}, "", false, []string{"go version"}},
		{"go.mod a FIFO", func(t *testing.T, root, p string) {
			os.Remove(filepath.Join(p, "go.mod"))
			if err := syscall.Mkfifo(filepath.Join(p, "go.mod"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "", false, []string{"go version"}},
		{"GOTOOLCHAIN path", func(t *testing.T, root, p string) {
			writeModeFile(t, filepath.Join(p, "go.mod"), "module example.com/p\n\ngo 1.99\n", 0o644)
		}, "path", false, []string{"go version"}},
		{"GOTOOLCHAIN go1.99.1+auto", func(t *testing.T, root, p string) {}, "go1.99.1+auto", false, []string{"go version", "go list ./..."}},
		{"GOTOOLCHAIN go1.99.1", func(t *testing.T, root, p string) {}, "go1.99.1", false, []string{"go version"}},
	}
	template, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	plainProject(t, template, filepath.Join(template, "home"), filepath.Join(template, "p"))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv("GOTOOLCHAIN", c.env)
			}
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			home, p := filepath.Join(root, "home"), filepath.Join(root, "p")
			for _, d := range []string{"home", "p"} {
				if err := os.CopyFS(filepath.Join(root, d), os.DirFS(filepath.Join(template, d))); err != nil {
					t.Fatal(err)
				}
			}
			ctx := context.Background()
			eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: p,
				Rules: []permission.Rule{mustRule(t, "Bash(go list:*)"), mustRule(t, "Bash(go version)"), mustRule(t, "Bash(go env:*)")}}))
			if err != nil {
				t.Fatal(err)
			}
			decide := func(cmd, mode string) permission.Decision {
				return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
					"cwd": p, "permission_mode": mode})
			}
			if c.env == "" { // the plain project (go 1.21) under GOTOOLCHAIN=auto: read-only
				for _, cmd := range c.cmds {
					if d := decide(cmd, "plan"); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
						t.Fatalf("plain project: plan: %q: %s/%s (%s), want read-only", cmd, d.Behavior, d.Step, d.Message)
					}
				}
			}
			c.setup(t, root, p)
			// The quick suite runs the real go once (the toolchain line: go
			// tries to switch); -tags slow (.ci/run) for every case marked
			// real.
			if c.real && canRun && (slowTests || c.name == "toolchain line") {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				cmd := exec.CommandContext(ctx, "unshare", "-n", "go", "version")
				cmd.Dir = p
				cmd.Env = append(os.Environ(), "GOMODCACHE="+filepath.Join(root, "modcache"))
				cmd.WaitDelay = time.Second
				out, _ := cmd.CombinedOutput()
				cancel()
				if !strings.Contains(string(out), "go: downloading go1.99") {
					t.Fatalf("real go version did not try to switch toolchains: the case proves nothing\n%s", out)
				}
			}
			for _, cmd := range c.cmds {
				for _, mode := range []string{"plan", "acceptEdits"} {
					if d := decide(cmd, mode); d.Behavior == permission.Allow {
						t.Errorf("%s: %q: ALLOW (%s/%s)", mode, cmd, d.Step, d.Message)
					}
				}
				if d := decide(cmd, "default"); d.Behavior != permission.Ask || !d.BypassImmune {
					t.Errorf("default, allow rules: %q: %s/%s (%s), want a safety ASK", cmd, d.Behavior, d.Step, d.Message)
				}
			}
		})
	}
	// GOFLAGS on the command line is an assignment go reads: not read-only.
	t.Run("GOFLAGS=-modfile", func(t *testing.T) {
		ctx := context.Background()
		p := filepath.Join(template, "p")
		eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: filepath.Join(template, "home"), Cwd: p}))
		if err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"GOFLAGS=-modfile=alt.mod go list", "GOTOOLCHAIN=auto go version", "env GOTOOLCHAIN=go1.99.1 go version"} {
			d := eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
				"cwd": p, "permission_mode": "plan"})
			if d.Behavior == permission.Allow {
				t.Errorf("plan: %q: ALLOW (%s/%s)", cmd, d.Step, d.Message)
			}
		}
	})
}
