package hookwire

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// HookServerSupported: the hook server needs Linux (SO_PEERCRED, the
// directory reached through /proc/self/fd).
const HookServerSupported = true

// HookServerDir is the directory of the user's hook server sockets:
// $XDG_RUNTIME_DIR/permopa when XDG_RUNTIME_DIR is an absolute directory
// (not a link) of this user that no one else may write, else
// $XDG_CACHE_HOME/permopa/run or ~/.cache/permopa/run. "" when there is
// neither.
func HookServerDir(getenv func(string) string) string {
	if rt := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(rt) && ownedUnshared(rt, false) == nil {
		return filepath.Join(filepath.Clean(rt), "permopa")
	}
	cache := getenv("XDG_CACHE_HOME")
	if !filepath.IsAbs(cache) {
		home := getenv("HOME")
		if !filepath.IsAbs(home) {
			return ""
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(filepath.Clean(cache), "permopa", "run")
}

// ownedUnshared checks that path is a directory, not a link, that belongs
// to this user (or root, when rootOK) and that no other user may write
// (mode without group and other write, or the sticky bit).
func ownedUnshared(path string, rootOK bool) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	switch {
	case st.Mode&syscall.S_IFMT == syscall.S_IFLNK:
		return errors.New(path + " is a symbolic link")
	case st.Mode&syscall.S_IFMT != syscall.S_IFDIR:
		return errors.New(path + " is not a directory")
	case int(st.Uid) != os.Getuid() && !(rootOK && st.Uid == 0):
		return errors.New(path + " belongs to another user")
	case st.Mode&0o022 != 0 && st.Mode&syscall.S_ISVTX == 0:
		return errors.New(path + " may be written by other users (mode " + octal(st.Mode&0o777) + ")")
	}
	return nil
}

// OpenHookServerDir opens dir, creating it (mode 0700, and its missing
// parents 0700) when it does not exist, and checks the directory it
// opened: not a link, this user's, no access for anyone else; its parent
// must be this user's or root's and not writable by others. The sockets
// are then reached through the descriptor (/proc/self/fd/N/NAME), so the
// directory checked is the one used, and a long path fits a socket
// address.
func OpenHookServerDir(dir string) (*os.File, error) {
	if dir == "" {
		return nil, errors.New("no directory for the hook server (set XDG_RUNTIME_DIR or HOME)")
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err == syscall.ENOENT {
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return nil, wrap("hook server directory: ", err)
		}
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, wrap("hook server directory: ", err)
		}
	}
	if err := ownedUnshared(filepath.Dir(dir), true); err != nil {
		return nil, wrap("hook server directory: ", err)
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, wrap("hook server directory "+dir+": ", &wrapped{err.Error() + " (a symbolic link is refused)", err})
	}
	f := os.NewFile(uintptr(fd), dir)
	if err := CheckHookServerDir(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// wrapped is an error with a message of its own that wraps err (fmt's %w
// without fmt).
type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }

func wrap(prefix string, err error) error { return &wrapped{prefix + err.Error(), err} }

// CheckHookServerDir checks an open directory: this user's, mode 0700 or
// stricter.
func CheckHookServerDir(f *os.File) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return wrap("hook server directory "+f.Name()+": ", err)
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFDIR:
		return errors.New("hook server directory " + f.Name() + " is not a directory")
	case int(st.Uid) != os.Getuid():
		return errors.New("hook server directory " + f.Name() + " belongs to uid " + strconv.Itoa(int(st.Uid)) + ", not to this user (uid " + strconv.Itoa(os.Getuid()) + "); refused")
	case st.Mode&0o077 != 0:
		return errors.New("hook server directory " + f.Name() + " is open to other users (mode " + octal(st.Mode&0o777) + ", want 0700); refused")
	}
	return nil
}

// InDir is the name of a file of the directory open as dir, as a path
// through the descriptor (Linux's /proc/self/fd): short enough for a
// socket address whatever the directory's path.
func InDir(dir *os.File, name string) string {
	return "/proc/self/fd/" + strconv.Itoa(int(dir.Fd())) + "/" + name
}

