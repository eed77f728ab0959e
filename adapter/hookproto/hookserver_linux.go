package hookproto

import (
	"context"
	"os"
	"syscall"
	"time"

	"github.com/permopa/permopa/internal/hookwire"
)

// HookServerSupported: the hook server needs Linux (SO_PEERCRED, the
// directory reached through /proc/self/fd).
const HookServerSupported = hookwire.HookServerSupported

// The directory and its files (hookwire): HookServerDir is the
// directory of the user's hook server sockets, OpenHookServerDir opens and
// checks it (creating it), CheckHookServerDir checks an open one, InDir
// names a file in it through its descriptor, FileIdentity is a binary's
// identity.
func HookServerDir(getenv func(string) string) string { return hookwire.HookServerDir(getenv) }
func OpenHookServerDir(dir string) (*os.File, error)  { return hookwire.OpenHookServerDir(dir) }
func CheckHookServerDir(f *os.File) error             { return hookwire.CheckHookServerDir(f) }
func InDir(dir *os.File, name string) string          { return hookwire.InDir(dir, name) }
func SocketName(key string) string                    { return hookwire.SocketName(key) }
func LockName(key string) string                      { return hookwire.LockName(key) }
func LogName(key string) string                       { return hookwire.LogName(key) }
func FileIdentity(path string) (BinaryIdentity, error) {
	return hookwire.FileIdentity(path)
}

// ErrHookServerStarting: another hook holds the server's lock (it is
// starting it, or a server runs).
var ErrHookServerStarting = hookwire.ErrHookServerStarting

// AskHookServer sends req to the server of key in dir and reads its
// answer (hookwire.Ask), within timeout and before ctx's deadline.
func AskHookServer(ctx context.Context, dir *os.File, key string, req ServeRequest, timeout time.Duration) (ServeAnswer, error) {
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := ctx.Err(); err != nil {
		return ServeAnswer{}, err
	}
	return hookwire.Ask(dir, key, req, deadline, timeout)
}

// PeerCred is the credentials of the process at the other end of a unix
// socket (the kernel's, taken at connect or listen).
func PeerCred(f interface {
	SyscallConn() (syscall.RawConn, error)
}) (*syscall.Ucred, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	if cerr != nil {
		return nil, os.NewSyscallError("getsockopt SO_PEERCRED", cerr)
	}
	return cred, nil
}

// StartHookServer starts `bin --serve KEY` (permopa-hook-local) detached,
// handing it the lock (hookwire.StartHookServer); ErrHookServerStarting
// when another hook holds the lock.
func StartHookServer(dir *os.File, key, bin string, environ []string) error {
	return hookwire.StartHookServer(dir, key, bin, environ)
}
