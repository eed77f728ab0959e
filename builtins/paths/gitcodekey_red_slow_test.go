//go:build slow

package paths

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitCodeKeyRunsAProgramForReal runs the real git on a repository
// configuration naming a program through tar.NAME.command (git archive)
// and remote.NAME.vcs (git ls-remote): git runs it, and ConfigFindings
// reports the key.
func TestGitCodeKeyRunsAProgramForReal(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(root, "main")
	run := func(args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir = main
		cmd.Env = append(os.Environ(), "HOME="+root+"/home", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=x", "GIT_AUTHOR_EMAIL=x@example.com", "GIT_COMMITTER_NAME=x", "GIT_COMMITTER_EMAIL=x@example.com")
		out, err := cmd.CombinedOutput()
		t.Logf("git %v: %v\n%s", args, err, out)
		return err
	}
	mkfile(t, main+"/a", "a\n")
	for _, a := range [][]string{{"init", "-q"}, {"add", "a"}, {"commit", "-qm", "a"}} {
		if err := run(a...); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(root, "ran")
	script := "#!/bin/sh\ntouch " + marker + "\n"
	mkfile(t, main+"/git-remote-../x", script)
	for _, tc := range []struct {
		config, key string
		args        []string
	}{
		{"[tar \"evil\"]\n\tcommand = touch " + marker + "\n", "tar.evil.command", []string{"archive", "--format=evil", "HEAD"}},
		{"[remote \"origin\"]\n\turl = ssh://example.invalid/x\n\tvcs = ../x\n", "remote.origin.vcs", []string{"ls-remote", "origin"}},
	} {
		os.Remove(marker)
		mkfile(t, main+"/.git/config", "[core]\n\tbare = false\n"+tc.config)
		run(tc.args...) // ls-remote fails after the helper ran
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("git %v did not run the program %s names", tc.args, tc.key)
		}
		if got := strings.Join(findings(root, "git", main), ","); got != "main/.git/config "+tc.key {
			t.Errorf("%s: findings %q", tc.key, got)
		}
	}
}