// SocketName, LockName and LogName are a hook server's files in its
// directory.
func SocketName(key string) string { return key + ".sock" }
func LockName(key string) string   { return key + ".lock" }
func LogName(key string) string    { return key + ".log" }

// FileIdentity is the identity of the file at path (links followed).
func FileIdentity(path string) (BinaryIdentity, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return BinaryIdentity{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return BinaryIdentity{
		Dev: st.Dev, Ino: st.Ino, Size: uint64(st.Size),
		MtimeNs: st.Mtim.Nano(),
	}, nil
}

// Ask sends req to the server of key in dir and reads its answer before
// deadline (timeout is said in the error). The server must be a process of
// this user (SO_PEERCRED, from the kernel), answer for key, and answer in
// time; any failure is an error, and nothing it said is used. A socket
// that does not exist or that no one listens on is an error that wraps
// ENOENT or ECONNREFUSED (nothing was sent).
//
// The socket is a blocking one with the kernel's send and receive timeouts
// (SO_SNDTIMEO, SO_RCVTIMEO), not Go's poller: a hook process makes this
// one round trip and exits, and the poller's set-up (epoll, an eventfd,
// another thread woken to wait) is a measurable part of its cost
// (BENCHMARKS.md, "Hooks").
func Ask(dir *os.File, key string, req ServeRequest, deadline time.Time, timeout time.Duration) (ServeAnswer, error) {
	s, err := dialUnixPeer(InDir(dir, SocketName(key)), deadline)
	if err != nil {
		return ServeAnswer{}, err
	}
	defer s.Close()
	req.Key = key
	msg, err := frame(req)
	if err == nil && req.LogFD > 0 {
		// The log file goes with the message's first bytes.
		rights := syscall.UnixRights(req.LogFD)
		var n int
		n, err = s.retry("sendmsg", func() (int, error) { return syscall.SendmsgN(s.fd, msg, rights, nil, 0) })
		msg = msg[n:]
	}
	if err == nil && len(msg) > 0 {
		_, err = s.Write(msg)
	}
	if err != nil {
		return ServeAnswer{}, wrap("sending the call to the hook server: ", err)
	}
	var ans ServeAnswer
	// The answer is read in one or a few reads: no buffered reader.
	if err := ReadFrame(s, &ans); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return ServeAnswer{}, errors.New("the hook server gave no answer within " + timeout.String())
		}
		return ServeAnswer{}, wrap("reading the hook server's answer: ", err)
	}
	if ans.Key != key {
		return ServeAnswer{}, errors.New("the hook server answered for key " + strconv.Quote(ans.Key) + ", not " + strconv.Quote(key))
	}
	if ans.Refused != "" {
		return ans, errors.New("the hook server did not decide: " + ans.Refused)
	}
	if (req.Op == "hook" || req.Op == "client") && ans.Exit != 0 && ans.Exit != 2 {
		return ServeAnswer{}, errors.New("the hook server answered exit status " + strconv.Itoa(ans.Exit))
	}
	return ans, nil
}

// ErrLogNotRegular: the --log path is not a regular file (a pipe, a
// device): the hook server is not given it, the call goes the slow way.
var ErrLogNotRegular = errors.New("the --log file is not a regular file")

// OpenLog opens a hook's --log file (an absolute path) as the decision log
// opens it (internal/decisionlog.Open: its directory created 0700 when
// missing, the file created 0600, appended to), in the hook's own process,
// so that its own permissions decide where the log may be written; the
// hook server writes the entry to the descriptor (ServeRequest.LogFD). The
// error is decisionlog.Open's without its prefix. O_NONBLOCK: a named pipe
// with no reader is an error, not a hook that hangs.
func OpenLog(path string) (int, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return 0, err
	}
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0o600)
	for err == syscall.EINTR {
		fd, err = syscall.Open(path, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0o600)
	}
	if err != nil {
		return 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return 0, ErrLogNotRegular
	}
	return fd, nil
}

// peerSocket is a connected blocking unix socket whose reads and writes
// fail with os.ErrDeadlineExceeded past its deadline.
type peerSocket struct {
	fd       int
	deadline time.Time
}

