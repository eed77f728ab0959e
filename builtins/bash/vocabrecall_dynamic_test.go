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
	quick := quickFirst{}
	for _, c := range cmds {
		a := analyze(c, opts)
		if !a.ReadOnly {
			if strings.HasPrefix(c, "/") && !systemOwned(t, strings.Fields(c)[0]) {
				continue // not the system's program here
			}
			t.Errorf("%q: not read-only: %s", c, strings.Join(a.NotReadOnly, "; "))
			continue
		}
		// Every form is analysed; without -tags slow the first is
		// traced; .ci/run traces them all (quickFirst,
		// docs/development.md).
		if quick.take("clean") {
			runs = append(runs, hostileCase{c, a})
		}
	}
	for k, found := range hostileRunAll(t, d, root, runs, filepath.Join(root, "no-script"), filepath.Join(root, "home/.ssh/id_rsa")) {
		if len(found) > 0 {
			t.Errorf("judged read-only, but %q: %s", runs[k].cmd, strings.Join(found, "\n\t"))
		}
	}
}
