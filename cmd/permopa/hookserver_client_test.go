//go:build linux

package main_test

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A configured server (--server, PERMOPA_SERVER), --timeout,
// --server-timeout, --server-required and --trace are the hook server's
// too (issue 28): the thin client sends the command line and the server
// variables, and the hook server answers with the slow path's own code.
// Each answer is byte for byte the slow path's (`permopa-hook-local
// --hook-client <args>`, run here as a process of its own), for every
// host (the quick suite: one host per case and one flag set per path, -tags slow: every host and flag set), with a real `permopa run --server` on a unix socket as the
// configured server; an unreachable server decides locally, a required
// one blocks, a server that never answers blocks at --timeout, as the
// slow path does; and the hook server, not the slow path, answered.
func TestHookServerConfiguredServer(t *testing.T) {
	t.Parallel()
	// The shared hook server's setting has the shared workspace server's
	// workspace and home (its token).
	srv := sharedWorkspaceServer(t)
	h := sharedHookServerEnv(t)
	// A server that takes calls and never answers: a decision longer than
	// any --timeout.
	sockDir, err := os.MkdirTemp("", "phc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	hung := filepath.Join(sockDir, "hung.sock")
	ln, err := net.Listen("unix", hung)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	down := "unix://" + filepath.Join(sockDir, "none.sock")
	logs := t.TempDir()

	// The first call starts the hook server (unless another test's did).
	unlock := h.lockCalls()
	hookProcess(t, h.client, []string{"claude", "--server", srv.unix}, h.env, readPayload(t, "claude/pretooluse-bash-readonly.json", h.cwd))
	unlock()
	key := h.key()
	st := h.waitServer(key)

	files := []string{"claude/pretooluse-bash-compound-deny.json", "claude/pretooluse-bash-readonly.json", "codex/pretooluse-bash-deny.json", "gemini/beforetool-shell-deny.json"}
	cases := []struct {
		name    string
		args    []string
		env     []string
		blocks  bool // every answer blocks
		unready bool // the slow path's answer names the fallback
		// timesOut: the answer is one of two blocks (timedOut).
		timesOut bool
		// slow: another flag set or environment for a path a quick case
		// already takes (-tags slow only; issue 25, the quick suite).
		slow bool
	}{
		{name: "--server", args: []string{"--server", srv.unix}},
		{name: "PERMOPA_SERVER", env: []string{"PERMOPA_SERVER=" + srv.unix}, slow: true},
		{name: "--server= --timeout --server-timeout", args: []string{"--server=" + srv.unix, "--timeout", "60s", "--server-timeout=30s"}, slow: true},
		{name: "--server --mode --destination --ignore-host-mode", args: []string{"--server", srv.unix, "--mode", "plan", "--destination", "user", "--ignore-host-mode"}, slow: true},
		{name: "unreachable: decided locally", args: []string{"--server", down}, unready: true},
		{name: "unreachable and required: blocks", args: []string{"--server", down, "--server-required"}, blocks: true},
		{name: "PERMOPA_SERVER unreachable, PERMOPA_SERVER_REQUIRED: blocks", env: []string{"PERMOPA_SERVER=" + down, "PERMOPA_SERVER_REQUIRED=1"}, blocks: true, slow: true},
		{name: "required, none configured: blocks", env: []string{"PERMOPA_SERVER_REQUIRED=1"}, blocks: true, slow: true},
		{name: "--timeout shorter than the decision: blocks", args: []string{"--server", "unix://" + hung, "--timeout", "400ms", "--server-timeout", "60s"}, blocks: true, timesOut: true},
		{name: "--trace", args: []string{"--server", srv.unix, "--trace"}, slow: true},
		{name: "--log, answered by the server", args: []string{"--server", srv.unix, "--log", filepath.Join(logs, "served.jsonl")}},
		{name: "--log, decided locally", args: []string{"--server", down, "--log", filepath.Join(logs, "local.jsonl")}, unready: true},
	}
	served, calls := 0, 0
	runs := map[string]int{} // the calls of each case
	for i, c := range cases {
		if c.slow && !slowTests {
			continue
		}
		for j, file := range files {
			// The quick suite runs each case (each flag set and path) with
			// one host, a different one case after case; -tags slow runs
			// every host with every case (issue 25, the quick suite).
			if !slowTests && j != i%len(files) {
				continue
			}
			runs[c.name]++
			host := strings.Split(file, "/")[0]
			payload := readPayload(t, file, h.cwd)
			args := append([]string{host}, c.args...)
			unlock := h.lockCalls()
			before, _ := h.status(key)
			got, gotErr, gotCode := hookProcess(t, h.client, args, append(append([]string{}, h.env...), c.env...), payload)
			if now, ok := h.status(key); ok && now.Pid == st.Pid && now.Answered == before.Answered+1 {
				served++
			}
			unlock()
			calls++
			want, wantErr, wantCode := hookProcess(t, h.local, append([]string{"--hook-client"}, args...), append(append([]string{}, h.env...), c.env...), payload)
			switch {
			case c.name == "--trace":
				// The phases' times differ from call to call.
				gotErr, wantErr = untraced(gotErr), untraced(wantErr)
			case c.timesOut:
				// At the deadline the configured server's client gives up
				// too, and hookproto.Run answers with whichever of the two
				// blocks it sees first, in either path.
				got, gotErr, want, wantErr = timedOut(got), timedOut(gotErr), timedOut(want), timedOut(wantErr)
			}
			if got != want || gotErr != wantErr || gotCode != wantCode {
				t.Errorf("%s, %s: served: exit %d stdout %q stderr %q; slow path: exit %d stdout %q stderr %q", c.name, file, gotCode, got, gotErr, wantCode, want, wantErr)
			}
			if c.blocks && !blocked(host, got, gotCode) {
				t.Errorf("%s, %s: exit %d stdout %q stderr %q; want a block", c.name, file, gotCode, got, gotErr)
			}
			if c.unready != strings.Contains(gotErr, "; deciding locally") {
				t.Errorf("%s, %s: stderr %q; want the unreachable server named: %v", c.name, file, gotErr, c.unready)
			}
		}
	}
	// Each call logged once by each path, by the server or the local
	// decision.
	for name, c := range map[string]string{"served.jsonl": "--log, answered by the server", "local.jsonl": "--log, decided locally"} {
		raw, err := os.ReadFile(filepath.Join(logs, name))
		if n := strings.Count(string(raw), "\n"); err != nil || n != 2*runs[c] || runs[c] == 0 {
			t.Errorf("%s: %d entries (%v), want %d", name, n, err, 2*runs[c])
		}
	}
	// On a loaded machine a call may miss the server (the slow path then
	// answers, the same way): most must be the server's.
	if served < calls-2 {
		t.Errorf("the hook server answered %d of %d calls", served, calls)
	}
}

// timedOut is s with the reason of a block at --timeout, either of the
// two (the deadline's, or the configured server's client's), as one.
func timedOut(s string) string {
	s = regexp.MustCompile(`no decision within [0-9a-zµ.]+ \(context deadline exceeded\)`).ReplaceAllString(s, "TIMEOUT")
	return regexp.MustCompile(`permopa server [^ ]+ gave no answer within [0-9a-zµ.]+`).ReplaceAllString(s, "TIMEOUT")
}

// untraced is stderr without --trace's phase lines and the note naming
// who answered.
func untraced(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "permopa trace:") && !strings.HasPrefix(l, "permopa-hook: answered by") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
