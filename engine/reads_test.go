package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// Disclosure classes end to end (docs/reads.md, "Recursive reads" and
// "Secrets"): every command of each table gets the same decision in every
// mode as the class says, through the whole engine, on a real home and
// project on disk.

// outcome is what a command is, and so what each mode decides.
type outcome int

const (
	// credential: a credential read, the safety ASK.
	credential outcome = iota
	// readOnly: ALLOW at the read-only step in every mode.
	readOnly
	// plain: not read-only and no safety finding: the mode decides.
	plain
)

func (o outcome) want(mode string) [2]string {
	switch o {
	case credential:
		return safetyAsk[mode]
	case readOnly:
		return [2]string{permission.Allow, permission.StepReadOnly}
	}
	return map[string][2]string{
		"default":           {permission.Ask, permission.StepModeFallback},
		"acceptEdits":       {permission.Ask, permission.StepModeFallback},
		"plan":              {permission.Deny, permission.StepModeFallback},
		"bypassPermissions": {permission.Allow, permission.StepModeFallback},
		"dontAsk":           {permission.Deny, permission.StepModeFallback},
	}[mode]
}

// readsFixture builds, in a temporary directory:
//
//	home/.ssh/id_rsa, home/.aws/credentials, home/.netrc, home/.git-credentials
//	home/proj: a git work tree with .gitignore (".env"), .env, src/a.go, src/b.go
//	home/linked/keys -> home/.ssh
//	home/big: more files than a tree walk reads
//
// The big fixture (20,001 files) is built once for the test binary, whose
// tests only read it (sharedBigFixture).
func readsFixture(t *testing.T, big bool) (home, proj string) {
	t.Helper()
	if big {
		return sharedBigFixture(t)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := buildReadsFixture(root, false); err != nil {
		t.Fatal(err)
	}
	return root + "/home", root + "/home/proj"
}

var bigFixture struct {
	sync.Once
	root string
	err  error
}

// sharedBigFixture is the big fixture, built once for the test binary
// (the tests that use it only read it, and at -test.parallel 2 they
// seldom run at the same time) and removed when every test has run.
func sharedBigFixture(t *testing.T) (home, proj string) {
	t.Helper()
	bigFixture.Do(func() {
		dir, err := os.MkdirTemp("", "permopa-reads")
		if err == nil {
			engine.AtTestExit(func() { os.RemoveAll(dir) })
			dir, err = filepath.EvalSymlinks(dir)
		}
		if err == nil {
			err = buildReadsFixture(dir, true)
		}
		bigFixture.root, bigFixture.err = dir, err
	})
	if bigFixture.err != nil {
		t.Fatal(bigFixture.err)
	}
	root := bigFixture.root
	return root + "/home", root + "/home/proj"
}

func buildReadsFixture(root string, big bool) error {
	home := root + "/home"
	proj := home + "/proj"
	for _, d := range []string{home + "/.ssh", home + "/.aws", proj + "/.git", proj + "/src", home + "/linked", home + "/big"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	files := map[string]string{
		home + "/.ssh/id_rsa": "KEY", home + "/.aws/credentials": "KEY", home + "/.netrc": "KEY",
		home + "/.git-credentials": "KEY", proj + "/.gitignore": ".env\n", proj + "/.env": "KEY=1",
		proj + "/src/a.go": "package a", proj + "/src/b.go": "package a",
	}
	for f, s := range files {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			return err
		}
	}
	if err := os.Symlink(home+"/.ssh", home+"/linked/keys"); err != nil {
		return err
	}
	if !big {
		return nil
	}
	// 20,001 names in one directory: hard links to one empty file, one
	// system call each (creating each file costs an open, a close and
	// more); a walk sees the same names and regular files.
	first := home + "/big/f00000"
	if err := os.WriteFile(first, nil, 0o644); err != nil {
		return err
	}
	for i := 1; i < 20001; i++ {
		if err := os.Link(first, fmt.Sprintf("%s/big/f%05d", home, i)); err != nil {
			return err
		}
	}
	return nil
}

// inQuickModes reports whether the quick suite decides the k-th call of
// a table of at least len(allModes) calls in allModes[m]: each call in two
// modes, each mode for two fifths of the calls, so every call and every
// mode of the table stays in the quick suite; -tags slow decides every
// call in every mode.
func inQuickModes(k, m int) bool {
	return slowTests || (k+m)%len(allModes) < 2
}

// checkTable decides each command of the table in allModes (a sample of
// them in the quick suite, inQuickModes, for an outcome of at least as
// many commands as modes) and wants the outcome's answer for the mode.
func checkTable(t *testing.T, eng *engine.Engine, cwd string, table map[outcome][]string) {
	t.Helper()
	for o, cmds := range table {
		for k, cmd := range cmds {
			for m, mode := range allModes {
				if len(cmds) >= len(allModes) && !inQuickModes(k, m) {
					continue
				}
				d := decideBash(eng, cmd, cwd, mode)
				if want := o.want(mode); d.Behavior != want[0] || d.Step != want[1] {
					t.Errorf("%s: %q: %s/%s (%s), want %v", mode, cmd, d.Behavior, d.Step, d.Message, want)
				}
			}
		}
	}
}

// Recursive reads reach what single reads may not: a tree that holds a
// credential is a credential read, whatever program reads it.
func TestRecursiveReadsReachCredentials(t *testing.T) {
	t.Parallel()
	home, proj := readsFixture(t, true)
	eng := newTestEngine(t, settings.Settings{Home: home, Cwd: proj})
	checkTable(t, eng, proj, map[outcome][]string{
		credential: {
			"grep -r KEY ~", "grep -R KEY $HOME", "grep --recursive KEY ~/", "egrep -r 'K|E' ~", "fgrep -rl KEY " + home,
			"grep -d recurse KEY ~", "grep --directories=recurse KEY ~/.aws/..", "grep -rn KEY .", "grep -rn KEY",
			"cd ~ && grep -r KEY", "cd .. && grep -rl KEY .", "grep -r KEY /etc", "grep -r KEY /proc", "grep -r KEY /",
			"rg -uuu . ~", "rg --hidden KEY ~", "rg -uu KEY", "rg -g '*' KEY", "rg -. --no-ignore KEY",
			"git grep --no-index KEY", "git grep --untracked --no-exclude-standard KEY",
			"find ~ -type f -exec cat {} +", "find . -exec cat {} \\;", "find . -print0 | xargs -0 cat",
			// Paths find supplies are read as the trees of its roots (issue 26).
			"find ~ -exec cat {} \\;", "find ~ -name '*.pem' -exec grep -l KEY {} +", "find ~ -print0 | xargs -0 grep KEY",
			"find ../linked -exec cat {} +", "find . -execdir cat {} \\;",
			"find ~ -name x", "ls -aR ~", "ls -AR " + home, "tree -a ~", "du -a ~", "diff -r ~ /tmp",
			"grep -R KEY ../linked", "rg -L KEY ../linked", "find -L ../linked", "tree -l ../linked", "cat ~/.ssh/*", "wc -c ~/.aws/*",
			// A glob names the link itself: an operand, which grep -r, rg and ls -R follow.
			"grep -r KEY ../linked/*", "rg KEY ../linked/*", "ls -R ../linked/*", "grep -r KEY ../linked/k*",
			"bash -c 'grep -r KEY ~'", "timeout 5 rg -uu KEY ~", "grep -r KEY ~ | head -1", "(cd ~/.ssh && grep -r KEY)",
			"grep -r KEY ~/.*", "grep -r KEY ../*", "find ~ -maxdepth 2 -type f", "rg -uu --max-depth 1 KEY ~", "rg -uu KEY ~/.[a-z]*", "grep -r KEY " + home + "/../*", "tar cf x.tar ~/.*",
		},
		readOnly: {
			"rg KEY .", "rg KEY", "rg --hidden KEY", "rg -g '*.go' KEY", "rg -tgo KEY", "rg -g '!.env' -uu KEY",
			"grep -rn KEY src/", "grep -rn --include='*.go' KEY .", "grep -rn --exclude=.env KEY .",
			"grep -rn --exclude-dir=x --exclude='.env' KEY .", "find . -name '*.go'", "find src -type f", "ls -R", "ls -laR src",
			"tree", "tree -a src", "du -a src", "du -sh ~", "git grep KEY", "git grep --untracked KEY", "grep KEY src/a.go",
			"find . -maxdepth 1 -type d", "ls -la ~", "grep -r KEY src/*", "ls -R src/*",
			"find ~ -maxdepth 1 -name '.*'", "tree -a -L 1 ~", "find ~ -maxdepth 0",
			"find src -name '*.go' -exec grep -n KEY {} \\;", "find src -type f -exec wc -l {} +",
			"find src -print0 | xargs -0 grep -l KEY", "find src -name '*.go' -print0 | xargs -0 -n 1 cat",
			// Programs that follow no link below their root (docs/reads.md, "Links").
			"grep -r KEY ../linked", "rg KEY ../linked", "find ../linked", "tree ../linked", "ls -R ../linked",
		},
		plain: {
			"grep -r KEY ~/big", "find ~/big -exec cat {} +",
		},
	})
	// Programs that write are not read-only either way; the tree decides
	// whether they are a safety ASK.
	checkTable(t, eng, proj, map[outcome][]string{
		credential: {
			"tar czf /tmp/x.tgz ~", "tar cf out.tar -C ~ .", "tar -cf out.tar ~/.aws", "zip -r out.zip ~", "zip -qr out.zip .",
			"rsync -a ~/ ./bk", "rsync -av ../linked/ ./bk", "scp -r ~ host:x", "cp -r ~ ./bk", "cp -a ~/.aws ./aws",
			"cp -R . ../copy",
		},
		plain: {"tar czf out.tgz src", "zip -r out.zip src", "scp -r src host:x"},
	})
}

// Read deny and ask rules hit a recursive read whose root holds what the
// rule's pattern can match, and never a tree the program does not read.
func TestRecursiveReadsMeetReadRules(t *testing.T) {
	t.Parallel()
	home, proj := readsFixture(t, false)
	rule := func(b, content string) permission.Rule {
		return permission.Rule{ToolName: "Read", RuleContent: &content, Behavior: b, Source: "userSettings", Layer: "user"}
	}
	cases := []struct {
		rule  permission.Rule
		hits  []string
		clean []string
	}{
		{rule("DENY", "~/.ssh/**"),
			[]string{"grep -r x ~", "rg -uu x ~", "find ~ -name x", "ls -aR ~", "tar czf /tmp/h.tgz ~", "cp -r ~ /tmp/h", "grep -r x /",
				"find ~ -exec cat {} \\;", "find ~ -type f -exec grep x {} +", "find ~ -print0 | xargs -0 cat",
				"grep -R x ../linked", "rg -L x ../linked", "find -L ../linked", "find ../linked -exec cat {} +"},
			[]string{"grep -r x src", "ls -la ~", "find src", "find src -exec cat {} +", "find src -print0 | xargs -0 cat",
				"grep -r x ../linked", "rg x ../linked", "find ../linked", "ls -R ../linked"}},
		{rule("DENY", "**/.env"),
			[]string{"grep -rn x .", "rg -uu x", "rg -g '*' x", "grep -r x ~", "find . -exec cat {} +", "find . -print0 | xargs -0 grep x"},
			[]string{"grep -rn x src/", "rg x .", "rg --hidden x", "find . -name x", "grep -rn --exclude=.env x .",
				"find src -name '*.go' -exec cat {} \\;"}},
		{rule("DENY", "./secrets/**"),
			[]string{"rg x .", "grep -r x .", "find .", "ls -R"},
			[]string{"rg x src", "grep -r x src/"}},
		{rule("ASK", "~/.aws/**"),
			[]string{"grep -r x ~", "find ~ -type d", "du -a ~"},
			[]string{"du -sh ~", "rg x src"}},
	}
	for _, c := range cases {
		eng := newTestEngine(t, settings.Settings{Home: home, Cwd: proj, Rules: []permission.Rule{c.rule}})
		step, behavior := permission.StepDenyRule, permission.Deny
		if c.rule.Behavior == "ASK" {
			step, behavior = permission.StepAskRule, permission.Ask
		}
		for _, cmd := range c.hits {
			for _, mode := range []string{"default", "plan", "bypassPermissions"} {
				d := decideBash(eng, cmd, proj, mode)
				if d.Behavior != behavior || d.Step != step {
					t.Errorf("%s %s: %q: %s/%s (%s)", c.rule, mode, cmd, d.Behavior, d.Step, d.Message)
				}
			}
		}
		for _, cmd := range c.clean {
			d := decideBash(eng, cmd, proj, "default")
			if d.Step == step {
				t.Errorf("%s: %q hit the rule (%s)", c.rule, cmd, d.Message)
			}
		}
	}
}

// The Grep and Glob tools read trees too.
func TestGrepGlobReachCredentials(t *testing.T) {
	t.Parallel()
	home, proj := readsFixture(t, true)
	eng := newTestEngine(t, settings.Settings{Home: home, Cwd: proj})
	call := func(tool string, in map[string]any, mode string) permission.Decision {
		return eng.Decide(context.Background(), map[string]any{"tool_name": tool, "tool_input": in, "cwd": proj, "permission_mode": mode})
	}
	cases := []struct {
		tool string
		in   map[string]any
		o    outcome
	}{
		{"Grep", map[string]any{"pattern": "KEY", "path": home}, credential},
		{"Grep", map[string]any{"pattern": "KEY", "path": "~"}, credential},
		{"Grep", map[string]any{"pattern": "KEY", "path": "/"}, credential},
		{"Grep", map[string]any{"pattern": "KEY", "path": home + "/linked"}, credential},
		{"Grep", map[string]any{"pattern": "KEY", "glob": "*"}, credential},
		{"Grep", map[string]any{"pattern": "KEY", "glob": "**/.env"}, credential},
		{"Grep", map[string]any{"pattern": "KEY"}, readOnly},
		{"Grep", map[string]any{"pattern": "KEY", "glob": "*.go"}, readOnly},
		{"Grep", map[string]any{"pattern": "KEY", "path": "src"}, readOnly},
		{"Grep", map[string]any{"pattern": "KEY", "path": home + "/big"}, plain},
		{"Glob", map[string]any{"pattern": "**/*", "path": home}, credential},
		{"Glob", map[string]any{"pattern": "~/**"}, credential},
		{"Glob", map[string]any{"pattern": home + "/.ssh/*"}, credential},
		{"Glob", map[string]any{"pattern": "**/*.go"}, readOnly},
		{"Glob", map[string]any{"pattern": "**/.env"}, readOnly}, // names only
		// A ".." after a wildcard leaves the directory the pattern starts in
		// (a globber lists proj/src/x/../../../.ssh, home's keys).
		{"Glob", map[string]any{"pattern": "src/*/../../../.ssh/*"}, credential},
		{"Glob", map[string]any{"pattern": "*/../../.ssh/*"}, credential},
		{"Glob", map[string]any{"pattern": "{src,..}/.ssh/*"}, credential},
	}
	for k, c := range cases {
		for m, mode := range allModes {
			if !inQuickModes(k, m) {
				continue // every case quick, each in two modes; all with -tags slow
			}
			d := call(c.tool, c.in, mode)
			want := c.o.want(mode)
			if c.o == plain && c.tool != "Bash" && (mode == "acceptEdits" || mode == "default") {
				want = [2]string{permission.Ask, permission.StepModeFallback}
			}
			if d.Behavior != want[0] || d.Step != want[1] {
				t.Errorf("%s %v %s: %s/%s (%s), want %v", c.tool, c.in, mode, d.Behavior, d.Step, d.Message, want)
			}
		}
	}
	// A Read deny rule on a directory stops a Grep or Glob of a tree that holds it.
	ssh := "~/.ssh/**"
	eng = newTestEngine(t, settings.Settings{Home: home, Cwd: proj, Rules: []permission.Rule{{ToolName: "Read", RuleContent: &ssh, Behavior: "DENY", Layer: "user"}}})
	for _, c := range []struct {
		tool string
		in   map[string]any
	}{
		{"Grep", map[string]any{"pattern": "KEY", "path": home}},
		{"Glob", map[string]any{"pattern": "**/*", "path": "~"}},
		{"Glob", map[string]any{"pattern": "/**/id_*"}},
	} {
		d := eng.Decide(context.Background(), map[string]any{"tool_name": c.tool, "tool_input": c.in, "cwd": proj, "permission_mode": "bypassPermissions"})
		if d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
			t.Errorf("%s %v escaped Read(~/.ssh/**): %s/%s (%s)", c.tool, c.in, d.Behavior, d.Step, d.Message)
		}
	}
}

