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

// Read-only programs beyond git and the package managers that load what
// a project ships (the audit in builtins/paths/testdata/project-reads.tsv):
// rustup's cargo and rustc run the toolchain a rust-toolchain file names,
// go list runs git status (the repository's core.fsmonitor) to stamp a
// main package, and info searches the working directory for its dir menu
// and Info files, opening compressed ones through sh -c. Each case is
// first run with the real program where it is installed (the planted file
// does run the fixture), then decided: no read-only verdict, and a safety
// ASK under allow rules for the very command.
func TestHostileToolchainConfigIsNotReadOnly(t *testing.T) {
	t.Parallel()
	type hostile struct {
		name  string
		setup func(t *testing.T, p, evil, ran string)
		// real runs the program for real ("" when it is not installed
		// or needs the network); the fixture must then have run.
		real []string
		cmds []string
	}
	cargoOK := rustupProxy("cargo")
	cases := []hostile{
		{"rust-toolchain.toml path", func(t *testing.T, p, evil, ran string) {
			if err := os.MkdirAll(filepath.Join(evil, "bin"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, prog := range []string{"cargo", "rustc"} {
				hostileScript(t, filepath.Join(evil, "bin", prog), ran)
			}
			writeModeFile(t, filepath.Join(p, "rust-toolchain.toml"), "[toolchain]\npath = \""+evil+"\"\n", 0o644)
		}, when(cargoOK, "cargo", "--version"), []string{"cargo --version", "cargo -V", "cargo version", "rustc --version",
			"rustc -V", "cd src && cargo --version"}},
		{"rust-toolchain above the project", func(t *testing.T, p, evil, ran string) {
			writeModeFile(t, filepath.Join(filepath.Dir(p), "rust-toolchain"), "nightly-2020-01-01\n", 0o644)
		}, nil, []string{"cargo --version", "rustc --version"}},
		{"go list runs git status: core.fsmonitor", func(t *testing.T, p, evil, ran string) {
			hostileScript(t, evil, ran)
			appendFile(t, filepath.Join(p, ".git/config"), "[core]\n\tfsmonitor = "+evil+"\n")
			// A file with a new time: git status refreshes the index.
			later := time.Now().Add(3 * time.Second)
			if err := os.Chtimes(filepath.Join(p, "README.md"), later, later); err != nil {
				t.Fatal(err)
			}
		}, when(lookPath("go") && lookPath("git"), "go", "list", "./..."), []string{"go list ./...", "go list -json .",
			"go list -f '{{.Dir}}' ./...", "go version", "go env GOPATH", "cd src && go list ."}},
		{"go list runs hg", func(t *testing.T, p, evil, ran string) {
			writeModeFile(t, filepath.Join(p, ".hg/hgrc"), "[hooks]\npre-status = "+evil+"\n", 0o644)
		}, nil, []string{"go list ./...", "cd src && go list"}},
		{"info: dir menu and a compressed name sh runs", func(t *testing.T, p, evil, ran string) {
			// sh runs in the project: the fixture is touch ran.log there,
			// linked to the log the case checks.
			if err := os.Symlink(ran, filepath.Join(p, "ran.log")); err != nil {
				t.Fatal(err)
			}
			writeModeFile(t, filepath.Join(p, "dir"), "\x1f\nFile: dir,\tNode: Top,\tThis is the top of the INFO tree\n\n"+
				"* Menu:\n\nProject\n* Zedtool: (q$(touch ran.log)).   list\n", 0o644)
			writeModeFile(t, filepath.Join(p, "q$(touch ran.log).gz"), "\x1f\x8b", 0o644)
		}, when(lookPath("info"), "info", "zedtool"), []string{"info zedtool", "info ls", "info -n Top zedtool"}},
		{"info: a compressed name alone", func(t *testing.T, p, evil, ran string) {
			writeModeFile(t, filepath.Join(p, "z;touch x;.gz"), "\x1f\x8b", 0o644)
		}, nil, []string{"info 'z;touch x;'"}},
		{"info: a link to any file", func(t *testing.T, p, evil, ran string) {
			if err := os.Symlink(filepath.Join(filepath.Dir(p), "home/.ssh/id_rsa"), filepath.Join(p, "zzz")); err != nil {
				t.Fatal(err)
			}
		}, nil, []string{"info zzz"}},
		{"info: an Info file with an Indirect table", func(t *testing.T, p, evil, ran string) {
			writeModeFile(t, filepath.Join(p, "tool.info"), "This is tool.info\n\x1f\nIndirect:\n/etc/shadow: 100\n\x1f\n", 0o644)
		}, nil, []string{"info tool"}},
	}
	// One plain project made with the real git, copied for each case.
	template, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	plainProject(t, template, filepath.Join(template, "home"), filepath.Join(template, "p"))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
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
				Rules: []permission.Rule{mustRule(t, "Bash(cargo:*)"), mustRule(t, "Bash(rustc:*)"), mustRule(t, "Bash(go list:*)"),
					mustRule(t, "Bash(go version)"), mustRule(t, "Bash(go env:*)"), mustRule(t, "Bash(info:*)")}}))
			if err != nil {
				t.Fatal(err)
			}
			decide := func(cmd, mode string) permission.Decision {
				return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
					"cwd": p, "permission_mode": mode})
			}
			// Before: the plain project is read-only.
			for _, cmd := range c.cmds {
				if d := decide(cmd, "plan"); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
					t.Fatalf("plain project: plan: %q: %s/%s (%s), want read-only", cmd, d.Behavior, d.Step, d.Message)
				}
			}
			ran, evil := filepath.Join(root, "ran.log"), filepath.Join(root, "evil")
			c.setup(t, p, evil, ran)
			if len(c.real) > 0 {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				cmd := exec.CommandContext(ctx, c.real[0], c.real[1:]...)
				cmd.Dir = p
				// Go's defaults (a user's go env file may say
				// -buildvcs=false) and info's (its INFOPATH ends with .).
				cmd.Env = []string{"GOENV=off", "GOFLAGS=", "GOTOOLCHAIN=local", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}
				for _, kv := range os.Environ() {
					if k, _, _ := strings.Cut(kv, "="); k != "INFOPATH" && k != "GOFLAGS" && k != "GOENV" {
						cmd.Env = append(cmd.Env, kv)
					}
				}
				cmd.WaitDelay = time.Second
				out, _ := cmd.CombinedOutput()
				cancel()
				if _, err := os.Stat(ran); err != nil {
					t.Fatalf("real %s did not run the fixture: the case proves nothing\n%s", strings.Join(c.real, " "), out)
				}
			}
			for _, cmd := range c.cmds {
				for _, mode := range []string{"plan", "acceptEdits"} {
					if d := decide(cmd, mode); d.Behavior == permission.Allow {
						t.Errorf("%s: %q: ALLOW (%s/%s)", mode, cmd, d.Step, d.Message)
					}
				}
				if d := decide(cmd, "default"); d.Behavior != permission.Ask || !d.BypassImmune || !strings.Contains(d.Message, p) {
					t.Errorf("default, allow rules: %q: %s/%s (%s), want a safety ASK naming the file", cmd, d.Behavior, d.Step, d.Message)
				}
			}
		})
	}
}

