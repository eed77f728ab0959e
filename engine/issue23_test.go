package engine_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// Issue 23: secrets the credential list missed. Each path is a credential
// read through the decision, for the Read tool and for cat alike, in every
// mode (docs/reads.md, "Credential paths").
func TestSecretsTheListMissed(t *testing.T) {
	t.Parallel()
	home, proj := "/home/u", "/home/u/proj"
	eng := newTestEngine(t, settings.Settings{Home: home, Cwd: proj})
	secrets := []string{
		// Shell and client histories (SECURITY.md promises shell histories).
		"~/.local/share/fish/fish_history", "~/.config/fish/fish_history", "~/.sh_history", "~/.ksh_history",
		"~/.ash_history", "~/.zhistory", "~/.histfile", "~/.sqlite_history", "~/.rediscli_history", "~/.dbshell",
		"~/.irb_history", "~/.pry_history", "~/.lesshst", "~/.viminfo", "~/.local/state/nvim/shada/main.shada",
		"~/.local/share/nvim/shada/main.shada",
		// Container secrets.
		"/var/run/secrets/kubernetes.io/serviceaccount/token", "/run/secrets/kubernetes.io/serviceaccount/token",
		"/run/secrets/db_password",
		// A project's own secrets.
		"config/master.key", "config/credentials/production.key", "terraform.tfstate", "terraform.tfstate.backup",
		"infra/prod.tfstate",
		// Token stores of common tools.
		"~/.my.cnf", "~/.gem/credentials", "~/.config/glab-cli/config.yml", "~/.mc/config.json", "~/.fly/config.yml",
		"~/.config/ngrok/ngrok.yml", "~/.ngrok2/ngrok.yml", "~/.config/hcloud/cli.toml", "~/.circleci/cli.yml",
		"~/.config/composer/auth.json", "~/.composer/auth.json", "~/.config/sops/age/keys.txt",
		"~/.config/configstore/firebase-tools.json", "~/.tsh/keys/proxy/u", "~/.minikube/profiles/minikube/client.key",
		// Stores that were on the list already (the brief's checklist).
		"~/.config/gh/hosts.yml", "~/.docker/config.json", "~/.netrc", "~/.pgpass", "~/.git-credentials", "~/.npmrc",
		"~/.pypirc", "~/.kube/config", "~/.gnupg/private-keys-v1.d/x.key", "~/.aws/credentials",
		"~/.config/gcloud/credentials.db", "~/.azure/accessTokens.json",
	}
	var cats []string
	for _, p := range secrets {
		cats = append(cats, "cat "+p)
	}
	checkTable(t, eng, proj, map[outcome][]string{credential: cats})
	for _, p := range secrets {
		for _, mode := range allModes {
			d := eng.Decide(context.Background(), map[string]any{
				"tool_name": "Read", "tool_input": map[string]any{"file_path": p}, "cwd": proj, "permission_mode": mode,
			})
			if want := safetyAsk[mode]; d.Behavior != want[0] || d.Step != want[1] {
				t.Errorf("%s: Read %s: %s/%s (%s), want %v", mode, p, d.Behavior, d.Step, d.Message, want)
			}
		}
	}
	// Near misses stay ordinary reads.
	checkTable(t, eng, proj, map[outcome][]string{readOnly: {
		"cat config/master.key.example", "cat src/tfstate.go", "cat ~/.config/fish/config.fish", "cat ~/.vimrc",
		"cat variables.tf", "cat config/credentials.yml.enc",
	}})
}