// Secrets outside the shell profiles and key files, and environment dumps.
func TestSecretsAndEnvironment(t *testing.T) {
	t.Parallel()
	home, proj := readsFixture(t, false)
	eng := newTestEngine(t, settings.Settings{Home: home, Cwd: proj})
	secrets := []string{
		"cat /etc/shadow", "head -1 /etc/gshadow", "tail /etc/shadow-", "cat /proc/1/environ", "cat /proc/self/environ",
		"strings /proc/self/environ", "tr '\\0' '\\n' < /proc/1/environ", "cat /proc/1/root/etc/shadow",
		"cat /proc/self/root/etc/shadow", "xxd /proc/1/mem", "cat /proc/1/cwd/config.yml", "ls /proc/1/fd",
		"cat /proc/1/task/1/environ", "cat /etc/ssh/ssh_host_ed25519_key", "cat ~/.git-credentials",
		"cat /proc/1/root" + home + "/.ssh/id_rsa", "od -c /dev/mem",
		// Reads only known at run time, by what they could name.
		"cat /proc/$$/environ", "cat /proc/$PPID/environ", `cat "$D/.env"`, `cat ~/.ssh/"$K"`, `head "$HOME/.aws/$P"`,
	}
	env := []string{
		"printenv", "printenv GITHUB_TOKEN", "printenv -0", "env", "env -0", "env -u PATH", "env FOO=1",
		"export -p", "export", "declare -p", "declare -x", "typeset -p", "set", "jq -n env", "jq -n '$ENV'",
		"jq -nr '$ENV.AWS_SECRET_ACCESS_KEY'", `awk 'BEGIN{print ENVIRON["AWS_SECRET_ACCESS_KEY"]}'`,
		"ps eww", "ps auxe", "python3 -c 'import os;print(os.environ)'", "perl -e 'print %ENV'", "node -p process.env",
		"bash -c printenv", "sh -c 'env | grep KEY'", "printenv | base64", "env | sort", "git status && printenv",
	}
	clean := []string{
		"printenv HOME", "printenv PATH PWD", "cat /etc/passwd", "cat /proc/cpuinfo", "cat /proc/1/cmdline",
		"ps aux", "ps -ef", "ps -eo pid,etime", "jq .env src/a.go", "awk '{print $1}' src/a.go", "env -i",
		"cat /etc/ssh/ssh_host_ed25519_key.pub", "ls /proc",
	}
	checkTable(t, eng, proj, map[outcome][]string{plain: {`cat "$f"`, `cat src/"$x".go`, `for f in src/*.go $x; do cat "$f"; done`}})
	// A loop over a glob reads what the glob names (issue 26).
	checkTable(t, eng, proj, map[outcome][]string{
		readOnly: {`for f in src/*.go; do cat "$f"; done`},
		credential: {`for f in ~/.ssh/*; do cat "$f"; done`, `for f in ~/.ssh/id_*; do head -n 1 "$f"; done`, `for d in ~/.ssh; do grep -r KEY $d; done`,
			`for f in ~/.ssh/*; do wc -c < "$f"; done`},
	})
	checkTable(t, eng, proj, map[outcome][]string{credential: append(append([]string{}, secrets...), env...), readOnly: clean})
	// Wrappers still wrap: env -i and env FOO=1 run their command, which is
	// judged (env -i only takes variables away: read-only when its command is).
	checkTable(t, eng, proj, map[outcome][]string{
		credential: {"env -i cat /etc/shadow", "env FOO=1 cat /proc/1/environ", "env -i grep -r KEY ~"},
		plain:      {"env FOO=1 git status"},
		readOnly:   {"env -i cat src/a.go", "env -u HOME cat src/a.go"},
	})

	// environment_is_secret: false relaxes the dumps, not the secret files.
	off := false
	relaxed := newTestEngine(t, settings.Settings{Home: home, Cwd: proj, EnvironmentIsSecret: &off})
	checkTable(t, relaxed, proj, map[outcome][]string{
		readOnly: {"printenv", "env", "export -p", "jq -n env", "ps eww", "printenv GITHUB_TOKEN", "printenv | sort",
			"set", "declare -p"}, // set and declare -p like env (issue 26)
		credential: secrets,
		plain:      {"python3 -c 'import os;print(os.environ)'"},
	})
}

