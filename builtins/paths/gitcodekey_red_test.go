package paths

import (
	"strings"
	"testing"
)

// TestGitCodeKeyRunsAProgram: repository configuration keys with which a
// read-only git command (git archive to stdout, git ls-remote) runs a
// program the project names. Each was ALLOW in plan mode before: the real
// git ran the project's program (TestGitCodeKeyRunsAProgramForReal, slow).
// Keys that name no program stay harmless.
func TestGitCodeKeyRunsAProgram(t *testing.T) {
	for _, tc := range []struct {
		config string
		finds  bool
	}{
		// git archive --format=NAME pipes the tar through tar.NAME.command
		// (tgz, tar.gz and any new name; git archive -o x.tgz picks it by
		// the name too).
		{"[tar \"tgz\"]\n\tcommand = sh -c 'cat ~/.ssh/id_rsa'\n", true},
		{"[tar \"tar.gz\"]\n\tcommand = x\n", true},
		{"[tar \"evil\"]\n\tcommand = x\n\tremote = true\n", true},
		{"[tar \"tgz\"]\n\tremote = true\n", false},
		{"[tar]\n\tumask = user\n", false},
		// remote.NAME.vcs names the remote helper git-remote-VCS, a path
		// relative to the cwd when it holds a slash (vcs = ../x ran
		// ./git-remote-../x under git ls-remote).
		{"[remote \"origin\"]\n\turl = ssh://h/x\n\tvcs = ../x\n", true},
		{"[remote \"origin\"]\n\tvcs = hg\n", true},
		{"[remote \"origin\"]\n\turl = ssh://h/x\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n", false},
	} {
		es, err := ParseGitConfig([]byte(tc.config))
		if err != nil {
			t.Fatalf("%q: %v", tc.config, err)
		}
		var found []string
		for _, e := range es {
			if r := GitCodeKey(e); r != "" {
				found = append(found, e.Key()+": "+r)
			}
		}
		if (len(found) > 0) != tc.finds {
			t.Errorf("%q: findings %v, want findings: %v", tc.config, strings.Join(found, "; "), tc.finds)
		}
	}
}