// dialUnixPeer connects to the unix socket at path before deadline and
// checks that the process listening there runs as this user
// (SO_PEERCRED). A socket that does not exist or that no one listens on is
// an error that wraps ENOENT or ECONNREFUSED.
func dialUnixPeer(path string, deadline time.Time) (*peerSocket, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	s := &peerSocket{fd: fd, deadline: deadline}
	// The send timeout bounds connect too (a listener whose backlog is
	// full).
	if err := s.arm(); err != nil {
		s.Close()
		return nil, err
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if err != syscall.EINTR {
			break
		}
		if err = s.arm(); err != nil {
			break
		}
	}
	if err == syscall.EAGAIN || err == syscall.EINPROGRESS {
		err = os.ErrDeadlineExceeded
	}
	if err != nil {
		s.Close()
		return nil, &os.SyscallError{Syscall: "connect " + path, Err: err}
	}
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil {
		s.Close()
		return nil, os.NewSyscallError("getsockopt SO_PEERCRED", err)
	}
	if int(cred.Uid) != os.Getuid() {
		s.Close()
		return nil, errors.New("the process listening on " + path + " runs as uid " + strconv.Itoa(int(cred.Uid)) + ", not as this user (uid " + strconv.Itoa(os.Getuid()) + "): refusing it")
	}
	return s, nil
}

// arm sets the socket's send and receive timeouts to the time left before
// its deadline; none left is os.ErrDeadlineExceeded.
func (s *peerSocket) arm() error {
	left := time.Until(s.deadline)
	if left <= 0 {
		return os.ErrDeadlineExceeded
	}
	// A zero timeval is no timeout at all: at least a microsecond.
	tv := syscall.NsecToTimeval(max(left, time.Microsecond).Nanoseconds())
	for _, opt := range []int{syscall.SO_SNDTIMEO, syscall.SO_RCVTIMEO} {
		if err := syscall.SetsockoptTimeval(s.fd, syscall.SOL_SOCKET, opt, &tv); err != nil {
			return os.NewSyscallError("setsockopt", err)
		}
	}
	return nil
}

// retry makes call again after a signal (a socket with a timeout is never
// restarted by the kernel), with the timeouts set again to what is left.
func (s *peerSocket) retry(op string, call func() (int, error)) (int, error) {
	for {
		n, err := call()
		switch err {
		case nil:
			return n, nil
		case syscall.EINTR:
			if err := s.arm(); err != nil {
				return 0, err
			}
		case syscall.EAGAIN:
			return 0, os.ErrDeadlineExceeded
		default:
			return 0, os.NewSyscallError(op, err)
		}
	}
}

func (s *peerSocket) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := s.retry("read", func() (int, error) { return syscall.Read(s.fd, p) })
	if err == nil && n == 0 {
		return 0, io.EOF
	}
	return n, err
}

func (s *peerSocket) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := s.retry("write", func() (int, error) { return syscall.Write(s.fd, p[written:]) })
		written += n
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

func (s *peerSocket) Close() error { return syscall.Close(s.fd) }

// ErrHookServerStarting: another hook holds the server's lock (it is
// starting it, or a server runs).
var ErrHookServerStarting = errors.New("another hook server holds the lock")

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
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	// fd 3: the lock, held by the server from now on; fd 4: the directory.
	p, err := os.StartProcess(bin, []string{bin, "--serve", key}, &os.ProcAttr{
		Dir: "/", Env: environ, Files: []*os.File{null, null, logf, lock, dir},
		Sys: &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return wrap("starting the hook server "+bin+": ", err)
	}
	// Not waited for: it outlives this hook (reparented when it exits).
	return p.Release()
}

// openInDir opens (creating, mode 0600) a regular file of this user in
// dir, never through a link.
func openInDir(dir *os.File, name string, flags int) (*os.File, error) {
	path := filepath.Join(dir.Name(), name)
	fd, err := syscall.Openat(int(dir.Fd()), name, flags|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || int(st.Uid) != os.Getuid() {
		f.Close()
		return nil, errors.New(path + " is not a regular file of this user; refused")
	}
	return f, nil
}
