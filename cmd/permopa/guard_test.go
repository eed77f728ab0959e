package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hook clients ask a TCP server only with its token (read from the
// file the server wrote at its first start); without one they send
// nothing and decide locally, or block when the server is required.
func TestHookClientsPresentTokenOverTCP(t *testing.T) {
	t.Parallel()
	s := sharedWorkspaceServer(t)
	cwd, home, addr := s.cwd, s.home, s.tcp
	if info, err := os.Stat(filepath.Join(home, ".config", "permopa", "server-token")); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the server's token file: %v %v", info, err)
	}
	payload := readPayload(t, "claude/pretooluse-bash-readonly.json", cwd)
	for i, run := range [][]string{{permopaBin, "hook", "claude", "--server", addr}, {hookClient(t), "claude", "--server", addr}} {
		out, errOut, code := hookExec(t, run[0], run[1:], []string{"HOME=" + home}, payload)
		if code != 0 || jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "allow" || strings.Contains(errOut, "deciding locally") {
			t.Errorf("%s with the token: exit %d %q %q", strings.Join(run, " "), code, out, errOut)
		}
		// Each is a permopa process (TCP: the token file is read from the
		// process's environment): without -tags slow each client meets
		// one of the two calls without a token, the client the one that
		// decides locally (issue 25, the quick suite).
		other := t.TempDir()
		if slowTests || i == 1 {
			out, errOut, code = hookExec(t, run[0], run[1:], []string{"HOME=" + other}, payload)
			if code != 0 || !strings.Contains(errOut, "not asked") || !strings.Contains(errOut, "deciding locally") {
				t.Errorf("%s without a token: exit %d %q %q", strings.Join(run, " "), code, out, errOut)
			}
		}
		if !slowTests && i == 1 {
			continue
		}
		out, errOut, code = hookExec(t, run[0], append(run[1:], "--server-required"), []string{"HOME=" + other}, payload)
		if jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "deny" && code != 2 {
			t.Errorf("%s without a token, server required: exit %d %q %q", strings.Join(run, " "), code, out, errOut)
		}
	}
}
