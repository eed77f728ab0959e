package main_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/permopa/permopa/adapter/hookproto"
)

// --log on the served call (issues 25 and 28): `permopa-hook claude --log
// FILE`, the command docs/replay.md shows, is answered by the hook server,
// which writes the entry permopa-hook-local writes (the same event but for
// its id and time), to the file the hook opened (created 0600 in a
// directory created 0700). A log the hook cannot open is said once in the
// answer and the call is decided all the same.
func TestHookServerLog(t *testing.T) {
	t.Parallel()
	h := sharedHookServerEnv(t)
	h.hook("claude", "claude/pretooluse-bash-compound-deny.json")
	key := h.key()
	h.waitServer(key)
	payload := readPayload(t, "claude/pretooluse-bash-readonly.json", h.cwd)
	// served runs the thin client with args and reports whether the server
	// answered it (its count of answered hooks); a loaded machine may leave
	// a call to the local decider (2 s): tried again, after reset.
	served := func(reset func(), args ...string) (out, errOut string, code int) {
		t.Helper()
		for range 3 {
			unlock := h.lockCalls()
			reset()
			before, _ := h.status(key)
			out, errOut, code = hookProcess(t, h.client, args, h.env, payload)
			now, ok := h.status(key)
			unlock()
			if ok && now.Answered == before.Answered+1 {
				return out, errOut, code
			}
		}
		t.Fatalf("%q: not answered by the hook server three times; stderr %q", args, errOut)
		return
	}

	stateDir := filepath.Join(h.home, ".local", "state", "permopa")
	localLog, servedLog := filepath.Join(stateDir, "local.jsonl"), filepath.Join(stateDir, "served", "calls.jsonl")
	want, wantErr, wantCode := hookProcess(t, h.local, []string{"claude", "--timeout", "120s", "--log", localLog}, h.env, payload)
	got, gotErr, gotCode := served(func() { os.RemoveAll(filepath.Dir(servedLog)) }, "claude", "--log", servedLog)
	if got != want || gotErr != wantErr || gotCode != wantCode || !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Errorf("served with --log: exit %d stdout %q stderr %q; permopa-hook-local: exit %d stdout %q stderr %q", gotCode, got, gotErr, wantCode, want, wantErr)
	}
	if a, b := logEvents(t, localLog), logEvents(t, servedLog); len(a) != 1 || !reflect.DeepEqual(a, b) {
		t.Errorf("the served call's log entry differs from permopa-hook-local's:\n%v\n%v", b, a)
	}
	for path, want := range map[string]os.FileMode{servedLog: 0o600, filepath.Dir(servedLog): 0o700 | os.ModeDir} {
		if fi, err := os.Stat(path); err != nil || fi.Mode() != want {
			t.Errorf("%s: %v %v, want mode %v", path, fi, err, want)
		}
	}

	// A log that cannot be written (its parent is a file): said once, in
	// the answer, the call allowed all the same.
	blocker := filepath.Join(h.home, "blocker")
	must(t, os.WriteFile(blocker, nil, 0o600))
	bad := filepath.Join(blocker, "calls.jsonl")
	noReset := func() {}
	out, errOut, code := served(func() { os.RemoveAll(filepath.Join(h.home, ".cache", "permopa")) }, "claude", "--log", bad)
	if code != 0 || !strings.Contains(out, `"permissionDecision":"allow"`) || !strings.Contains(out, `"systemMessage":"permopa: the decision log `+bad+` is not written (decision log: mkdir `+blocker+`: not a directory)`) {
		t.Errorf("unwritable log, first call: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = served(noReset, "claude", "--log", bad)
	if code != 0 || !strings.Contains(out, `"permissionDecision":"allow"`) || strings.Contains(out, "systemMessage") {
		t.Errorf("unwritable log, second call: said again, or not allowed: exit %d\n%s%s", code, out, errOut)
	}
}

// The hook server never opens a --log path: it writes to the file the hook
// opened with its own permissions and sent (a regular file open for
// appending), so a request cannot point it at a file the requester could
// not write. A request with --log and no file, with a file that is not a
// regular one open for appending, or with a file and no --log, is refused
// (the hook then decides locally); one that says why the hook could not
// open its log gets the notice, and nothing is created at the path.
func TestHookServerLogOnlyTheHooksFile(t *testing.T) {
	t.Parallel()
	h := sharedHookServerEnv(t)
	h.hook("claude", "claude/pretooluse-bash-compound-deny.json")
	key := h.key()
	h.waitServer(key)
	payload := readPayload(t, "claude/pretooluse-bash-readonly.json", h.cwd)
	dir, err := hookproto.OpenHookServerDir(h.dir())
	must(t, err)
	defer dir.Close()
	target := filepath.Join(t.TempDir(), "target.jsonl") // a file the requester names
	ask := func(logPath string, fd int, logErr string) (hookproto.ServeAnswer, error) {
		args := []string{"--destination", "local"}
		if logPath != "" {
			args = append(args, "--log", logPath)
		}
		req := hookproto.ServeRequest{Op: "hook", Env: hookproto.DecisionEnv(h.fullEnv()), Host: "claude", Args: args, Payload: []byte(payload), LogFD: fd, LogErr: logErr}
		return hookproto.AskHookServer(context.Background(), dir, key, req, 60*time.Second)
	}
	openFD := func(path string, flags int) int {
		fd, err := syscall.Open(path, flags|syscall.O_CREAT|syscall.O_CLOEXEC, 0o600)
		must(t, err)
		t.Cleanup(func() { syscall.Close(fd) })
		return fd
	}
	other := filepath.Join(t.TempDir(), "other.jsonl")
	var pipe [2]int
	must(t, syscall.Pipe2(pipe[:], syscall.O_CLOEXEC))
	defer syscall.Close(pipe[0])
	defer syscall.Close(pipe[1])
	// Each request is a hook call (the shared server's count).
	defer h.lockCalls()()
	for _, c := range []struct {
		name   string
		path   string
		fd     int
		logErr string
		refuse string // "" answered
	}{
		{"no file", target, 0, "", "--log without the file the hook opened"},
		{"read-only file", target, openFD(other, syscall.O_RDONLY), "", "not open for appending"},
		{"not appending", target, openFD(other, syscall.O_WRONLY), "", "not open for appending"},
		{"a pipe", target, pipe[1], "", "not a regular file"},
		{"a file without --log", "", openFD(other, syscall.O_WRONLY|syscall.O_APPEND), "", "a log file without --log"},
		{"relative", "target.jsonl", openFD(other, syscall.O_WRONLY|syscall.O_APPEND), "", "relative --log"},
		{"the hook's error", target, 0, "open " + target + ": permission denied", ""},
		{"another file than the path", target, openFD(other, syscall.O_WRONLY|syscall.O_APPEND), "", ""},
	} {
		ans, err := ask(c.path, c.fd, c.logErr)
		switch {
		case c.refuse != "" && (err == nil || !strings.Contains(ans.Refused, c.refuse)):
			t.Errorf("%s: answered %+v (%v); want refused: %s", c.name, ans, err, c.refuse)
		case c.refuse == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.logErr != "" && !strings.Contains(string(ans.Stdout), "decision log "+target+" is not written (decision log: "+c.logErr+")"):
			t.Errorf("%s: %s; want the notice", c.name, ans.Stdout)
		}
		if _, err := os.Lstat(target); err == nil {
			t.Fatalf("%s: the server created %s, the path it was named", c.name, target)
		}
	}
	if ev := logEvents(t, other); len(ev) != 1 {
		t.Errorf("%s: %d events; want the one of the request that sent it", other, len(ev))
	}
}

// logEvents are the events of a decision log, without their id and time.
func logEvents(t *testing.T, path string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if line == "" {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%s: %v: %s", path, err, line)
		}
		delete(ev, "decision_id")
		delete(ev, "timestamp")
		out = append(out, ev)
	}
	return out
}
