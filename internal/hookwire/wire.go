// Package hookwire is the hook server's protocol and the client's side of
// it (docs/hosts.md, "The hook server"): the frames, the server's key, the
// checked socket directory and the connection. It imports little beyond
// what a Go hello-world initialises (os, syscall, strconv, hash/fnv), so
// that permopa-hook's served call costs little more than a Go process
// (BENCHMARKS.md, "Hooks"); adapter/hookproto re-exports it for the
// server and the slow path.
package hookwire

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxPayload caps what a hook reads from stdin; a larger payload is refused.
const MaxPayload = 16 << 20

// Environment variables that say how a hook reaches a server, which the
// decision environment (DecisionEnv) leaves out.
const (
	EnvServer          = "PERMOPA_SERVER"
	EnvServerRequired  = "PERMOPA_SERVER_REQUIRED"
	EnvServerTokenFile = "PERMOPA_SERVER_TOKEN_FILE"
	EnvHookServer      = "PERMOPA_HOOK_SERVER"
	EnvHookServerIdle  = "PERMOPA_HOOK_SERVER_IDLE"
)

// HookServerDisabled reports whether the environment turns the hook
// server off ("0", "false", "off" or "no").
func HookServerDisabled(getenv func(string) string) bool {
	switch strings.ToLower(strings.TrimSpace(getenv(EnvHookServer))) {
	case "0", "false", "off", "no":
		return true
	}
	return false
}

