package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --log, as docs/replay.md shows it, works in every hook binary (issue
// 25): `permopa hook`, permopa-hook (deciding locally through
// permopa-hook-local, which gets --log too) and permopa-hook-local. A
// missing directory is created 0700; a log that cannot be written is said
// once, in the answer the host shows its user (systemMessage), and the
// call is decided all the same.
func TestHookLogInEveryHookBinary(t *testing.T) {
	t.Parallel()
	local, client := hookLocal(t)
	for _, b := range []struct {
		name string
		bin  string
		args []string
	}{
		{"permopa hook", permopaBin, []string{"hook", "claude"}},
		{"permopa-hook", client, []string{"claude"}},
		{"permopa-hook-local", local, []string{"claude"}},
	} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			cwd, home := hookWorkspace(t)
			env := []string{"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache")}
			payload := readPayload(t, "claude/pretooluse-bash-readonly.json", cwd)
			logFile := filepath.Join(home, ".local", "state", "permopa", "calls.jsonl")
			out, errOut, code := hookExec(t, b.bin, append(b.args, "--log", logFile), env, payload)
			if code != 0 || !strings.Contains(out, `"permissionDecision":"allow"`) || strings.Contains(out, "systemMessage") {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			data, err := os.ReadFile(logFile)
			if err != nil || strings.Count(string(data), "\n") != 1 || !strings.Contains(string(data), "git status --short") {
				t.Errorf("log %s: %v\n%s", logFile, err, data)
			}
			if fi, err := os.Stat(filepath.Dir(logFile)); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("log directory: %v %v", fi, err)
			}
			// A log that cannot be written: its parent is a file.
			blocker := filepath.Join(home, "blocker")
			must(t, os.WriteFile(blocker, nil, 0o600))
			bad := filepath.Join(blocker, "calls.jsonl")
			out, errOut, code = hookExec(t, b.bin, append(b.args, "--log", bad), env, payload)
			if code != 0 || !strings.Contains(out, `"permissionDecision":"allow"`) || !strings.Contains(out, `"systemMessage":"permopa: the decision log `+bad+` is not written`) {
				t.Errorf("unwritable log, first call: exit %d\n%s%s", code, out, errOut)
			}
			// Said once: the notice's record (decisionlog) is one code
			// for every binary; the quick suite holds it in `permopa
			// hook` (in process), -tags slow in the processes too
			// (issue 25, the quick suite).
			if !slowTests && b.bin != permopaBin {
				return
			}
			out, errOut, code = hookExec(t, b.bin, append(b.args, "--log", bad), env, payload)
			if code != 0 || !strings.Contains(out, `"permissionDecision":"allow"`) || strings.Contains(out, "systemMessage") {
				t.Errorf("unwritable log, second call: said again, or not allowed: exit %d\n%s%s", code, out, errOut)
			}
		})
	}
}
