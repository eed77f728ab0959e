package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startTCPServer runs `permopa run --server` on a loopback port with HOME
// home (its tokens are written under home/.config/permopa at the first
// start) and returns its http:// address.
func startTCPServer(t *testing.T, home string, args ...string) string {
	t.Helper()
	for range 3 {
		port, err := distFreePort()
		if err != nil {
			t.Fatal(err)
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		cmd := exec.Command(permopaBin, append([]string{"run", "--server", "--skip-version-check", "--log-level", "error", "--addr", addr}, args...)...)
		cmd.Dir = home
		cmd.Env = append(withoutPermopaVars(os.Environ()), "HOME="+home, "XDG_CONFIG_HOME=", "PERMOPA_MANAGED_DIR="+filepath.Join(home, "managed"))
		logs := &lockedBuffer{}
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		if err := waitHealthy("http://"+addr, exited, time.Minute); err != nil {
			stopProcess(cmd, exited, syscall.SIGTERM)
			if strings.Contains(logs.String(), "address already in use") {
				continue
			}
			t.Fatalf("permopa run: %v\n%s", err, logs.String())
		}
		t.Cleanup(func() { stopProcess(cmd, exited, syscall.SIGTERM) })
		return "http://" + addr
	}
	t.Fatal("no free port")
	return ""
}

// The hook clients ask a TCP server only with its token (read from the
// file the server wrote at its first start); without one they send
// nothing and decide locally, or block when the server is required.
func TestHookClientsPresentTokenOverTCP(t *testing.T) {
	t.Parallel()
	cwd, home := hookWorkspace(t)
	addr := startTCPServer(t, home)
	if info, err := os.Stat(filepath.Join(home, ".config", "permopa", "server-token")); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the server's token file: %v %v", info, err)
	}
	payload := readPayload(t, "claude/pretooluse-bash-readonly.json", cwd)
	for _, run := range [][]string{{permopaBin, "hook", "claude", "--server", addr}, {hookClient(t), "claude", "--server", addr}} {
		out, errOut, code := hookExec(t, run[0], run[1:], []string{"HOME=" + home}, payload)
		if code != 0 || jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "allow" || strings.Contains(errOut, "deciding locally") {
			t.Errorf("%s with the token: exit %d %q %q", strings.Join(run, " "), code, out, errOut)
		}
		other := t.TempDir()
		out, errOut, code = hookExec(t, run[0], run[1:], []string{"HOME=" + other}, payload)
		if code != 0 || !strings.Contains(errOut, "not asked") || !strings.Contains(errOut, "deciding locally") {
			t.Errorf("%s without a token: exit %d %q %q", strings.Join(run, " "), code, out, errOut)
		}
		out, errOut, code = hookExec(t, run[0], append(run[1:], "--server-required"), []string{"HOME=" + other}, payload)
		if jsonPath(t, out, "hookSpecificOutput.permissionDecision") != "deny" && code != 2 {
			t.Errorf("%s without a token, server required: exit %d %q %q", strings.Join(run, " "), code, out, errOut)
		}
	}
}