// A filesystem command whose source is a credential path is a credential
// read: ACCEPT_EDITS does not allow it as an edit inside the working
// directory. Every reading operand of every filesystem command reaches the
// check.
func TestCopyingSecretsIsNotAnEdit(t *testing.T) {
	t.Parallel()
	home, proj := readsFixture(t, false)
	eng := newTestEngine(t, settings.Settings{Home: home, Cwd: proj})
	cmds := []string{
		"cp /etc/shadow ./x", "cp ~/.ssh/id_rsa ./k", "cp -r ~/.aws ./a", "cp .env .env.bak", "cp -t src /etc/gshadow",
		"cp /proc/self/environ ./e", "cp /proc/1/root/etc/shadow ./s", "install -m 600 /etc/shadow ./s",
		"rsync /etc/shadow ./x", "dd if=/etc/shadow of=./x", "tar cf x.tar /etc/shadow", "zip x.zip ~/.netrc",
		"mv ~/.ssh/id_rsa ./k", "ln /etc/shadow ./h", "cat /etc/shadow > ./x", "sudo cp /etc/shadow ./x",
		"scp /etc/shadow host:", "less ~/.ssh/id_rsa", "source .env", "cp -r ~ ./bk", "cp -a .. ./up",
	}
	for _, cmd := range cmds {
		for _, mode := range []string{"acceptEdits", "dontAsk"} {
			d := decideBash(eng, cmd, proj, mode)
			if want := safetyAsk[mode]; d.Behavior != want[0] || d.Step != want[1] {
				t.Errorf("%s: %q: %s/%s (%s), want %v", mode, cmd, d.Behavior, d.Step, d.Message, want)
			}
		}
	}
	// Copies of ordinary files inside the working directory stay edits.
	for _, cmd := range []string{"cp src/a.go src/c.go", "cp -r src src2", "mkdir -p out && cp -a src out/"} {
		d := decideBash(eng, cmd, proj, "acceptEdits")
		if d.Behavior != permission.Allow || d.Step != permission.StepToolCheck {
			t.Errorf("acceptEdits: %q: %s/%s (%s)", cmd, d.Behavior, d.Step, d.Message)
		}
	}
	if msg := decideBash(eng, "cp /etc/shadow ./x", proj, "default").Message; !strings.Contains(msg, "/etc/shadow") {
		t.Errorf("the message does not name the secret: %s", msg)
	}
}

