package hookproto

import (
	"io"
	"strings"
	"time"

	"github.com/permopa/permopa/internal/hookwire"
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
	EnvHookServer = hookwire.EnvHookServer
	// EnvHookServerIdle is how long a hook server waits for a call before
	// it exits (a Go duration; default DefaultHookServerIdle).
	EnvHookServerIdle = hookwire.EnvHookServerIdle
)

// DefaultHookServerIdle is how long a hook server stays without a call.
const DefaultHookServerIdle = 15 * time.Minute

// HookServerDisabled reports whether the environment turns the hook
// server off.
func HookServerDisabled(getenv func(string) string) bool {
	return hookwire.HookServerDisabled(getenv)
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

// DecisionEnv is the part of environ that a hook's decision reads
// (hookwire.DecisionEnv).
func DecisionEnv(environ []string) []string { return hookwire.DecisionEnv(environ) }

// BinaryIdentity identifies one file of a binary (hookwire.BinaryIdentity).
type BinaryIdentity = hookwire.BinaryIdentity

// HookServerKey is the key of the server for a binary, a user and a
// decision environment (hookwire.HookServerKey).
func HookServerKey(id BinaryIdentity, uid int, env []string) string {
	return hookwire.HookServerKey(id, uid, env)
}

// ServeRequest is one request to a hook server; ServeAnswer its answer
// (hookwire).
type (
	ServeRequest = hookwire.ServeRequest
	ServeAnswer  = hookwire.ServeAnswer
)

// WriteFrame writes v (a ServeRequest or a ServeAnswer) as one message.
func WriteFrame(w io.Writer, v any) error { return hookwire.WriteFrame(w, v) }

// ReadFrame reads one message into v (a *ServeRequest or *ServeAnswer).
func ReadFrame(r io.Reader, v any) error { return hookwire.ReadFrame(r, v) }
