package bash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVocabularyRecall4Traced (issue 26): the read-only forms of
// TestVocabularyRecall4 run under strace in the dynamic check's fixture
// and write nothing, run nothing but the system's programs and open no
// credential.
func TestVocabularyRecall4Traced(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-vocab4-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	copyFixture(t, d, root)
	opts := realWorldOpts(root)
	cmds := []string{
		"split --help", "csplit --version", "rm --help", "touch --version", "tee --help", "dd --help",
		"sort +1 -2 notes.txt", "sort -r +0 -1 other.txt notes.txt",
		`HISTTIMEFORMAT="%s " history 2`, "history -n", "history -r", "fc -l", "fc -lnr 1 5",
		"command", "yes 1 | head -3 | command", "command -v ls",
		"/usr/bin/find . -name '*.go'", "/bin/ls -la", "/usr/bin/env ls", "/usr/bin/wc -l notes.txt",
	}
	var runs []hostileCase
	for _, c := range cmds {
		a := analyze(c, opts)
		if !a.ReadOnly {
			if strings.HasPrefix(c, "/") && !systemOwned(t, strings.Fields(c)[0]) {
				continue // not the system's program here
			}
			t.Errorf("%q: not read-only: %s", c, strings.Join(a.NotReadOnly, "; "))
			continue
		}
		runs = append(runs, hostileCase{c, a})
	}
	for k, found := range hostileRunAll(t, d, root, runs, filepath.Join(root, "no-script"), filepath.Join(root, "home/.ssh/id_rsa")) {
		if len(found) > 0 {
			t.Errorf("judged read-only, but %q: %s", runs[k].cmd, strings.Join(found, "\n\t"))
		}
	}
}

// TestVocabularyRecallVTraced (issue 26): clear, rgrep and who --ips run
// under strace in the dynamic check's fixture and write nothing, run
// nothing but the system's programs and open no credential; rgrep over the
// home names the credential tree it reads (the policy's to refuse). One
// case runs in the quick suite, all with -tags slow (issue 25).
func TestVocabularyRecallVTraced(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-vocabV-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	copyFixture(t, d, root)
	opts := realWorldOpts(root)
	cmds := []string{"clear"}
	if slowTests {
		cmds = append(cmds, "clear -x", "clear -T xterm", "echo `clear`", "rgrep TODO", "rgrep -l TODO . | wc -l",
			"rgrep -n x notes.txt", "who am i --ips", "who --ips")
	}
	var runs []hostileCase
	for _, c := range cmds {
		a := analyze(c, opts)
		if !a.ReadOnly {
			t.Errorf("%q: not read-only: %s", c, strings.Join(a.NotReadOnly, "; "))
			continue
		}
		runs = append(runs, hostileCase{c, a})
	}
	for k, found := range hostileRunAll(t, d, root, runs, filepath.Join(root, "no-script"), filepath.Join(root, "home/.ssh/id_rsa")) {
		if len(found) > 0 {
			t.Errorf("judged read-only, but %q: %s", runs[k].cmd, strings.Join(found, "\n\t"))
		}
	}
	// Judged as grep -r: the home's tree, credentials included, is read.
	if a := analyze("cd ~ && rgrep x", opts); !namesRead(a, root+"/home/.ssh/id_rsa") {
		t.Errorf("rgrep in the home does not name ~/.ssh/id_rsa among its reads: %s", brief(a))
	}
}
