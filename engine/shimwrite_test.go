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

// A version manager's shim chooses the program from files in the project
// (.tool-versions, .python-version, mise's configuration; docs/shell.md,
// "What a program reads besides its argv"), which the policy reads when
// the call is decided. Written by an earlier part of the same command,
// they are not on disk yet: `echo 'nodejs path:./fake' > .tool-versions;
// node --version` was ALLOWed in acceptEdits ("only edits inside the
// working directories"), though the same file already on disk makes
// `node --version` a safety ASK (asdf runs a path: version's programs).
// A PATH program after such a write is not read-only; so are info after
// any write (it looks names up in its directory and decompresses them
// through sh -c: touch 'x$(touch pwned).gz'; info 'x$(touch pwned)' ran
// touch) and go after a write into another version-control system's
// directory.
func TestShimFileWrittenEarlierInTheCommand(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj, home := filepath.Join(root, "p"), filepath.Join(root, "home")
	shims := filepath.Join(home, ".asdf", "shims")
	for _, d := range []string{proj, shims, filepath.Join(home, ".asdf", "installs", "nodejs", "20.0.0")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(shims, "node"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", shims+":/usr/bin:/bin")
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: proj}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd, mode string) permission.Decision {
		return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"permission_mode": mode, "cwd": proj, "shell_per_call": true})
	}
	// The oracle: on disk, the file is a finding.
	tv := filepath.Join(proj, ".tool-versions")
	if err := os.WriteFile(tv, []byte("nodejs path:"+proj+"/fake\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := decide("node --version", "acceptEdits"); d.Behavior == permission.Allow {
		t.Fatalf("node --version with .tool-versions naming a path on disk: ALLOW at %s (%s)", d.Step, d.Message)
	}
	if err := os.Remove(tv); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		`echo "nodejs path:` + proj + `/fake" > .tool-versions; node --version`,
		`echo "nodejs path:` + proj + `/fake" >> .tool-versions && node -v`,
		`printf 'nodejs ref:v20.0.0\n' | tee .tool-versions && node --version`,
		`cp /dev/null .tool-versions; node --version`,
		`echo ../../fake > .node-version; node --version`,
		`echo ../../fake > .python-version; python3 --version`,
		`echo 'node = "path:./fake"' > mise.local.toml; node --version`,
		`mkdir -p .config && echo '[env]' > .config/mise.toml; node --version`,
		`cd sub && echo x > .nvmrc; node --version`,
		`(echo "nodejs path:` + proj + `/fake" > .tool-versions) && node --version`,
		// info looks names up in its directory and decompresses them
		// through sh -c: the real info ran touch pwned.
		`touch 'x$(touch pwned).gz'; info 'x$(touch pwned)'`,
		`echo hi > 'y$(id).gz' && info 'y$(id)'`,
		`mkdir -p .hg && echo '[hooks]' > .hg/hgrc; go list ./...`,
		// go.mod and go.work lines that make go switch toolchains
		// (GOTOOLCHAIN=auto downloads and runs go1.99.1).
		`echo 'toolchain go1.99.1' >> go.mod; go version`,
		`printf 'go 1.99\n' > sub/go.work && cd sub && go env GOPATH`,
		`cp /dev/null go.work; go list ./...`,
	} {
		if d := decide(cmd, "acceptEdits"); d.Behavior == permission.Allow {
			t.Errorf("%q in acceptEdits: ALLOW at %s (%s)", cmd, d.Step, d.Message)
		}
	}
	for _, cmd := range []string{`node --version`, `echo hi > notes.txt; node --version`, `node --version > .tool-versions.log`,
		`echo hi > notes.txt; go list ./...`} {
		if d := decide(cmd, "acceptEdits"); d.Behavior != permission.Allow {
			t.Errorf("control %q in acceptEdits: %s at %s (%s), want ALLOW", cmd, d.Behavior, d.Step, d.Message)
		}
	}
	// The info bite is real: info runs the command in the file's name.
	if _, err := exec.LookPath("info"); err != nil {
		t.Skip("info not installed: the bite is not run")
	}
	run := t.TempDir()
	cmd := exec.Command("bash", "-c", `touch 'x$(touch pwned).gz'; info 'x$(touch pwned)'`)
	cmd.Dir = run
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	_ = cmd.Run() // info reports the node missing
	if _, err := os.Stat(filepath.Join(run, "pwned")); err != nil {
		t.Errorf("info ran nothing from the file's name (%v): the case does not bite", err)
	}
}
