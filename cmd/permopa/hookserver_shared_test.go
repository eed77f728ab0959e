//go:build linux

package main_test

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"mvdan.cc/sh/v3/shell"
)

// The shared hook server: one user's setting (hookServerEnv) whose hook
// server the tests that only need "a hook server that answers" ask
// (TestHookServerThinClient, TestHookServerLog,
// TestHookServerLogOnlyTheHooksFile, TestHookServerConfiguredServer,
// TestSubdirectoryKeepsProjectDenyRules), instead of a server, its start
// and two policy compiles per test (issue 25, the quick suite). A test
// about the server's life (its start, lock, key, replaced binary, idle
// exit, kill, refusals) makes its own (newHookServerEnv). The setting's
// workspace and home are the shared workspace server's
// (sharedWorkspaceServer), the configured server the hooks of
// TestHookServerConfiguredServer ask.

var (
	sharedHookOnce sync.Once
	sharedHook     *hookServerEnv
	sharedHookErr  error
	// sharedHookCalls serialises the calls to the shared hook server: the
	// tests count its answered hooks around their own calls (status before
	// and after), which another test's call in between would change.
	// hookPayload takes it; a test counting around hookProcess takes it
	// itself (lockCalls).
	sharedHookCalls sync.Mutex
)

// sharedHookServerEnv is the shared setting, for t: its binaries, runtime
// directory, workspace and environment are every sharing test's; the
// server is started by the first hook that finds none, and killed after
// the last test (stopSharedServers). The hooks' idle time is longer than
// a loaded run of the package.
func sharedHookServerEnv(t *testing.T) *hookServerEnv {
	t.Helper()
	ws := sharedWorkspaceServer(t)
	local, client := hookLocal(t)
	sharedHookOnce.Do(func() {
		root, err := sharedDir()
		if err != nil {
			sharedHookErr = err
			return
		}
		h := &hookServerEnv{bin: filepath.Join(root, "bin"), rt: filepath.Join(root, "rt"), cwd: ws.cwd, home: ws.home}
		h.local, h.client = filepath.Join(h.bin, "permopa-hook-local"), filepath.Join(h.bin, "permopa-hook")
		for _, d := range []string{h.bin, h.rt} {
			if sharedHookErr = os.Mkdir(d, 0o700); sharedHookErr != nil {
				return
			}
		}
		for from, to := range map[string]string{local: h.local, client: h.client} {
			if sharedHookErr = copyExecutable(from, to); sharedHookErr != nil {
				return
			}
		}
		h.env = []string{"HOME=" + h.home, "XDG_RUNTIME_DIR=" + h.rt, "XDG_CACHE_HOME=" + filepath.Join(h.home, ".cache"),
			"PERMOPA_HOOK_SERVER=1", "PERMOPA_HOOK_SERVER_IDLE=30m"}
		h.calls = &sharedHookCalls
		sharedHook = h
		sharedMu.Lock()
		sharedStops = append(sharedStops, func() {
			for _, pid := range h.serverPids() {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		})
		sharedMu.Unlock()
	})
	if sharedHookErr != nil {
		t.Fatal(sharedHookErr)
	}
	s := sharedHook
	return &hookServerEnv{t: t, bin: s.bin, local: s.local, client: s.client, rt: s.rt, cwd: s.cwd, home: s.home,
		env: append([]string{}, s.env...), calls: s.calls}
}

// lockCalls holds the shared hook server's calls (sharedHookCalls) until
// the function it returns is called; for a setting of a test's own it
// holds nothing.
func (h *hookServerEnv) lockCalls() (unlock func()) {
	if h.calls == nil {
		return func() {}
	}
	h.calls.Lock()
	return h.calls.Unlock
}

// runApproveCommand runs the `permopa rules add …` command an ASK printed
// (cmd, shell words) in process (permopaAt), in dir with env: the rule it
// writes is what the tests read back through a server. A shell running the
// printed command as a process is TestHookAskApproveCommandRoundTrip's
// (issue 25, the quick suite).
func runApproveCommand(t *testing.T, cmd, dir string, env []string) {
	t.Helper()
	words, err := shell.Fields(cmd, func(string) string { return "" })
	if err != nil || len(words) < 3 || words[0] != "permopa" || words[1] != "rules" {
		t.Fatalf("%s: not a permopa rules command (%v)", cmd, err)
	}
	if out, errOut, code := permopaAt(t, dir, "", env, words[1:]...); code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", cmd, code, out, errOut)
	}
}
