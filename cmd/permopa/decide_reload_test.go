//go:build unix

package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/permopa/permopa/adapter"
)

// A long-running `permopa decide` (an embedder's coprocess) sees a change
// of its working directory's project between two lines as it sees one of
// another call's project: trust revoked, trust recorded, a deny rule
// added. It read its working directory's layers once: the deny rule was
// not applied there, and revoked trust kept its allow rules.
func TestDecideSeesChangesBetweenLines(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	app, other := filepath.Join(root, "app"), filepath.Join(root, "other")
	for _, d := range []string{app, other} {
		putFile(t, filepath.Join(d, ".permopa", "settings.yaml"), "permissions:\n  allow: [\"Bash(make:*)\"]\n")
	}
	must(t, os.MkdirAll(home, 0o755))
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=", "PERMOPA_CONFIG_DIR=", "PERMOPA_MANAGED_DIR="}
	run := func(args ...string) {
		if _, errOut, code := permopaAt(t, app, "", env, args...); code != 0 {
			t.Fatal(errOut)
		}
	}
	// Trusted when decide starts: revoking must take the allow rules away.
	run("trust", app)
	run("trust", other)
	cmd := exec.Command(permopaBin, "decide")
	cmd.Dir, cmd.Env = app, append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	out := bufio.NewScanner(stdout)
	decide := func(cwd string) string {
		fmt.Fprintf(stdin, "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"make all\"},\"cwd\":%q}\n", cwd)
		if !out.Scan() {
			t.Fatalf("decide ended: %v", out.Err())
		}
		var d struct{ Behavior string }
		must(t, json.Unmarshal(out.Bytes(), &d))
		return d.Behavior
	}
	for _, s := range []struct {
		what   string
		change func()
		want   string
	}{
		{"trusted", func() {}, "ALLOW"},
		{"trust revoked", func() { run("trust", "--revoke", app); run("trust", "--revoke", other) }, "ASK"},
		{"trusted again", func() { run("trust", app); run("trust", other) }, "ALLOW"},
		{"a deny rule added", func() {
			for _, d := range []string{app, other} {
				putFile(t, filepath.Join(d, ".permopa", "settings.yaml"), "permissions:\n  deny: [\"Bash(make:*)\"]\n")
			}
		}, "DENY"},
	} {
		s.change()
		// A change counts from the first line read BaseCheckEvery after
		// the last check.
		time.Sleep(adapter.BaseCheckEvery + 20*time.Millisecond)
		for _, cwd := range []string{app, other} {
			if got := decide(cwd); got != s.want {
				t.Errorf("%s: make all in %s: %s, want %s", s.what, cwd, got, s.want)
			}
		}
	}
}
