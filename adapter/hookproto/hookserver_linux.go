package hookproto

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
var ErrHookServerStarting = errors.New("another hook server holds the lock")

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

// StartHookServer starts `bin --serve KEY` (permopa-hook-local) detached:
// in a session of its own, its working directory /, stdin and stdout
// /dev/null and stderr its log file in dir, with environ. The lock file is
// taken first (flock, not waiting) and handed to the server, which holds it
// as long as it runs: of two hooks starting a server at once, one starts
// it and the other gets ErrHookServerStarting.
func StartHookServer(dir *os.File, key, bin string, environ []string) error {
	lock, err := openInDir(dir, LockName(key), syscall.O_RDWR|syscall.O_CREAT)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if err == syscall.EWOULDBLOCK {
			return ErrHookServerStarting
		}
		return os.NewSyscallError("flock", err)
	}
	logf, err := openInDir(dir, LogName(key), syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(bin, "--serve", key)
	cmd.Dir = "/"
	cmd.Env = environ
	cmd.Stderr = logf
	// fd 3: the lock, held by the server from now on; fd 4: the directory.
	cmd.ExtraFiles = []*os.File{lock, dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the hook server %s: %w", bin, err)
	}
	// Not waited for: it outlives this hook (reparented when it exits).
	return cmd.Process.Release()
}

// openInDir opens (creating, mode 0600) a regular file of this user in
// dir, never through a link.
func openInDir(dir *os.File, name string, flags int) (*os.File, error) {
	fd, err := syscall.Openat(int(dir.Fd()), name, flags|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: filepath.Join(dir.Name(), name), Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir.Name(), name))
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || int(st.Uid) != os.Getuid() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file of this user; refused", f.Name())
	}
	return f, nil
}