// plainProject is a committed Go module with a main package, a README and
// a text file: what cargo --version, go list and info ls meet every day.
func plainProject(t *testing.T, root, home, p string) {
	t.Helper()
	writeModeFile(t, filepath.Join(home, ".keep"), "", 0o644)
	writeModeFile(t, filepath.Join(p, "go.mod"), "module example.com/p\n\ngo 1.21\n", 0o644)
	writeModeFile(t, filepath.Join(p, "main.go"), "package main\n\nfunc main() {}\n", 0o644)
	writeModeFile(t, filepath.Join(p, "src/x.go"), "package src\n", 0o644)
	writeModeFile(t, filepath.Join(p, "README.md"), "# p\n", 0o644)
	if lookPath("git") {
		runGit(t, root, p, "init", "-q")
		runGit(t, root, p, "add", "-A")
		runGit(t, root, p, "-c", "user.name=x", "-c", "user.email=x@example.com", "commit", "-qm", "a")
	} else {
		writeModeFile(t, filepath.Join(p, ".git/HEAD"), "ref: refs/heads/main\n", 0o644)
	}
}

func appendFile(t *testing.T, p, body string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(body); err != nil {
		t.Fatal(err)
	}
}

func lookPath(prog string) bool {
	_, err := exec.LookPath(prog)
	return err == nil
}

