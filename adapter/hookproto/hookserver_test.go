package hookproto

import (
	"bytes"
	"slices"
	"testing"
)

// The environment a server answers for is what a decision reads, and
// nothing that only says how to reach a server.
func TestDecisionEnv(t *testing.T) {
	env := DecisionEnv([]string{
		"PATH=/bin", "HOME=/home/a", "TERM=xterm", "PERMOPA_DENY=Bash(rm:*)", "PERMOPA_CONFIG_DIR=/c",
		"PERMOPA_MANAGED_DIR=/m", "XDG_CONFIG_HOME=/x", "XDG_CACHE_HOME=/y", "XDG_RUNTIME_DIR=/run/user/1",
		"PERMOPA_SERVER=unix:///s", "PERMOPA_SERVER_REQUIRED=1", "PERMOPA_SERVER_TOKEN_FILE=/t",
		"PERMOPA_HOOK_SERVER=1", "PERMOPA_HOOK_SERVER_IDLE=1m", "CLAUDE_PROJECT_DIR=/p", "RUSTUP_HOME=/r",
	})
	want := []string{"CLAUDE_PROJECT_DIR=/p", "HOME=/home/a", "PATH=/bin", "PERMOPA_CONFIG_DIR=/c", "PERMOPA_DENY=Bash(rm:*)", "PERMOPA_MANAGED_DIR=/m", "RUSTUP_HOME=/r", "XDG_CACHE_HOME=/y", "XDG_CONFIG_HOME=/x"}
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

// A frame that is not the protocol's, or too large, is refused.
func TestFrames(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteFrame(&buf, ServeRequest{Op: "status", Key: "k"}); err != nil {
		t.Fatal(err)
	}
	var req ServeRequest
	if err := ReadFrame(&buf, &req); err != nil || req.Op != "status" || req.Key != "k" {
		t.Fatalf("round trip: %+v %v", req, err)
	}
	for _, raw := range []string{"HTTP/1.1 200 OK\r\n\r\n", "PHS1\xff\xff\xff\xff", "PHS1\x00\x00\x00\x05{}"} {
		if err := ReadFrame(bytes.NewReader([]byte(raw)), &req); err == nil {
			t.Errorf("%q: read as a frame", raw)
		}
	}
}
