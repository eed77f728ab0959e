package main_test

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	permopacmd "github.com/permopa/permopa/cmd/permopa"
)

// TestServerQuickStart follows docs/usage.md's server quick start as a normal
// user: `permopa run --server` with no --addr listens on the per-user
// socket in a private runtime directory; the hooks (`permopa hook` and
// permopa-hook) ask it without being told, and PERMOPA_SERVER= keeps them
// local; a rule added with `permopa rules add` and an edit of a settings file
// apply at the next check, without a restart; a second server is refused;
// a socket left by a killed server is replaced.
func TestServerQuickStart(t *testing.T) {
	t.Parallel()
	rt := shortTempDir(t)
	home, project := t.TempDir(), t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PERMOPA_") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "XDG_RUNTIME_DIR="+rt, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	sock := filepath.Join(rt, "permopa", "permopa.sock")

	start := func() *exec.Cmd {
		cmd := exec.Command(permopaBin, "run", "--server", "--skip-version-check", "--log-level", "error")
		cmd.Dir, cmd.Env = home, env
		var logs strings.Builder
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		t.Cleanup(func() { cmd.Process.Kill(); <-exited })
		for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			select {
			case <-exited:
				t.Fatalf("permopa run --server exited: %s", logs.String())
			default:
			}
			if c, err := net.Dial("unix", sock); err == nil {
				c.Close()
				return cmd
			}
			if time.Now().After(deadline) {
				t.Fatalf("no server on %s: %s", sock, logs.String())
			}
		}
	}
	server := start()
	info, err := os.Stat(filepath.Dir(sock))
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("socket directory: %v %v", info.Mode(), err)
	}
	if st, _ := info.Sys().(*syscall.Stat_t); st == nil || int(st.Uid) != os.Getuid() {
		t.Fatalf("socket directory owner: %+v", info.Sys())
	}

	payload := `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"` + project + `","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"npm install --ignore-scripts lodash"}}`
	// Both hook commands a host may run: `permopa hook` and the small
	// permopa-hook client, neither told where the server is.
	clients := map[string]string{"permopa hook": permopaBin, "permopa-hook": hookClient(t)}
	// bin "" is `permopa hook` run in process, through the command tree
	// main runs, in the project with env (procEnv): what that process
	// answers, without its start (issue 25, the quick suite).
	hookWith := func(bin string, extraEnv ...string) (decision, trace string) {
		if bin == "" {
			var out, errb bytes.Buffer
			p := permopacmd.ProcEnv{Dir: project, Environ: append(append([]string(nil), env...), extraEnv...), Executable: permopaBin}
			if code := permopacmd.Run([]string{"hook", "claude", "--trace"}, strings.NewReader(payload), &out, &errb, p); code != 0 {
				t.Fatalf("permopa hook in process: exit %d\n%s%s", code, out.String(), errb.String())
			}
			return jsonPath(t, out.String(), "hookSpecificOutput.permissionDecision"), errb.String()
		}
		cmd := exec.Command(bin, "hook", "claude", "--trace")
		if bin != permopaBin {
			cmd = exec.Command(bin, "claude", "--trace")
		}
		cmd.Dir, cmd.Env = project, append(append([]string(nil), env...), extraEnv...)
		cmd.Stdin = strings.NewReader(payload)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s%s", bin, err, out.String(), errb.String())
		}
		return jsonPath(t, out.String(), "hookSpecificOutput.permissionDecision"), errb.String()
	}
	// The wait polls with `permopa hook` in process (no process start a
	// poll); once it sees the change, both clients must, as processes.
	hook := func() (decision, trace string) { return hookWith("") }
	// Once the server has seen a change, every client must get its answer
	// as a process (each a start and OPA's initialisation; permopa-hook's
	// slow path here is a permopa process too): at the first step in the
	// quick suite, at every step with -tags slow (issue 25, the quick
	// suite). At the later steps of the quick suite, the in-process poll
	// is the server's answer; without a server (PERMOPA_SERVER=, the
	// server killed) permopa-hook is a process and `permopa hook` runs in
	// process.
	everyClient := true
	// proc is the client that runs: `permopa hook` in process after the
	// first step in the quick suite.
	proc := func(bin string) string {
		if !everyClient && bin == permopaBin {
			return ""
		}
		return bin
	}
	waitFor := func(want, why string) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			got, trace := hook()
			if got == want && strings.Contains(trace, "trace: server") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the server answers %q, want %q\n%s", why, got, want, trace)
			}
		}
		// The server has seen the change: every client gets its answer.
		if !everyClient {
			return
		}
		for name, bin := range clients {
			if got, trace := hookWith(proc(bin)); got != want || !strings.Contains(trace, "trace: server") {
				t.Errorf("%s: %s answers %q, want %q from the server\n%s", why, name, got, want, trace)
			}
		}
	}
	waitFor("ask", "no rule yet")
	everyClient = slowTests
	// PERMOPA_SERVER set and empty: the user's choice to decide locally.
	for name, bin := range clients {
		if got, trace := hookWith(proc(bin), "PERMOPA_SERVER="); got != "ask" || strings.Contains(trace, "trace: server") {
			t.Errorf("PERMOPA_SERVER=: %s answers %q\n%s", name, got, trace)
		}
	}

	// The command an ASK recommends, run in the project (in process: rules
	// reads its directory and environment from the command tree; the
	// command as a process is held by TestHookAskApproveCommandRoundTrip).
	if out, errOut, code := permopaAt(t, project, "", env, "rules", "add", "--destination", "local", "Bash(npm install:*)"); code != 0 {
		t.Fatalf("permopa rules add: exit %d\n%s%s", code, out, errOut)
	}
	waitFor("allow", "after permopa rules add")

	// An edit of the user's settings file: a deny rule wins.
	user := filepath.Join(home, ".config", "permopa", "settings.yaml")
	if err := os.MkdirAll(filepath.Dir(user), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte("permissions:\n  deny: [\"Bash(npm install:*)\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor("deny", "after editing the user's settings")

	// A second server on the same socket is refused.
	second := exec.Command(permopaBin, "run", "--server", "--skip-version-check")
	second.Dir, second.Env = home, env
	if out, err := second.CombinedOutput(); err == nil || !strings.Contains(string(out), "already listens") {
		t.Errorf("a second server: %v %s", err, out)
	}

	// Killed, the server leaves its socket: the hook decides locally and
	// says so; a new server replaces the socket.
	server.Process.Kill()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("unix", sock); err != nil {
			break
		} else {
			c.Close()
		}
		if time.Now().After(deadline) {
			t.Fatal("the killed server still answers")
		}
	}
	// In the quick suite `permopa hook` judges this in process; permopa-hook
	// as a process (its client's fallback to deciding locally when the
	// server does not answer is proved quick by TestHookServerConfiguredServer's
	// "unreachable: decided locally") with -tags slow (issue 25, the quick
	// suite).
	for name, bin := range clients {
		if !slowTests && bin != permopaBin {
			continue
		}
		if got, trace := hookWith(proc(bin)); got != "deny" || !strings.Contains(trace, "deciding locally") {
			t.Errorf("no server: %s answers %q\n%s", name, got, trace)
		}
	}
	start()
	waitFor("deny", "a new server")
}