// rustupProxy says whether prog is rustup's proxy (a toolchain file
// decides what it runs), as cargo and rustc installed by rustup are.
func rustupProxy(prog string) bool {
	p, err := exec.LookPath(prog)
	if err != nil {
		return false
	}
	r, err := filepath.EvalSymlinks(p)
	return err == nil && strings.Contains(filepath.Base(r), "rustup")
}

func when(ok bool, argv ...string) []string {
	if !ok {
		return nil
	}
	return argv
}

// rg and ag read what a "!" line of an ignore file includes again, past
// .gitignore and the hidden filter: in a work tree whose .gitignore lists
// .env, a planted .ignore holding !.env made rg -l password print .env
// (no --hidden) while the decision was read-only.
func TestIgnoreWhitelistIsACredentialRead(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, p := filepath.Join(root, "home"), filepath.Join(root, "p")
	plainProject(t, root, home, p)
	writeModeFile(t, filepath.Join(p, ".gitignore"), ".env\n", 0o644)
	writeModeFile(t, filepath.Join(p, ".env"), "password=hunter2\n", 0o600)
	writeModeFile(t, filepath.Join(p, "src/.env"), "password=hunter3\n", 0o600)
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: p,
		Rules: []permission.Rule{mustRule(t, "Bash(rg:*)"), mustRule(t, "Bash(ag:*)")}}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd, mode string) permission.Decision {
		return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"cwd": p, "permission_mode": mode})
	}
	cmds := []string{"rg password", "rg -l password .", "rg password src", "ag password", "ag -l password src"}
	for _, cmd := range cmds {
		if d := decide(cmd, "plan"); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
			t.Fatalf("plain project: plan: %q: %s/%s (%s), want read-only", cmd, d.Behavior, d.Step, d.Message)
		}
	}
	for _, c := range []struct{ file, body string }{{".ignore", "!.env\n"}, {".rgignore", "!*.env\n"}, {"src/.ignore", "!.env\n"}} {
		writeModeFile(t, filepath.Join(p, c.file), c.body, 0o644)
		if lookPath("rg") && c.file == ".ignore" {
			out, _ := exec.Command("rg", "-l", "password", p).CombinedOutput()
			if !strings.Contains(string(out), ".env") {
				t.Fatalf("real rg did not read .env through %s: the case proves nothing\n%s", c.file, out)
			}
		}
		for _, cmd := range cmds {
			if c.file == "src/.ignore" && !strings.Contains(cmd, "src") && !strings.HasSuffix(cmd, ".") && !strings.HasSuffix(cmd, "password") {
				continue
			}
			if d := decide(cmd, "plan"); d.Behavior == permission.Allow {
				t.Errorf("%s: plan: %q: ALLOW (%s/%s)", c.file, cmd, d.Step, d.Message)
			}
			if d := decide(cmd, "default"); d.Behavior != permission.Ask || !d.BypassImmune {
				t.Errorf("%s: default, allow rules: %q: %s/%s (%s), want the credential ASK", c.file, cmd, d.Behavior, d.Step, d.Message)
			}
		}
		os.Remove(filepath.Join(p, c.file))
	}
}