// Issue 23: files that make tools run code later, and the agents'
// instruction files, are a safety ASK to write in ACCEPT_EDITS (and
// DEFAULT), for the file tools and Bash writes alike, relaxable by a
// project's dangerous_paths.code_running (docs/protected-paths.md).
func TestCodeRunningFilesIssue23(t *testing.T) {
	t.Parallel()
	s := newProtectedSetup(t, "permissions:\n  allow: [\"Bash(echo:*)\", \"Bash(cp:*)\"]\n")
	relaxed := newProtectedSetup(t, "dangerous_paths:\n  code_running:\n    remove: [\"conftest.py\", \"CLAUDE.md\"]\n")
	files := []struct {
		path, reason string
		relaxable    bool
	}{
		{".yarnrc", "makes tools run code", false}, {"sub/.yarnrc.yml", "makes tools run code", false},
		{".npmrc", "", false}, {".pnpmfile.cjs", "makes tools run code", false},
		{"pnpm-workspace.yaml", "makes tools run code", false}, {"bunfig.toml", "makes tools run code", false},
		{".cargo/config.toml", "makes tools run code", false}, {".cargo/config", "makes tools run code", false},
		{"rust-toolchain.toml", "makes tools run code", false},
		{"conftest.py", "makes tools run code", true}, {"tests/unit/conftest.py", "makes tools run code", true},
		{".pylintrc", "makes tools run code", false}, {"pylintrc", "makes tools run code", false},
		{".pdbrc", "makes tools run code", false}, {".gitattributes", "makes tools run code", false},
		{"sub/.gitattributes", "makes tools run code", false}, {".lesskey", "makes tools run code", false},
		{".manpath", "makes tools run code", false}, {"man_db.conf", "makes tools run code", false},
		{".envrc", "", false},
		{"AGENTS.md", "instructions the agent follows", false}, {"CLAUDE.md", "instructions the agent follows", true},
		{"CLAUDE.local.md", "instructions the agent follows", false}, {"GEMINI.md", "instructions the agent follows", false},
		{"pkg/AGENTS.md", "instructions the agent follows", false}, {".cursorrules", "instructions the agent follows", false},
		{".github/copilot-instructions.md", "instructions the agent follows", false},
	}
	for k, f := range files {
		calls := []struct {
			tool  string
			input map[string]any
		}{
			{"Write", map[string]any{"file_path": f.path, "content": "x"}},
			{"Edit", map[string]any{"file_path": f.path, "old_string": "a", "new_string": "b"}},
			{"Bash", map[string]any{"command": "echo x > " + f.path}},
			{"Bash", map[string]any{"command": "echo x >> ./" + f.path}},
			{"Bash", map[string]any{"command": "cp /tmp/x " + f.path}},
		}
		for j, c := range calls {
			// Every file quick, each by two of the five calls (every
			// call for some files); every call with -tags slow (.ci/run).
			if !slowTests && (k+j)%len(calls) >= 2 {
				continue
			}
			for _, mode := range []string{"default", "acceptEdits"} {
				d := s.decide(c.tool, c.input, mode)
				if d.Behavior != permission.Ask || d.Step != permission.StepToolCheck || !d.BypassImmune ||
					!strings.Contains(d.Message, f.reason) {
					t.Errorf("%s: %s %v: %s/%s (%s), want a safety ASK naming %q", mode, c.tool, c.input, d.Behavior, d.Step, d.Message, f.reason)
				}
			}
			if d := s.decide(c.tool, c.input, "dontAsk"); d.Behavior != permission.Deny {
				t.Errorf("dontAsk: %s %v: %s (%s), want DENY", c.tool, c.input, d.Behavior, d.Message)
			}
			d := relaxed.decide(c.tool, c.input, "acceptEdits")
			if f.relaxable != (d.Behavior == permission.Allow) {
				t.Errorf("relaxed project, acceptEdits: %s %v: %s/%s (%s), relaxable %v", c.tool, c.input, d.Behavior, d.Step, d.Message, f.relaxable)
			}
		}
	}
	// Reading them stays a read; files that only look alike stay edits.
	for _, f := range []string{"src/conftest_helpers.py", "docs/agents.md.bak", "yarnrc.txt", "Makefile", "src/lib.rs"} {
		if d := s.decide("Write", map[string]any{"file_path": f, "content": "x"}, "acceptEdits"); d.Behavior != permission.Allow {
			t.Errorf("acceptEdits: Write %s: %s/%s (%s), want ALLOW", f, d.Behavior, d.Step, d.Message)
		}
	}
	if d := s.decide("Read", map[string]any{"file_path": "CLAUDE.md"}, "default"); d.Behavior != permission.Allow {
		t.Errorf("Read CLAUDE.md: %s (%s), want ALLOW", d.Behavior, d.Message)
	}
}

