package hookproto

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// The hook server (docs/hosts.md, "The hook server"): permopa-hook starts
// `permopa-hook-local --serve` on demand, detached, and asks it over a unix
// socket in a private directory of the user; the server answers each hook
// exactly as permopa-hook-local would (the same code, the policy compiled
// once, the settings of the call's cwd read at every call). One server
// serves one key: the identity of the permopa-hook-local binary (device,
// inode, size, times), the user and the environment a decision reads
// (DecisionEnv). A binary replaced or an environment that differs is
// another key, so another server; a server never answers for a key that is
// not its own. Whatever goes wrong on the way, the hook decides locally.

// Environment variables of the hook server.
const (
	// EnvHookServer "0" (or "false", "off", "no") turns the hook server
	// off: every call is decided by a local process.
	EnvHookServer = "PERMOPA_HOOK_SERVER"
	// EnvHookServerIdle is how long a hook server waits for a call before
	// it exits (a Go duration; default DefaultHookServerIdle).
	EnvHookServerIdle = "PERMOPA_HOOK_SERVER_IDLE"
)

// DefaultHookServerIdle is how long a hook server stays without a call.
const DefaultHookServerIdle = 15 * time.Minute

// HookServerDisabled reports whether the environment turns the hook
// server off.
func HookServerDisabled(getenv func(string) string) bool {
	switch strings.ToLower(strings.TrimSpace(getenv(EnvHookServer))) {
	case "0", "false", "off", "no":
		return true
	}
	return false
}

// HookServerIdle is the idle time from the environment (default
// DefaultHookServerIdle; a value that does not parse or is not positive is
// the default).
func HookServerIdle(getenv func(string) string) time.Duration {
	if d, err := time.ParseDuration(strings.TrimSpace(getenv(EnvHookServerIdle))); err == nil && d > 0 {
		return d
	}
	return DefaultHookServerIdle
}

// DecisionEnv is the part of environ that a hook's decision reads, sorted:
// every PERMOPA_* variable (settings, managed and config directories)
// except those that only say how to reach a server, HOME (the home
// directory of paths and settings) and XDG_CONFIG_HOME (the user settings
// directory, git's user configuration), XDG_CACHE_HOME (where a log
// failure notice is kept), RUSTUP_HOME (the toolchains a project's
// rust-toolchain.toml may name), PATH (where a command name is found:
// inside the project, it is the project's program), CLAUDE_PROJECT_DIR and
// CODEX_HOME (where the hook reads the environment a host sets from the
// project, project_env). A server answers only hooks whose DecisionEnv
// equals its own.
func DecisionEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch {
		case k == EnvServer, k == EnvServerRequired, k == EnvServerTokenFile, k == EnvHookServer, k == EnvHookServerIdle:
		case strings.HasPrefix(k, "PERMOPA_"), k == "HOME", k == "XDG_CONFIG_HOME", k == "XDG_CACHE_HOME", k == "RUSTUP_HOME", k == "PATH",
			k == "CLAUDE_PROJECT_DIR", k == "CODEX_HOME":
			out = append(out, kv)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// BinaryIdentity identifies one file of a binary: replacing it (go
// install, a package upgrade) changes the inode or the times.
type BinaryIdentity struct {
	Dev, Ino, Size   uint64
	MtimeNs, CtimeNs int64
}

// HookServerKey is the key of the server for a binary, a user and a
// decision environment: 16 hex digits, part of the socket's name.
func HookServerKey(id BinaryIdentity, uid int, env []string) string {
	h := sha256.New()
	var b [40]byte
	binary.BigEndian.PutUint64(b[0:], id.Dev)
	binary.BigEndian.PutUint64(b[8:], id.Ino)
	binary.BigEndian.PutUint64(b[16:], id.Size)
	binary.BigEndian.PutUint64(b[24:], uint64(id.MtimeNs))
	binary.BigEndian.PutUint64(b[32:], uint64(uid))
	h.Write([]byte("permopa hook server 1\x00"))
	h.Write(b[:])
	for _, kv := range env {
		h.Write([]byte(kv))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// ServeRequest is one request to a hook server.
type ServeRequest struct {
	// Op is "hook" (answer Payload) or "status".
	Op  string   `json:"op"`
	Key string   `json:"key"`
	Env []string `json:"env"`
	// Host, Args: the hook's host and permopa-hook-local's flags.
	Host    string   `json:"host,omitempty"`
	Args    []string `json:"args,omitempty"`
	Payload []byte   `json:"payload,omitempty"`
}

// ServeAnswer is a hook server's answer: the hook's answer (Stdout,
// Stderr, Exit) as permopa-hook-local prints it, or Refused when it did
// not decide (the hook then decides locally).
type ServeAnswer struct {
	Pid     int    `json:"pid"`
	Key     string `json:"key"`
	Refused string `json:"refused,omitempty"`
	Stdout  []byte `json:"stdout,omitempty"`
	Stderr  string `json:"stderr,omitempty"`
	Exit    int    `json:"exit"`
	// Status: when the server started, how many hooks it answered, and
	// its idle limit.
	Started  time.Time `json:"started,omitzero"`
	Answered int64     `json:"answered,omitempty"`
	Idle     string    `json:"idle,omitempty"`
}

// frameMagic starts every message of the hook server protocol: the magic,
// then the JSON body's length (4 bytes, big endian), then the body.
const frameMagic = "PHS1"

// maxFrame bounds a message: a payload (MaxPayload) and its encoding.
const maxFrame = 2*MaxPayload + 64<<10

// WriteFrame writes v as one message.
func WriteFrame(w io.Writer, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(body) > maxFrame {
		return fmt.Errorf("message of %d bytes is larger than %d", len(body), maxFrame)
	}
	msg := make([]byte, 0, 8+len(body))
	msg = append(msg, frameMagic...)
	msg = binary.BigEndian.AppendUint32(msg, uint32(len(body)))
	_, err = w.Write(append(msg, body...))
	return err
}

// ReadFrame reads one message into v.
func ReadFrame(r io.Reader, v any) error {
	var head [8]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return err
	}
	if string(head[:4]) != frameMagic {
		return errors.New("not a hook server message")
	}
	n := binary.BigEndian.Uint32(head[4:])
	if n > maxFrame {
		return fmt.Errorf("message of %d bytes is larger than %d", n, maxFrame)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return err
	}
	return json.Unmarshal(body, v)
}