// fd lists the names of a tree, as ls -R and find do: a listing of
// ~/.ssh is a credential read (fd -H . ~ was read-only, ls -aR ~ not).
// Decided only: fd is modelled from its documentation.
func TestFdListingIsATreeRead(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, p := filepath.Join(root, "home"), filepath.Join(root, "p")
	plainProject(t, root, home, p)
	writeModeFile(t, filepath.Join(home, ".ssh/id_rsa"), "KEY\n", 0o600)
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: p}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd string) permission.Decision {
		return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"cwd": p, "permission_mode": "plan"})
	}
	for _, cmd := range []string{"fd x", "fd -e go", "fd . src", "fd x ~"} {
		if d := decide(cmd); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
			t.Errorf("%q: %s/%s (%s), want read-only", cmd, d.Behavior, d.Step, d.Message)
		}
	}
	for _, cmd := range []string{"fd -H . ~", "fd -u id_ " + home, "fd --search-path ~/.ssh x", "fd --base-directory ~ -H .", "fdfind -HL . ~"} {
		if d := decide(cmd); d.Behavior == permission.Allow {
			t.Errorf("%q: ALLOW (%s/%s)", cmd, d.Step, d.Message)
		}
	}
}

// zcat -rf and zstdcat -r print every file below a directory (a file that
// is not compressed as it is): zcat -rf ~ printed ~/.ssh/id_rsa while the
// decision was read-only, as gzip -rc ~ never was. kubectl -f DIR reads
// the manifests below it. diff DIR DIR compares the entries one level
// below: diff ~ . printed ~/.netrc against a planted ./.netrc.
func TestTreeReadersThatPrintCredentials(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, p := filepath.Join(root, "home"), filepath.Join(root, "p")
	plainProject(t, root, home, p)
	writeModeFile(t, filepath.Join(home, ".ssh/id_rsa"), "PLANTEDKEY\n", 0o600)
	writeModeFile(t, filepath.Join(home, ".docker/config.json"), `{"auths": {"r.example": {"auth": "PLANTEDKEY"}}}`, 0o600)
	writeModeFile(t, filepath.Join(home, ".netrc"), "machine x password PLANTEDKEY\n", 0o600)
	writeModeFile(t, filepath.Join(p, ".netrc"), "planted by the project\n", 0o644)
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: p}))
	if err != nil {
		t.Fatal(err)
	}
	// kubectl -f DIR prints a manifest it cannot decode: kubectl get -R -f
	// ~ printed ~/.docker/config.json's auth (no cluster needed).
	ran := quickFirst{}
	for _, cmd := range []string{"zcat -rf ~", "zcat --recursive -f " + home, "zstdcat -r ~", "gunzip -rcf ~", "zcat -r -f ~/.ssh",
		"kubectl get -R -f ~", "kubectl describe --recursive --filename " + home, "kubectl get -f ~/.docker",
		"diff ~ .", "diff .netrc ~", "diff -u " + home + " ."} {
		prog := strings.Fields(cmd)[0]
		// The real program prints the key for the first command of each
		// program in the quick suite, for every one with -tags slow.
		if lookPath(prog) && ran.take(prog) {
			c := exec.Command("bash", "-c", cmd)
			c.Dir = p
			c.Env = append(os.Environ(), "HOME="+home, "KUBECONFIG=/dev/null")
			out, _ := c.CombinedOutput()
			if !strings.Contains(string(out), "PLANTEDKEY") {
				t.Errorf("real %q did not print the key: the case proves nothing\n%s", cmd, out)
			}
		}
		d := eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"cwd": p, "permission_mode": "plan"})
		if d.Behavior == permission.Allow {
			t.Errorf("%q: ALLOW (%s/%s)", cmd, d.Step, d.Message)
		}
	}
}
