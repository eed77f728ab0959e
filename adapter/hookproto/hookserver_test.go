package hookproto

import (
	"bytes"
	"encoding/json"
	"reflect"
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
		"PERMOPA_HOOK_SERVER=1", "PERMOPA_HOOK_SERVER_IDLE=1m", "CLAUDE_PROJECT_DIR=/p",
	})
	want := []string{"HOME=/home/a", "PERMOPA_CONFIG_DIR=/c", "PERMOPA_DENY=Bash(rm:*)", "PERMOPA_MANAGED_DIR=/m", "XDG_CACHE_HOME=/y", "XDG_CONFIG_HOME=/x"}
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

// A hook's request is encoded by hand (appendJSON): what the server reads
// from it must be what it reads from encoding/json's encoding, for every
// string a hook can send (the environment, the flags, the payload).
func TestServeRequestJSON(t *testing.T) {
	hostile := []string{
		"", "plain", `quote " backslash \ slash /`, "\x00\x01\x1f\x7f", "tab\tnew\nline\rcr",
		"<script>&amp;</script>", "\u2028\u2029", "é日本\U0001F600", "\xff\xfe invalid", "a\xc3", "\xed\xa0\x80 surrogate",
		"PERMOPA_SETTINGS=/tmp/x\x00y", "HOME=/home/\"u\"",
	}
	reqs := []ServeRequest{
		{},
		{Op: "status", Key: "0123456789abcdef"},
		{Op: "hook", Key: "k", Env: []string{}, Host: "claude", Args: []string{}, Payload: []byte{}},
		{Op: "hook", Key: "k", Env: hostile, Host: "codex", Args: hostile, Payload: []byte(`{"tool_name":"Bash"}`)},
		{Op: "hook", Env: []string{"HOME=/h"}, Args: []string{"--destination", "local"}, Payload: []byte("\x00\xff binary")},
	}
	for _, s := range hostile {
		reqs = append(reqs, ServeRequest{Op: s, Key: s, Env: []string{s}, Host: s, Args: []string{s, s}, Payload: []byte(s)})
	}
	for i, r := range reqs {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got := r.appendJSON(nil)
		if !json.Valid(got) {
			t.Errorf("%d: not JSON: %s", i, got)
			continue
		}
		var a, b ServeRequest
		var ga, gb any
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		json.Unmarshal(want, &b)
		json.Unmarshal(got, &ga)
		json.Unmarshal(want, &gb)
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(ga, gb) {
			t.Errorf("%d: appendJSON %s\nreads as %#v\nencoding/json %s\nreads as %#v", i, got, a, want, b)
		}
	}
	// WriteFrame sends it, ReadFrame reads it back.
	var buf bytes.Buffer
	if err := WriteFrame(&buf, reqs[3]); err != nil {
		t.Fatal(err)
	}
	var back ServeRequest
	if err := ReadFrame(&buf, &back); err != nil {
		t.Fatal(err)
	}
	var want ServeRequest
	raw, _ := json.Marshal(reqs[3])
	json.Unmarshal(raw, &want)
	if !reflect.DeepEqual(back, want) {
		t.Errorf("framed: %#v\nwant %#v", back, want)
	}
}

func FuzzServeRequestJSON(f *testing.F) {
	f.Add("hook", "HOME=/h", []byte(`{"a":1}`))
	f.Add("\xff\"\\", "\u2028\x00", []byte{0, 255})
	f.Fuzz(func(t *testing.T, s, e string, p []byte) {
		r := ServeRequest{Op: s, Key: e, Env: []string{e, s}, Host: s, Args: []string{e}, Payload: p}
		want, _ := json.Marshal(r)
		var a, b ServeRequest
		if err := json.Unmarshal(r.appendJSON(nil), &a); err != nil {
			t.Fatalf("%q: %v", r.appendJSON(nil), err)
		}
		json.Unmarshal(want, &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%#v != %#v", a, b)
		}
	})
}
