package engine_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// Recursive readers run for real: every command the engine judges
// read-only is run under strace in a throwaway home and project, and must
// not open a credential file. This checks the model of what each program
// skips (rg's hidden and ignore-file handling, grep's --include/--exclude,
// names-only listers) against the programs themselves. Commands whose
// program is not installed are skipped; without strace the test fails in CI and
// skips elsewhere (proofUnavailable).
// proofUnavailable ends a security proof that cannot run on this machine.
// In CI (CI set, as .ci/run sets it) it fails: a skipped proof proves
// nothing. Elsewhere it skips, and says so on stderr, where go test shows
// it without -v.
func proofUnavailable(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s; CI is set, so this security proof fails instead of skipping", why)
	}
	fmt.Fprintf(os.Stderr, "WARNING: %s SKIPPED, not proved against the real programs: %s (with CI set it fails)\n", t.Name(), why)
	t.Skip(why)
}

// TestStraceProofCannotBeSkippedInCI runs the strace check in a fresh
// test process where strace cannot be found: with CI set it fails, without
// it it skips and says so on stderr.
func TestStraceProofCannotBeSkippedInCI(t *testing.T) {
	t.Parallel()
	run := func(ci bool) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRecursiveReadersAgainstStrace$", "-test.count=1", "-test.v")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "PATH=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "PATH="+t.TempDir()) // no strace
		if ci {
			cmd.Env = append(cmd.Env, "CI=true")
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(true)
	if err == nil || !strings.Contains(out, "--- FAIL: TestRecursiveReadersAgainstStrace") || !strings.Contains(out, "fails instead of skipping") {
		t.Errorf("with CI set and no strace the strace check must fail (err %v):\n%s", err, out)
	}
	out, err = run(false)
	if err != nil || !strings.Contains(out, "--- SKIP: TestRecursiveReadersAgainstStrace") || !strings.Contains(out, "WARNING: TestRecursiveReadersAgainstStrace SKIPPED") {
		t.Errorf("without CI and no strace the strace check must skip loudly (err %v):\n%s", err, out)
	}
}

func TestRecursiveReadersAgainstStrace(t *testing.T) {
	t.Parallel()
	strace, err := exec.LookPath("strace")
	if err != nil {
		proofUnavailable(t, "strace is not installed (apt-get install strace); .ci/run installs it")
	}
	if testing.Short() {
		t.Skip("runs programs")
	}
	home, proj := readsFixture(t, false)
	secrets := []string{home + "/.ssh/id_rsa", home + "/.aws/credentials", home + "/.netrc", home + "/.git-credentials", proj + "/.env"}
	eng := newTestEngine(t, settings.Settings{Home: home, Cwd: proj})
	cmds := []string{
		"grep -r KEY ~", "grep -rl KEY .", "grep -rl KEY src", "grep -rl --include=*.go KEY .", "grep -rl --exclude=.env KEY .",
		"grep -rl --exclude=.env --include=* KEY .", "grep -rl --include=* --exclude=.env KEY .", "grep -R KEY ../linked",
		"grep -rl --exclude-dir=src KEY .", "egrep -rl KEY .", "grep -d recurse -l KEY .",
		"rg -l KEY", "rg -l KEY .", "rg -l KEY ~", "rg -l --hidden KEY", "rg -l --hidden KEY ~", "rg -l -uu KEY",
		"rg -l -uuu KEY ~", "rg -l -g '*.go' KEY", "rg -l -g '*' KEY", "rg -l -g '!.env' -uu KEY", "rg -l -tgo KEY",
		"rg -l --no-ignore KEY", "rg --files", "rg --files --hidden", "rg -l KEY ../linked", "rg -l -L KEY ../linked", "grep -rl KEY ../linked",
		"find . -name '*.go'", "find ~ -name x", "find . -type f -exec cat {} +", "find . -print0 | xargs -0 cat",
		"ls -R", "ls -aR", "ls -aR ~", "tree", "tree -a", "tree -a ~", "du -a", "du -a ~", "du -sh ~",
		"diff -r src src", "diff -r . ../linked", "git grep KEY", "git grep --untracked KEY", "git grep --no-index KEY",
		"cat ~/.ssh/*", "head -c1 src/*", "find ~ -maxdepth 1 -name x", "tree -a -L 1 ~", "rg -l --hidden --max-depth 1 KEY ~",
		// Paths find supplies (issue 26).
		"find ~ -exec cat {} \\;", "find . -execdir cat {} \\;", "find ~ -print0 | xargs -0 grep -l KEY", "find src -exec cat {} +",
		"find . -type d -exec grep -rl KEY {} +", "find ~ -maxdepth 1 -print0 | xargs -0 -r grep -rl KEY",
	}
	if !slowTests {
		// The quick suite proves the mechanism with two traced commands, a
		// recursive grep of home that reads credentials and rg that skips
		// them; -tags slow (.ci/run) traces every command.
		cmds = []string{cmds[0], cmds[11]}
	}
	opened := regexp.MustCompile(`= \d+<([^>]*)>`)
	overApprox := 0
	for _, cmd := range cmds {
		prog := strings.Fields(cmd)[0]
		if _, err := exec.LookPath(prog); err != nil {
			continue
		}
		d := decideBash(eng, cmd, proj, "default")
		trace := t.TempDir() + "/trace"
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		// --seccomp-bpf: only the traced calls stop the tracee (the same
		// trace, a fraction of the ptrace stops).
		c := exec.CommandContext(ctx, strace, "--seccomp-bpf", "-f", "-qq", "-y", "-e", "trace=open,openat,openat2", "-o", trace, "bash", "-c", cmd)
		c.Dir = proj
		c.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
		_ = c.Run()
		cancel()
		data, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		var read []string
		for _, m := range opened.FindAllStringSubmatch(string(data), -1) {
			for _, s := range secrets {
				if m[1] == s {
					read = append(read, s)
				}
			}
		}
		switch {
		case d.Step == permission.StepReadOnly && len(read) > 0:
			t.Errorf("%q is judged read-only but opens %v", cmd, read)
		case d.BypassImmune && len(read) == 0:
			overApprox++
			t.Logf("%q asks (%s) and opened no credential here", cmd, d.Message)
		}
	}
	t.Logf("%d commands asked about without opening a credential in this fixture", overApprox)
}