// environment_is_secret is read from settings files and the environment;
// true in any layer wins over false in another, and a value that is not a
// boolean is reported, not taken.
func TestEnvironmentIsSecretSetting(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	tr.write(t, filepath.Join(tr.user, "settings.yaml"), "environment_is_secret: false\n")
	eng, l, problems := tr.attach(t)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if s := l.Settings(); s.EnvironmentIsSecret == nil || *s.EnvironmentIsSecret {
		t.Fatalf("user settings false: %v", s.EnvironmentIsSecret)
	}
	if d := decide(eng, bashCall(tr.proj, "printenv")); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
		t.Errorf("relaxed: %s/%s (%s)", d.Behavior, d.Step, d.Message)
	}
	tr.write(t, ".permopa/settings.yaml", "environment_is_secret: true\n")
	eng, _, _ = tr.attach(t)
	if d := decide(eng, bashCall(tr.proj, "printenv")); d.Step != permission.StepToolCheck {
		t.Errorf("true in another layer wins: %s/%s", d.Behavior, d.Step)
	}
	tr.write(t, ".permopa/settings.yaml", "environment_is_secret: maybe\n")
	tr.environ = []string{"PERMOPA_ENVIRONMENT_IS_SECRET=true"}
	eng, _, problems = tr.attach(t)
	if len(problems) == 0 || !strings.Contains(fmt.Sprint(problems), "environment_is_secret") {
		t.Errorf("a bad value is not reported: %v", problems)
	}
	if d := decide(eng, bashCall(tr.proj, "env")); d.Step != permission.StepToolCheck {
		t.Errorf("PERMOPA_ENVIRONMENT_IS_SECRET=true: %s/%s", d.Behavior, d.Step)
	}
}

