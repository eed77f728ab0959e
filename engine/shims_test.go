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

// A pyenv shim PATH finds for python3 runs the version the project's
// .python-version names (docs/shell.md, "What a program reads besides its
// argv"): with the real pyenv, an installed plain name keeps
// `python3 --version` read-only; a version that is a path (CVE-2022-35861:
// pyenv before 2.3.3 ran it; 2.6 refuses it) or any line permopa cannot
// vouch for is a safety ASK naming the file.
func TestVersionManagerShimIsReadThrough(t *testing.T) {
	pyenvRoot := os.Getenv("PYENV_ROOT")
	if pyenvRoot == "" {
		pyenvRoot = filepath.Join(os.Getenv("HOME"), ".pyenv")
	}
	shims := filepath.Join(pyenvRoot, "shims")
	if _, err := os.Stat(filepath.Join(shims, "python3")); err != nil {
		t.Skip("no pyenv shim for python3")
	}
	versions, _ := os.ReadDir(filepath.Join(pyenvRoot, "versions"))
	installed := ""
	for _, v := range versions {
		if _, err := os.Stat(filepath.Join(pyenvRoot, "versions", v.Name(), "bin", "python3")); err == nil && strings.HasPrefix(v.Name(), "3.") {
			installed = v.Name()
		}
	}
	if installed == "" {
		t.Skip("no pyenv python3 installed")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "p")
	path := shims + ":/usr/bin:/bin"
	t.Setenv("PATH", path)
	t.Setenv("PYENV_VERSION", "")
	// The real shim runs the version the project's file names.
	writeModeFile(t, filepath.Join(p, ".python-version"), installed+"\n", 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", "python3 --version")
	cmd.Dir = p
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Python "+installed) {
		t.Skipf("the pyenv shim did not run %s from .python-version: %v %s", installed, err, out)
	}

	eng, err := newEngine(context.Background(), engine.WithSettings(settings.Settings{Cwd: p,
		Rules: []permission.Rule{mustRule(t, "Bash(python3 --version)")}}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd, mode string) permission.Decision {
		return eng.Decide(context.Background(), map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"cwd": p, "permission_mode": mode})
	}
	for _, v := range []string{installed, "3.0.99", "system", "myvenv"} { // pyenv fails on a missing one; never installs
		writeModeFile(t, filepath.Join(p, ".python-version"), v+"\n", 0o644)
		if d := decide("python3 --version", "plan"); d.Behavior != permission.Allow {
			t.Errorf("plan: .python-version %q: %s/%s (%s), want read-only", v, d.Behavior, d.Step, d.Message)
		}
	}
	for _, v := range []string{"../../../" + strings.TrimPrefix(p, "/") + "/tc", "/opt/py", installed + "/../../x", "-x"} {
		writeModeFile(t, filepath.Join(p, ".python-version"), "# pinned\n"+v+"\n", 0o644)
		for _, c := range []string{"python3 --version", "cd src && python3 --version", "ls && python3 --version"} {
			if d := decide(c, "plan"); d.Behavior == permission.Allow {
				t.Errorf("plan: %q with .python-version %q: ALLOW", c, v)
			}
		}
		if d := decide("python3 --version", "default"); d.Behavior != permission.Ask || !d.BypassImmune || !strings.Contains(d.Message, ".python-version") {
			t.Errorf("default, allow rule, .python-version %q: %s/%s (%s), want a safety ASK naming .python-version", v, d.Behavior, d.Step, d.Message)
		}
	}
	// Programs PATH does not find among the shims cost nothing and stay
	// read-only.
	for _, c := range []string{"ls", "cat README"} {
		if d := decide(c, "plan"); d.Behavior != permission.Allow {
			t.Errorf("plan: %q: %s/%s (%s), want read-only", c, d.Behavior, d.Step, d.Message)
		}
	}
}
