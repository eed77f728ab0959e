package hookproto

import (
	"os"

	"github.com/permopa/permopa/internal/hookwire"
)

// The per-user default server (docs/hosts.md, "Fast path"): `permopa run
// --server` without --addr listens on DefaultSocket, in a directory only its
// user can enter, and the hooks ask it when no server is configured and
// PERMOPA_SERVER is not set at all (PERMOPA_SERVER= turns it off).

// DefaultSocket is $XDG_RUNTIME_DIR/permopa/permopa.sock, or without a
// runtime directory /tmp/permopa-UID/permopa.sock.
func DefaultSocket() string { return hookwire.DefaultSocket(os.LookupEnv) }

// defaultSocket is DefaultSocket with XDG_RUNTIME_DIR read through
// lookupEnv.
func defaultSocket(lookupEnv func(string) (string, bool)) string {
	return hookwire.DefaultSocket(lookupEnv)
}

// DefaultServer is the address of the default socket when a server of
// this user may be listening there, else "" (hookwire.DefaultServer).
func DefaultServer(lookupEnv func(string) (string, bool)) string {
	return hookwire.DefaultServer(lookupEnv)
}
