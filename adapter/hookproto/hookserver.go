package hookproto

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
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
// directory, git's user configuration) and XDG_CACHE_HOME (where a log
// failure notice is kept). A server answers only hooks whose DecisionEnv
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
		case strings.HasPrefix(k, "PERMOPA_"), k == "HOME", k == "XDG_CONFIG_HOME", k == "XDG_CACHE_HOME":
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

// appendJSON appends r as json.Marshal encodes it (the same fields, the
// same omissions, invalid UTF-8 as U+FFFD), so that json.Unmarshal reads
// the same value from either (TestServeRequestJSON).
func (r ServeRequest) appendJSON(b []byte) []byte {
	b = append(b, `{"op":`...)
	b = appendJSONString(b, r.Op)
	b = append(b, `,"key":`...)
	b = appendJSONString(b, r.Key)
	b = append(b, `,"env":`...)
	b = appendJSONStrings(b, r.Env)
	if r.Host != "" {
		b = append(b, `,"host":`...)
		b = appendJSONString(b, r.Host)
	}
	if len(r.Args) > 0 {
		b = append(b, `,"args":`...)
		b = appendJSONStrings(b, r.Args)
	}
	if len(r.Payload) > 0 {
		b = append(b, `,"payload":"`...)
		b = base64.StdEncoding.AppendEncode(b, r.Payload)
		b = append(b, '"')
	}
	return append(b, '}')
}

func appendJSONStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD (as
// encoding/json does).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
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

// WriteFrame writes v as one message. A ServeRequest, which every hook
// call sends, is encoded by appendJSON: encoding/json's first use of a
// type in a process (reflection over its fields, on a fresh goroutine
// stack) is a measurable part of a hook call (BENCHMARKS.md, "Hooks").
func WriteFrame(w io.Writer, v any) error {
	var body []byte
	var err error
	if req, ok := v.(ServeRequest); ok {
		body = req.appendJSON(nil)
	} else if body, err = json.Marshal(v); err != nil {
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