// A tree too large to walk to its end (more than a walk reads) is no proof
// that a deny rule matches: what lies beyond the walk, or where a link in
// it leads, only could (docs/decision.md, point 1). Under Read(~/.ssh/**)
// a Grep, a Glob or a grep -R of such a tree is the uncertain deny (a
// safety ASK where someone can answer, check unseen_tree), never an ALLOW;
// a small tree holding a link to ~/.ssh is a certain DENY in every mode;
// without a deny rule nothing changes.
func TestTreesTooLargeToCheckUnderDenyRules(t *testing.T) {
	t.Parallel()
	home, proj := readsFixture(t, true)
	big, linked := home+"/big", home+"/linked"
	rule := func(b, content string) permission.Rule {
		return permission.Rule{ToolName: "Read", RuleContent: &content, Behavior: b, Source: "userSettings", Layer: "user"}
	}
	type call struct {
		tool string
		in   map[string]any
		cwd  string
	}
	grep := func(dir string) call { return call{"Grep", map[string]any{"pattern": "KEY", "path": dir}, proj} }
	glob := func(dir string) call { return call{"Glob", map[string]any{"pattern": "**/*", "path": dir}, proj} }
	bash := func(cmd, cwd string) call { return call{"Bash", map[string]any{"command": cmd}, cwd} }
	large := []call{grep(big), glob(big), bash("grep -R x .", big), bash("rg -L x .", big),
		{"Grep", map[string]any{"pattern": "KEY", "path": big, "glob": "*.txt"}, proj}}
	small := []call{grep(linked), glob(linked), bash("grep -R x .", linked), bash("rg -L x .", linked), bash("find -L "+linked, proj)}
	decide := func(eng *engine.Engine, c call, mode string) permission.Decision {
		return eng.Decide(context.Background(), map[string]any{"tool_name": c.tool, "tool_input": c.in, "cwd": c.cwd, "permission_mode": mode})
	}
	ssh := newTestEngine(t, settings.Settings{Home: home, Cwd: proj, Rules: []permission.Rule{rule("DENY", "~/.ssh/**")}})
	honours := newTestEngine(t, settings.Settings{Home: home, Cwd: proj, BypassHonoursSafety: true, Rules: []permission.Rule{rule("DENY", "~/.ssh/**")}})
	for k, c := range large {
		for m, mode := range allModes {
			if !inQuickModes(k, m) {
				continue
			}
			d := decide(ssh, c, mode)
			if d.Behavior != uncertainDenyBehavior[mode] || d.Step != permission.StepDenyRuleUncertain || d.Check != permission.CheckUnseenTree ||
				!d.BypassImmune || d.MatchedRule == nil || *d.MatchedRule.RuleContent != "~/.ssh/**" ||
				!strings.Contains(d.Message, "reads a tree too large to check: "+big) || strings.Contains(d.Message, "whether it runs") {
				t.Errorf("%s %v in %s: %s/%s check %q (%s), want %s at %s, check unseen_tree", c.tool, c.in, mode, d.Behavior, d.Step, d.Check, d.Message,
					uncertainDenyBehavior[mode], permission.StepDenyRuleUncertain)
			}
		}
		if d := decide(honours, c, "bypassPermissions"); d.Behavior != permission.Ask || d.Check != permission.CheckUnseenTree {
			t.Errorf("%s %v in BYPASS with bypass_honours_safety: %s/%s (%s), want the safety ASK", c.tool, c.in, d.Behavior, d.Step, d.Message)
		}
	}
	for k, c := range small {
		for m, mode := range allModes {
			if !inQuickModes(k, m) {
				continue
			}
			if d := decide(ssh, c, mode); d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
				t.Errorf("%s %v in %s: %s/%s (%s), want DENY by Read(~/.ssh/**)", c.tool, c.in, mode, d.Behavior, d.Step, d.Message)
			}
		}
	}
	// A rule hit for certain comes before one that only could be, whatever
	// their order; a wild rule the walk cannot rule out only could match.
	both := newTestEngine(t, settings.Settings{Home: home, Cwd: proj, Rules: []permission.Rule{rule("DENY", "**/*.pem"), rule("DENY", "~/.ssh/**")}})
	for _, c := range []call{grep(home), glob(home), bash("grep -R x ~", proj)} {
		d := decide(both, c, "default")
		if d.Behavior != permission.Deny || d.Step != permission.StepDenyRule || d.MatchedRule == nil || *d.MatchedRule.RuleContent != "~/.ssh/**" {
			t.Errorf("%s %v: %s/%s (%s), want DENY by Read(~/.ssh/**)", c.tool, c.in, d.Behavior, d.Step, d.Message)
		}
	}
	pem := newTestEngine(t, settings.Settings{Home: home, Cwd: proj, Rules: []permission.Rule{rule("DENY", "**/*.pem")}})
	for _, c := range []call{grep(big), bash("grep -r x "+big, proj), bash("rg -uu x .", big)} {
		if d := decide(pem, c, "default"); d.Behavior != permission.Ask || d.Check != permission.CheckUnseenTree {
			t.Errorf("%s %v under Read(**/*.pem): %s/%s (%s), want the safety ASK", c.tool, c.in, d.Behavior, d.Step, d.Message)
		}
	}
	// An ask rule that only could match asks, and says so.
	ask := newTestEngine(t, settings.Settings{Home: home, Cwd: proj, Rules: []permission.Rule{rule("ASK", "~/.ssh/**")}})
	for _, c := range large {
		for mode, want := range map[string]string{"default": permission.Ask, "bypassPermissions": permission.Ask, "dontAsk": permission.Deny} {
			if d := decide(ask, c, mode); d.Behavior != want || d.Step != permission.StepAskRule || !strings.Contains(d.Message, "it could match: reads a tree too large to check") {
				t.Errorf("%s %v in %s under an ask rule: %s/%s (%s), want %s", c.tool, c.in, mode, d.Behavior, d.Step, d.Message, want)
			}
		}
	}
	// No rule: the tree is not read-only, and the mode decides as before.
	none := newTestEngine(t, settings.Settings{Home: home, Cwd: proj})
	for k, c := range large {
		for m, mode := range allModes {
			if !inQuickModes(k, m) {
				continue
			}
			want := plain.want(mode)
			if c.tool != "Bash" && (mode == "acceptEdits" || mode == "default") {
				want = [2]string{permission.Ask, permission.StepModeFallback}
			}
			if d := decide(none, c, mode); d.Behavior != want[0] || d.Step != want[1] {
				t.Errorf("%s %v in %s without rules: %s/%s (%s), want %v", c.tool, c.in, mode, d.Behavior, d.Step, d.Message, want)
			}
		}
	}
}
