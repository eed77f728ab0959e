package hookproto

import (
	"bytes"
	"reflect"
	"slices"
	"testing"
	"time"
)

// The environment a server answers for is what a decision reads, and
// nothing that only says how to reach a server.
func TestDecisionEnv(t *testing.T) {
	env := DecisionEnv([]string{
		"PATH=/bin", "HOME=/home/a", "TERM=xterm", "PERMOPA_DENY=Bash(rm:*)", "PERMOPA_CONFIG_DIR=/c",
		"PERMOPA_MANAGED_DIR=/m", "XDG_CONFIG_HOME=/x", "XDG_CACHE_HOME=/y", "XDG_RUNTIME_DIR=/run/user/1",
		"PERMOPA_SERVER=unix:///s", "PERMOPA_SERVER_REQUIRED=1", "PERMOPA_SERVER_TOKEN_FILE=/t",
		"PERMOPA_HOOK_SERVER=1", "PERMOPA_HOOK_SERVER_IDLE=1m", "CLAUDE_PROJECT_DIR=/p", "RUSTUP_HOME=/r",
		"CDPATH=/src", "BASHOPTS=nullglob", "GLOBIGNORE=.*",
	})
	want := []string{"BASHOPTS=nullglob", "CDPATH=/src", "CLAUDE_PROJECT_DIR=/p", "GLOBIGNORE=.*", "HOME=/home/a", "PERMOPA_CONFIG_DIR=/c", "PERMOPA_DENY=Bash(rm:*)", "PERMOPA_MANAGED_DIR=/m", "RUSTUP_HOME=/r", "XDG_CACHE_HOME=/y", "XDG_CONFIG_HOME=/x"}
	if !slices.Equal(env, want) {
		t.Errorf("DecisionEnv = %q, want %q", env, want)
	}
	id := BinaryIdentity{Dev: 1, Ino: 2, Size: 3, MtimeNs: 4}
	base := HookServerKey(id, 1000, want)
	for name, other := range map[string]string{
		"inode": HookServerKey(BinaryIdentity{Dev: 1, Ino: 9, Size: 3, MtimeNs: 4}, 1000, want),
		"mtime": HookServerKey(BinaryIdentity{Dev: 1, Ino: 2, Size: 3, MtimeNs: 5}, 1000, want),
		"size":  HookServerKey(BinaryIdentity{Dev: 1, Ino: 2, Size: 4, MtimeNs: 4}, 1000, want),
		"user":  HookServerKey(id, 1001, want),
		"env":   HookServerKey(id, 1000, append(slices.Clone(want), "PERMOPA_ALLOW=Read")),
	} {
		if other == base {
			t.Errorf("another %s gives the same key %s", name, base)
		}
	}
	if len(base) != 16 {
		t.Errorf("key %q: want 16 hex digits", base)
	}
}

// Every field of both messages goes through a frame and back; a frame
// that is not the protocol's (another version's, JSON, HTTP), too large,
// cut short, with a field the message does not have, or a number that
// does not parse is refused.
func TestFrames(t *testing.T) {
	req := ServeRequest{Op: "hook", Key: "0123456789abcdef", Env: []string{"HOME=/h", "PERMOPA_X=a\x00b"}, Host: "codex", Args: []string{"--mode", "plan"}, Payload: []byte(`{"cwd":"/w"}`), LogErr: "open /l: permission denied",
		ClientEnv: []string{"PERMOPA_SERVER=unix:///s.sock", "PERMOPA_SERVER_REQUIRED="}, DefaultServer: "unix:///run/permopa.sock"}
	ans := ServeAnswer{Pid: 4242, Key: "0123456789abcdef", Refused: "no", Stdout: []byte("{}\n"), Stderr: "note\n", Exit: 2,
		Started: time.Unix(1700000000, 123456789), Answered: 1 << 40, Idle: "15m0s"}
	var buf bytes.Buffer
	if err := WriteFrame(&buf, req); err != nil {
		t.Fatal(err)
	}
	var gotReq ServeRequest
	if err := ReadFrame(&buf, &gotReq); err != nil || !reflect.DeepEqual(gotReq, req) {
		t.Fatalf("request round trip: %+v %v, want %+v", gotReq, err, req)
	}
	if err := WriteFrame(&buf, &ans); err != nil {
		t.Fatal(err)
	}
	var gotAns ServeAnswer
	if err := ReadFrame(&buf, &gotAns); err != nil || !gotAns.Started.Equal(ans.Started) {
		t.Fatalf("answer round trip: %+v %v, want %+v", gotAns, err, ans)
	}
	gotAns.Started = ans.Started
	if !reflect.DeepEqual(gotAns, ans) {
		t.Fatalf("answer round trip: %+v, want %+v", gotAns, ans)
	}
	// A negative exit status survives (it is refused later, not here).
	buf.Reset()
	WriteFrame(&buf, ServeAnswer{Exit: -1})
	if err := ReadFrame(&buf, &gotAns); err != nil || gotAns.Exit != -1 {
		t.Errorf("exit -1: %+v %v", gotAns, err)
	}
	frame := func(body string) string {
		return "PHS3" + string([]byte{0, 0, byte(len(body) >> 8), byte(len(body))}) + body
	}
	for name, raw := range map[string]string{
		"http":              "HTTP/1.1 200 OK\r\n\r\n",
		"version 1 (json)":  "PHS1\x00\x00\x00\x02{}",
		"version 2":         "PHS2\x00\x00\x00\x00",
		"too large":         "PHS3\xff\xff\xff\xff",
		"body cut short":    "PHS3\x00\x00\x00\x05\x01\x01a",
		"field cut short":   frame("\x01\x05ab"),
		"length cut short":  frame("\x01\xff"),
		"unknown field":     frame("\x63\x01a"),
		"an answer's field": frame("\x07\x01\x02"),
	} {
		var req ServeRequest
		if err := ReadFrame(bytes.NewReader([]byte(raw)), &req); err == nil {
			t.Errorf("%s: %q read as a request %+v", name, raw, req)
		}
	}
	for name, raw := range map[string]string{
		"a request's field": frame("\x06\x01a"),
		"pid not a number":  frame("\x07\x02\x80\x80"),
		"exit with a tail":  frame("\x0b\x02\x04\x00"),
		"exit empty":        frame("\x0b\x00"),
	} {
		var ans ServeAnswer
		if err := ReadFrame(bytes.NewReader([]byte(raw)), &ans); err == nil {
			t.Errorf("%s: %q read as an answer %+v", name, raw, ans)
		}
	}
	if err := WriteFrame(&buf, struct{}{}); err == nil {
		t.Error("a struct that is no message was written")
	}
}
