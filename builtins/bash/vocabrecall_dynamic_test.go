package bash

import (
	"os"
	"os/exec"
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
	quick := tracedSlowOnly() // TestHostileRunAllKeepsCommandsApart proves the runner quick
	for _, c := range cmds {
		a := analyze(c, opts)
		if !a.ReadOnly {
			if strings.HasPrefix(c, "/") && !systemOwned(t, strings.Fields(c)[0]) {
				continue // not the system's program here
			}
			t.Errorf("%q: not read-only: %s", c, strings.Join(a.NotReadOnly, "; "))
			continue
		}
		// Every form is analysed; .ci/run (-tags slow) traces them all
		// (tracedSlowOnly, docs/development.md).
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

// TestVocabularyRecallVTraced (issue 26): clear, rgrep and who --ips run
// under strace in the dynamic check's fixture and write nothing, run
// nothing but the system's programs and open no credential; rgrep over the
// home names the credential tree it reads (the policy's to refuse). Every
// case is judged in the quick suite and traced with -tags slow (issue 25;
// TestHostileRunAllKeepsCommandsApart proves the runner quick).
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
	cmds := []string{"clear", "clear -x", "clear -T xterm", "echo `clear`", "rgrep TODO", "rgrep -l TODO . | wc -l",
		"rgrep -n x notes.txt", "who am i --ips", "who --ips"}
	var runs []hostileCase
	for _, c := range cmds {
		a := analyze(c, opts)
		if !a.ReadOnly {
			t.Errorf("%q: not read-only: %s", c, strings.Join(a.NotReadOnly, "; "))
			continue
		}
		if slowTests {
			runs = append(runs, hostileCase{c, a})
		}
	}
	for k, found := range hostileRunAll(t, d, root, runs, filepath.Join(root, "no-script"), filepath.Join(root, "home/.ssh/id_rsa")) {
		if len(found) > 0 {
			t.Errorf("judged read-only, but %q: %s", runs[k].cmd, strings.Join(found, "\n\t"))
		}
	}
	if slowTests {
		getentLoadsProjectModule(t, opts)
	}
	// Judged as grep -r: the home's tree, credentials included, is read.
	if a := analyze("cd ~ && rgrep x", opts); !namesRead(a, root+"/home/.ssh/id_rsa") {
		t.Errorf("rgrep in the home does not name ~/.ssh/id_rsa among its reads: %s", brief(a))
	}
}

// getentLoadsProjectModule: getent -s x/evil loads ./libnss_x/evil.so.2, a
// library the project holds, and runs its code; the analysis must not
// call it read-only (flagspec's getent). The library is built with the
// system's C compiler and getent runs for real, so the hazard is shown.
func getentLoadsProjectModule(t *testing.T, opts Options) {
	t.Helper()
	const cmd = "getent -s x/evil passwd root"
	if a := analyze(cmd, opts); a.ReadOnly {
		t.Errorf("%q: judged read-only, but it loads a module of the project", cmd)
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Log("no C compiler: getent's module load not shown")
		return
	}
	if _, err := exec.LookPath("getent"); err != nil {
		t.Log("no getent: its module load not shown")
		return
	}
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran")
	src := filepath.Join(dir, "evil.c")
	code := "#include <stdio.h>\n__attribute__((constructor)) static void run(void) { FILE *f = fopen(\"" + mark + "\", \"w\"); if (f) fclose(f); }\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "libnss_x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", filepath.Join(dir, "libnss_x", "evil.so.2"), src).CombinedOutput(); err != nil {
		t.Logf("cc: %v %s: getent's module load not shown", err, out)
		return
	}
	run := exec.Command("getent", "-s", "x/evil", "passwd", "root")
	run.Dir = dir
	run.Run() // its status does not matter, only whether the code ran
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("getent -s x/evil did not run ./libnss_x/evil.so.2: the case proves nothing")
	}
}
