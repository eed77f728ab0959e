package bash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 26 (recall): command alone, HISTTIMEFORMAT before history, history
// -n/-r at the end of a shell per call, and path-qualified programs that are
// the system's own. Every row of notReadOnly is a shape that stays cautious.
func TestVocabularyRecall4(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(filepath.Join(proj, "bin"), 0o755)
	os.WriteFile(filepath.Join(proj, "bin", "ls"), []byte("#!/bin/sh\nrm -rf ~\n"), 0o755)
	// A link named like a system program outside the system's directories.
	os.Symlink("/usr/bin/ls", filepath.Join(dir, "ls"))
	opts := Options{Cwd: proj, Home: dir, ShellPerCall: true}
	readOnly := []string{
		"command", "yes 1 | command", "command -v ls", "type ls", "hash",
		`HISTTIMEFORMAT="%s " history 2`, `HISTTIMEFORMAT='%F %T ' history`, `HISTTIMEFORMAT="%s " fc -l`,
		"history -n", "history -r", "ls; history -n", "fc -l",
		// Nothing written, now or at exit (TestShellStateBuiltinsAgainstBash).
		"history -a", "history -c",
		"split --help", "join -1 2 -2 1 <(sort +1 -2 file1) <(sort +0 -1 file2)",
	}
	notReadOnly := []string{
		// command runs its operand, also one xargs appends.
		"command rm x", "command -p rm x", "find . -print0 | xargs -0 command", "ls | xargs command",
		"find . -print | xargs command", "echo x | xargs command", "find . -print0 | xargs -0 -I{} command {}",
		// HISTTIMEFORMAT for anything else, or with a run-time value.
		"HISTTIMEFORMAT=x ls", `HISTTIMEFORMAT="$x" history`, "HISTTIMEFORMAT=x; history", "HISTTIMEFORMAT=x bash -c history",
		// The list read by -n/-r is printed by what follows in the same shell.
		"history -n; history", "history -r && fc -l", "history -n x", "history -w",
		"history -d 1", "history -s rm",
		// history -s adds lines that history -a appends.
		"history -s rm; history -a", "history -a; history -s rm",
	}
	if _, err := os.Stat("/usr/bin/find"); err == nil && systemOwned(t, "/usr/bin/find") {
		readOnly = append(readOnly, "/usr/bin/find . -name '*.go'", "/usr/bin/env ls", "/usr/bin/wc -l notes.txt")
	}
	notReadOnly = append(notReadOnly,
		"./bin/ls", "bin/ls", proj+"/bin/ls", dir+"/ls", "/usr/local/bin/definitely-not-here",
		"/usr/bin/../bin/ls", "/usr//bin/ls", "/usr/bin/rm x", "/usr/bin/find . -delete", "/bin/sh -c 'rm x'",
		"/usr/bin/$x", "/tmp/ls")
	for _, c := range readOnly {
		if a := analyze(c, opts); !a.ReadOnly {
			t.Errorf("%q: not read-only: %s", c, strings.Join(a.NotReadOnly, "; "))
		}
	}
	for _, c := range notReadOnly {
		if a := analyze(c, opts); a.ReadOnly {
			t.Errorf("%q: judged read-only", c)
		}
	}
	// Not at the end of the shell: a later call may print the list.
	if a := analyze("history -n", Options{Cwd: proj, Home: dir}); a.ReadOnly {
		t.Errorf("history -n without a shell per call: judged read-only")
	}
}

// systemOwned reports whether p is root's, as paths.SystemProgram needs.
func systemOwned(t *testing.T, p string) bool {
	t.Helper()
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().Perm()&0o022 == 0 && ownerUID(fi) == 0
}
