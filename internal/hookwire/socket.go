package hookwire

import (
	"os"
	"path/filepath"
	"strconv"
)

// The per-user default server (docs/hosts.md, "Fast path"): `permopa run
// --server` without --addr listens on DefaultSocket, in a directory only its
// user can enter, and the hooks ask it when no server is configured and
// PERMOPA_SERVER is not set at all (PERMOPA_SERVER= turns it off).

// DefaultSocket is $XDG_RUNTIME_DIR/permopa/permopa.sock, or without a
// runtime directory /tmp/permopa-UID/permopa.sock; XDG_RUNTIME_DIR is read
// through lookupEnv, so that a hook run with an environment of its own
// (the binary's commands run in process with one) asks that environment's
// socket.
func DefaultSocket(lookupEnv func(string) (string, bool)) string {
	if rt, _ := lookupEnv("XDG_RUNTIME_DIR"); filepath.IsAbs(rt) {
		return filepath.Join(rt, "permopa", "permopa.sock")
	}
	return filepath.Join(os.TempDir(), "permopa-"+strconv.Itoa(os.Getuid()), "permopa.sock")
}

// DefaultServer is the address of the default socket when a server of
// this user may be listening there (the socket exists, in a private
// directory of this user), else "". lookupEnv is os.LookupEnv or the
// environment the hook runs with (PERMOPA_SERVER, XDG_RUNTIME_DIR): a
// PERMOPA_SERVER that is set, even empty, is the user's choice.
func DefaultServer(lookupEnv func(string) (string, bool)) string {
	if _, set := lookupEnv(EnvServer); set {
		return ""
	}
	sock := DefaultSocket(lookupEnv)
	if PrivateDir(filepath.Dir(sock)) != nil || !OwnSocket(sock) {
		return ""
	}
	return "unix://" + sock
}