// ServerRequired reports whether PERMOPA_SERVER_REQUIRED asks for a server.
func ServerRequired(getenv func(string) string) bool {
	switch strings.ToLower(strings.TrimSpace(getenv(EnvServerRequired))) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// DecisionEnv is the part of environ that a hook's decision reads, sorted:
// every PERMOPA_* variable (settings, managed and config directories)
// except those that only say how to reach a server, HOME (the home
// directory of paths and settings) and XDG_CONFIG_HOME (the user settings
// directory, git's user configuration), XDG_CACHE_HOME (where a log
// failure notice is kept), RUSTUP_HOME (the toolchains a project's
// rust-toolchain.toml may name), CDPATH, BASHOPTS and GLOBIGNORE (where cd
// NAME goes, what a glob means: docs/shell.md, "Leaves"), CLAUDE_PROJECT_DIR and CODEX_HOME (where
// the hook reads the environment a host sets from the project,
// project_env). PATH is not: Codex gives each session a PATH of its own;
// the server looks command names up on the PATH of the hook that started
// it (docs/hosts.md, "The hook server"). A server answers only hooks whose
// DecisionEnv equals its own.
func DecisionEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch {
		case k == EnvServer, k == EnvServerRequired, k == EnvServerTokenFile, k == EnvHookServer, k == EnvHookServerIdle:
		case strings.HasPrefix(k, "PERMOPA_"), k == "HOME", k == "XDG_CONFIG_HOME", k == "XDG_CACHE_HOME", k == "RUSTUP_HOME",
			k == "CDPATH", k == "BASHOPTS", k == "GLOBIGNORE", k == "CLAUDE_PROJECT_DIR", k == "CODEX_HOME":
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
// decision environment: 16 hex digits, part of the socket's name. FNV-1a,
// not a cryptographic hash: the key names a socket in a directory only
// this user may enter, and a server answers only requests whose key and
// environment equal its own (crypto/sha256 would link the FIPS module's
// packages into the hook client, BENCHMARKS.md, "Hooks").
func HookServerKey(id BinaryIdentity, uid int, env []string) string {
	h := fnv.New128a()
	var b [40]byte
	binary.BigEndian.PutUint64(b[0:], id.Dev)
	binary.BigEndian.PutUint64(b[8:], id.Ino)
	binary.BigEndian.PutUint64(b[16:], id.Size)
	binary.BigEndian.PutUint64(b[24:], uint64(id.MtimeNs))
	binary.BigEndian.PutUint64(b[32:], uint64(uid))
	h.Write([]byte("permopa hook server 4\x00")) // the protocol's version (frameMagic) and the key's
	h.Write(b[:])
	for _, kv := range env {
		h.Write([]byte(kv))
		h.Write([]byte{0})
	}
	const digits = "0123456789abcdef"
	var key [16]byte
	for i, c := range h.Sum(nil)[:8] {
		key[2*i], key[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(key[:])
}

// ServeRequest is one request to a hook server.
type ServeRequest struct {
	// Op is "hook" (answer Payload as permopa-hook-local <Host> <Args>
	// would), "client" (answer it as permopa-hook's slow path,
	// `permopa-hook-local --hook-client <Host> <Args>`, would, with
	// ClientEnv and DefaultServer for its environment) or "status".
	Op  string
	Key string
	Env []string
	// Host, Args: the hook's host and permopa-hook-local's flags.
	Host    string
	Args    []string
	Payload []byte
	// LogErr: why the hook could not open its --log file (OpenLog), for
	// the server to say in the answer as permopa-hook-local would.
	LogErr string
	// ClientEnv: for "client", the hook's variables that say how to reach
	// a server (ClientEnvNames) that it has, as KEY=VALUE; DefaultServer:
	// the hook's DefaultServer.
	ClientEnv     []string
	DefaultServer string
	// LogFD: the hook's --log file, opened by the hook (OpenLog) and sent
	// with the request (SCM_RIGHTS), not as a field: the server writes the
	// log entry to it and never opens the path itself, so a hook cannot
	// make the server write where the hook could not (docs/hosts.md, "The
	// hook server"). 0: none; on the server, the descriptor received.
	LogFD int
}

// ServeAnswer is a hook server's answer: the hook's answer (Stdout,
// Stderr, Exit) as permopa-hook-local prints it, or Refused when it did
// not decide (the hook then decides locally).
type ServeAnswer struct {
	Pid     int
	Key     string
	Refused string
	Stdout  []byte
	Stderr  string
	Exit    int
	// Status: when the server started, how many hooks it answered, and
	// its idle limit.
	Started  time.Time
	Answered int64
	Idle     string
}

// frameMagic starts every message of the hook server protocol: the magic,
// then the body's length (4 bytes, big endian), then the body: fields,
// each a tag byte, the value's length (uvarint) and the value (bytes, or a
// number as a zigzag varint); a list is its field repeated. Not JSON: the
// first use of encoding/json's reflection cost a hook process ~1 ms of its
// ~4 ms beyond a Go process's start (BENCHMARKS.md, "Hooks"). The version
// is in the magic and in the servers' keys (HookServerKey), so a hook never
// talks to a server of another version.
const frameMagic = "PHS3"

// Field tags of the messages.
const (
	tagOp = 1 + iota
	tagKey
	tagEnv
	tagHost
	tagArgs
	tagPayload
	tagPid
	tagRefused
	tagStdout
	tagStderr
	tagExit
	tagStarted
	tagAnswered
	tagIdle
	tagLogErr
	tagClientEnv
	tagDefaultServer
)

// ClientEnvNames are the variables of a "client" request's ClientEnv: what
// the slow path reads beyond the decision environment (DecisionEnv).
var ClientEnvNames = [...]string{EnvServer, EnvServerRequired, EnvServerTokenFile, EnvHookServer}

// maxFrame bounds a message: a payload (MaxPayload) and the rest.
const maxFrame = MaxPayload + 64<<10

type frameWriter struct{ b []byte }

func (w *frameWriter) bytes(tag byte, v []byte) {
	w.b = append(w.b, tag)
	w.b = binary.AppendUvarint(w.b, uint64(len(v)))
	w.b = append(w.b, v...)
}

func (w *frameWriter) str(tag byte, v string) {
	if v != "" {
		w.b = append(w.b, tag)
		w.b = binary.AppendUvarint(w.b, uint64(len(v)))
		w.b = append(w.b, v...)
	}
}

func (w *frameWriter) strs(tag byte, vs []string) {
	for _, v := range vs {
		w.b = append(w.b, tag)
		w.b = binary.AppendUvarint(w.b, uint64(len(v)))
		w.b = append(w.b, v...)
	}
}

func (w *frameWriter) int(tag byte, v int64) {
	if v != 0 {
		w.bytes(tag, binary.AppendVarint(nil, v))
	}
}

// messageType names v's type in an error, without fmt's reflection.
func messageType(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case string, []byte:
		return "string"
	}
	return "other"
}

// encodeFrame is v's body (after the 8 bytes of the header, which it
// leaves for the caller): a ServeRequest or a ServeAnswer.
func encodeFrame(v any) ([]byte, error) {
	w := frameWriter{b: make([]byte, 8, 512)}
	switch m := v.(type) {
	case ServeRequest:
		w.str(tagOp, m.Op)
		w.str(tagKey, m.Key)
		w.strs(tagEnv, m.Env)
		w.str(tagHost, m.Host)
		w.strs(tagArgs, m.Args)
		if len(m.Payload) > 0 {
			w.bytes(tagPayload, m.Payload)
		}
		w.str(tagLogErr, m.LogErr)
		w.strs(tagClientEnv, m.ClientEnv)
		w.str(tagDefaultServer, m.DefaultServer)
	case *ServeRequest:
		return encodeFrame(*m)
	case ServeAnswer:
		w.int(tagPid, int64(m.Pid))
		w.str(tagKey, m.Key)
		w.str(tagRefused, m.Refused)
		if len(m.Stdout) > 0 {
			w.bytes(tagStdout, m.Stdout)
		}
		w.str(tagStderr, m.Stderr)
		w.int(tagExit, int64(m.Exit))
		if !m.Started.IsZero() {
			w.int(tagStarted, m.Started.UnixNano())
		}
		w.int(tagAnswered, m.Answered)
		w.str(tagIdle, m.Idle)
	case *ServeAnswer:
		return encodeFrame(*m)
	default:
		return nil, errors.New("no hook server message of type " + messageType(v))
	}
	return w.b, nil
}

func fieldError(tag byte, what string) error {
	return errors.New("hook server message: field " + strconv.Itoa(int(tag)) + " " + what)
}

// decodeFrame reads body into v (*ServeRequest or *ServeAnswer). A field
// that is not v's, cut short, or a number that does not parse is an error.
func decodeFrame(body []byte, v any) error {
	req, _ := v.(*ServeRequest)
	ans, _ := v.(*ServeAnswer)
	if req == nil && ans == nil {
		return errors.New("no hook server message of type " + messageType(v))
	}
	for len(body) > 0 {
		tag := body[0]
		n, k := binary.Uvarint(body[1:])
		if k <= 0 || n > uint64(len(body)-1-k) {
			return fieldError(tag, "cut short")
		}
		val := body[1+k : 1+k+int(n)]
		body = body[1+k+int(n):]
		num := func() (int64, error) {
			x, k := binary.Varint(val)
			if k <= 0 || k != len(val) {
				return 0, fieldError(tag, "is not a number")
			}
			return x, nil
		}
		var err error
		switch {
		case tag == tagKey && req != nil:
			req.Key = string(val)
		case tag == tagKey:
			ans.Key = string(val)
		case req != nil && tag == tagOp:
			req.Op = string(val)
		case req != nil && tag == tagEnv:
			req.Env = append(req.Env, string(val))
		case req != nil && tag == tagHost:
			req.Host = string(val)
		case req != nil && tag == tagArgs:
			req.Args = append(req.Args, string(val))
		case req != nil && tag == tagPayload:
			req.Payload = val
		case req != nil && tag == tagLogErr:
			req.LogErr = string(val)
		case req != nil && tag == tagClientEnv:
			req.ClientEnv = append(req.ClientEnv, string(val))
		case req != nil && tag == tagDefaultServer:
			req.DefaultServer = string(val)
		case ans != nil && tag == tagPid:
			var x int64
			x, err = num()
			ans.Pid = int(x)
		case ans != nil && tag == tagRefused:
			ans.Refused = string(val)
		case ans != nil && tag == tagStdout:
			ans.Stdout = val
		case ans != nil && tag == tagStderr:
			ans.Stderr = string(val)
		case ans != nil && tag == tagExit:
			var x int64
			x, err = num()
			ans.Exit = int(x)
		case ans != nil && tag == tagStarted:
			var x int64
			x, err = num()
			ans.Started = time.Unix(0, x)
		case ans != nil && tag == tagAnswered:
			ans.Answered, err = num()
		case ans != nil && tag == tagIdle:
			ans.Idle = string(val)
		default:
			return fieldError(tag, "is unknown")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func tooLarge(n int) error {
	return errors.New("message of " + strconv.Itoa(n) + " bytes is larger than " + strconv.Itoa(maxFrame))
}

// WriteFrame writes v (a ServeRequest or a ServeAnswer) as one message,
// in one write.
func WriteFrame(w io.Writer, v any) error {
	msg, err := frame(v)
	if err != nil {
		return err
	}
	_, err = w.Write(msg)
	return err
}

// frame is v's message: the header and the body.
func frame(v any) ([]byte, error) {
	msg, err := encodeFrame(v)
	if err != nil {
		return nil, err
	}
	body := len(msg) - 8
	if body > maxFrame {
		return nil, tooLarge(body)
	}
	copy(msg, frameMagic)
	binary.BigEndian.PutUint32(msg[4:8], uint32(body))
	return msg, nil
}

// ReadFrame reads one message into v (a *ServeRequest or *ServeAnswer).
func ReadFrame(r io.Reader, v any) error {
	var head [8]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return err
	}
	if string(head[:4]) != frameMagic {
		return errors.New("not a hook server message (or one of another version)")
	}
	n := binary.BigEndian.Uint32(head[4:])
	if n > maxFrame {
		return tooLarge(int(n))
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return err
	}
	return decodeFrame(body, v)
}

// octal is a file mode as %#o prints it.
func octal(m uint32) string { return "0" + strconv.FormatUint(uint64(m), 8) }