// resolutionFixture is a home with a key and a project two levels below
// it, with links: sshlink -> ~/.ssh, deep -> ~/a/b (so deep/../.. is ~
// on disk and ~/w on paper).
func resolutionFixture(t *testing.T) (home, proj string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, proj = root+"/home", root+"/home/w/p"
	for _, d := range []string{home + "/.ssh", home + "/a/b", proj + "/src"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for f, s := range map[string]string{home + "/.ssh/id_rsa": "KEY", proj + "/src/a.go": "package a"} {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for l, target := range map[string]string{proj + "/sshlink": home + "/.ssh", proj + "/deep": home + "/a/b"} {
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	return home, proj
}

func ruleEngine(t *testing.T, home, cwd string, rules ...string) *engine.Engine {
	t.Helper()
	var rs []permission.Rule
	for _, s := range rules {
		b, s, _ := strings.Cut(s, ":")
		r, err := settings.ParseRule(s, strings.ToUpper(b))
		if err != nil {
			t.Fatal(err)
		}
		r.Source, r.Layer = settings.SourceUser, "user"
		rs = append(rs, r)
	}
	return newTestEngine(t, settings.Settings{Home: home, Cwd: cwd, Rules: rs})
}

func decideTool(eng *engine.Engine, tool string, in map[string]any, cwd, mode string) permission.Decision {
	return eng.Decide(context.Background(), map[string]any{"tool_name": tool, "tool_input": in, "cwd": cwd, "permission_mode": mode})
}

// ruleOf is the deny rule that decided d, as its message names it ("" for
// none).
func ruleOf(d permission.Decision) string {
	if d.Step != permission.StepDenyRule {
		return ""
	}
	_, r, _ := strings.Cut(d.Message, " by rule ")
	return r
}

// Issue 23, one path resolution: Bash operands, recursive-read roots and
// the file tools resolve a path as the kernel does (links and ".." on
// disk, component by component; /proc/self/root, /proc/self/cwd), in every
// mode, BYPASS included, so that a Read rule and the Bash check of the
// same file always agree (docs/reads.md, "One resolution").
func TestOneResolutionForEveryTool(t *testing.T) {
	t.Parallel()
	home, proj := resolutionFixture(t)
	eng := ruleEngine(t, home, proj, "deny:Read(~/.ssh/**)", "deny:Write(//etc/**)")
	const readDeny, writeDeny = "Read(~/.ssh/**)", "Write(//etc/**)"
	// Spellings of ~/.ssh/id_rsa, and of files that are not it.
	reads := map[string]string{
		"sshlink/id_rsa":                                 "Read(~/.ssh/**)",
		"sshlink/../.ssh/id_rsa":                         readDeny,
		proj + "/sshlink/../.ssh/id_rsa":                 readDeny,
		"./sshlink/./../.ssh//id_rsa":                    readDeny,
		"deep/../../.ssh/id_rsa":                         readDeny,
		"/proc/self/cwd/../../.ssh/id_rsa":               readDeny,
		"/proc/thread-self/cwd/../../.ssh/id_rsa":        readDeny,
		"/proc/self/task/1/cwd/../../.ssh/id_rsa":        readDeny,
		"/proc/self/cwd/sshlink/../.ssh/id_rsa":          readDeny,
		"/proc/self/cwd/deep/../../.ssh/id_rsa":          readDeny,
		"/proc/self/root" + home + "/.ssh/id_rsa":        readDeny,
		"/proc/thread-self/root" + home + "/.ssh/id_rsa": readDeny,
		"/proc/self/root/../.." + home + "/.ssh/id_rsa":  readDeny,
		"/proc/1/root" + home + "/.ssh/id_rsa":           readDeny,
		"/proc/1/cwd/../../.ssh/id_rsa":                  readDeny,
		home + "/w/../.ssh/id_rsa":                       readDeny,
		// Another process's cwd: any directory, the key's among them.
		"/proc/1/cwd" + home + "/.ssh/id_rsa": readDeny,
		"/proc/1/cwd/.ssh/id_rsa":             readDeny,
		"/proc/1/task/1/cwd/id_rsa":           readDeny,
		// Not the key: deep/.. is ~/a on disk.
		"deep/../.ssh/id_rsa": "",
		"src/a.go":            "",
		"sshlink/../a/b":      "",
	}
	// Every spelling quick, each in two modes (inQuickModes); every
	// mode with -tags slow (.ci/run).
	for k, p := range slices.Sorted(maps.Keys(reads)) {
		want := reads[p]
		for m, mode := range allModes {
			if !inQuickModes(k, m) {
				continue
			}
			r := decideTool(eng, "Read", map[string]any{"file_path": p}, proj, mode)
			b := decideBash(eng, "cat "+p, proj, mode)
			if ruleOf(r) != want || ruleOf(b) != want {
				t.Errorf("%s: %s: Read tool %s/%s by %q, cat %s/%s by %q; want both denied by %q",
					mode, p, r.Behavior, r.Step, ruleOf(r), b.Behavior, b.Step, ruleOf(b), want)
			}
		}
	}
	// Without rules the credential check agrees too: the same safety ASK
	// or the same read-only verdict for the Read tool and cat.
	plainEng := newTestEngine(t, settings.Settings{Home: home, Cwd: proj})
	for p := range reads {
		r := decideTool(plainEng, "Read", map[string]any{"file_path": p}, proj, "default")
		b := decideBash(plainEng, "cat "+p, proj, "default")
		if r.Behavior != b.Behavior || r.Step != b.Step {
			t.Errorf("%s: Read tool %s/%s (%s), cat %s/%s (%s): the checks disagree", p, r.Behavior, r.Step, r.Message, b.Behavior, b.Step, b.Message)
		}
	}
	// Recursive reads whose root is spelled through a link or /proc.
	trees := []string{
		"grep -r KEY /proc/self/cwd/../..", "grep -rn KEY deep/../..", "rg --hidden KEY /proc/self/cwd/../..",
		"git grep --no-index KEY /proc/thread-self/cwd/../..", "cp -r sshlink/.. /tmp/x", "cp -r /proc/self/cwd/../.. /tmp/x",
		"grep -r KEY /proc/self/root" + home, "tar czf /tmp/x.tgz deep/../..",
		// A cwd reached through links: cd -P is physical, and a program
		// opens a relative path from the directory the shell is really in.
		"cd -P sshlink/.. && cat .ssh/id_rsa", "set -P; cd sshlink/.. && cat .ssh/id_rsa",
		"cd sshlink && cat ../.ssh/id_rsa", "cd deep && cat ../../.ssh/id_rsa",
		"cd -P /proc/self/cwd/../.. && cat .ssh/id_rsa", "cd src && cat /proc/self/cwd/../../../.ssh/id_rsa",
		"cat /proc/$PPID/cwd/.ssh/id_rsa", "cat /proc/1/cwd/../x/.ssh/id_rsa", "cat /dev/fd/3/id_rsa",
	}
	for k, cmd := range trees {
		for m, mode := range allModes {
			if !inQuickModes(k, m) {
				continue
			}
			if d := decideBash(eng, cmd, proj, mode); ruleOf(d) != readDeny {
				t.Errorf("%s: %q: %s/%s (%s), want denied by %s", mode, cmd, d.Behavior, d.Step, d.Message, readDeny)
			}
		}
	}
	for _, in := range []map[string]any{
		{"pattern": "KEY", "path": "/proc/self/cwd/../.."}, {"pattern": "KEY", "path": "deep/../.."},
	} {
		for _, mode := range allModes {
			if d := decideTool(eng, "Grep", in, proj, mode); ruleOf(d) != readDeny {
				t.Errorf("%s: Grep %v: %s/%s (%s), want denied by %s", mode, in, d.Behavior, d.Step, d.Message, readDeny)
			}
		}
	}
	if d := decideTool(eng, "Glob", map[string]any{"pattern": "**/*", "path": "deep/../.."}, proj, "bypassPermissions"); ruleOf(d) != readDeny {
		t.Errorf("Glob from deep/../..: %s/%s (%s), want denied by %s", d.Behavior, d.Step, d.Message, readDeny)
	}
	// Writes through /proc.
	up := strings.Repeat("../", strings.Count(proj, "/"))
	writes := []string{
		"echo x > /proc/self/task/$$/root/etc/x", "echo x > /proc/self/root/etc/x", "echo x > /proc/$$/root/etc/x",
		"echo x > /proc/self/cwd/" + up + "etc/x", "cp src/a.go /proc/thread-self/root/etc/x",
		"tee /proc/self/task/$BASHPID/root/etc/x < src/a.go",
	}
	for k, cmd := range writes {
		for m, mode := range allModes {
			if !inQuickModes(k, m) {
				continue
			}
			if d := decideBash(eng, cmd, proj, mode); ruleOf(d) != writeDeny {
				t.Errorf("%s: %q: %s/%s (%s), want denied by %s", mode, cmd, d.Behavior, d.Step, d.Message, writeDeny)
			}
		}
	}
	for _, p := range []string{"/proc/self/root/etc/x", "/proc/self/cwd/" + up + "etc/x", "/proc/1/root/etc/x"} {
		for _, mode := range allModes {
			if d := decideTool(eng, "Write", map[string]any{"file_path": p, "content": "x"}, proj, mode); ruleOf(d) != writeDeny {
				t.Errorf("%s: Write %s: %s/%s (%s), want denied by %s", mode, p, d.Behavior, d.Step, d.Message, writeDeny)
			}
		}
	}
}

// A write spelled inside the project that the kernel sends outside
// (deep/.. is ~/a on disk) is no edit inside the working directories in
// ACCEPT_EDITS, for the Write tool and Bash alike; the same spelling that
// stays inside is.
func TestWritesThroughLinksInAcceptEdits(t *testing.T) {
	t.Parallel()
	home, proj := resolutionFixture(t)
	eng := newTestEngine(t, settings.Settings{Home: home, Cwd: proj})
	for _, c := range []struct {
		tool   string
		in     map[string]any
		inside bool
	}{
		{"Write", map[string]any{"file_path": "deep/../notes.txt", "content": "x"}, false},
		{"Bash", map[string]any{"command": "echo x > deep/../notes.txt"}, false},
		{"Bash", map[string]any{"command": "cp src/a.go deep/../b.go"}, false},
		{"Bash", map[string]any{"command": "cd deep && touch ../notes.txt"}, false},
		{"Bash", map[string]any{"command": "echo x > /proc/self/cwd/notes.txt"}, false},
		{"Write", map[string]any{"file_path": "src/../notes.txt", "content": "x"}, true},
		{"Bash", map[string]any{"command": "echo x > src/../notes.txt"}, true},
		{"Bash", map[string]any{"command": "cd src && touch ../notes.txt"}, true},
	} {
		d := decideTool(eng, c.tool, c.in, proj, "acceptEdits")
		if (d.Behavior == permission.Allow) != c.inside {
			t.Errorf("acceptEdits: %s %v: %s/%s (%s), inside %v", c.tool, c.in, d.Behavior, d.Step, d.Message, c.inside)
		}
	}
}

// Where the file a path reaches cannot be known statically (a process's
// working directory or open files, another process's root), the path fails
// closed: reading or writing it is a safety ASK, never read-only and never
// an edit inside the working directories.
func TestUnknownResolutionFailsClosed(t *testing.T) {
	t.Parallel()
	home, proj := resolutionFixture(t)
	eng := newTestEngine(t, settings.Settings{Home: home, Cwd: proj})
	checkTable(t, eng, proj, map[outcome][]string{
		credential: {
			"cat /proc/self/cwd/src/a.go", "cat /proc/1/cwd/x", "cat /proc/$$/cwd/x", "cat /dev/fd/3", "cat /proc/self/fd/7",
			"cat /proc/1/root/etc/hostname", "grep -r x /proc/self/cwd", "ls -R /proc/1/cwd/..", "cat < /dev/fd/4",
			"wc -l /proc/thread-self/cwd/../p/src/a.go",
		},
		readOnly: {"cat /proc/self/root" + proj + "/src/a.go", "cat src/a.go", "diff <(ls) <(ls src)", "cat /dev/stdin"},
	})
	for _, mode := range []string{"default", "acceptEdits"} {
		for _, c := range []struct {
			tool string
			in   map[string]any
		}{
			{"Read", map[string]any{"file_path": "/proc/self/cwd/src/a.go"}},
			{"Read", map[string]any{"file_path": "/dev/fd/3"}},
			{"Read", map[string]any{"file_path": "/proc/1/root/etc/hostname"}},
			{"Grep", map[string]any{"pattern": "x", "path": "/proc/self/cwd/src"}},
			{"Write", map[string]any{"file_path": "/proc/self/cwd/src/a.go", "content": "x"}},
			{"Edit", map[string]any{"file_path": "/proc/thread-self/cwd/src/a.go", "old_string": "a", "new_string": "b"}},
			{"Bash", map[string]any{"command": "echo x > /proc/self/cwd/src/a.go"}},
			{"Bash", map[string]any{"command": "echo x > /dev/fd/5"}},
			{"Bash", map[string]any{"command": "cp src/a.go /proc/1/cwd/b.go"}},
		} {
			d := decideTool(eng, c.tool, c.in, proj, mode)
			if d.Behavior != permission.Ask || d.Step != permission.StepToolCheck || !d.BypassImmune {
				t.Errorf("%s: %s %v: %s/%s (%s), want a safety ASK", mode, c.tool, c.in, d.Behavior, d.Step, d.Message)
			}
		}
	}
}
