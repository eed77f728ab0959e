//go:build unix

package hookproto

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// dial connects to a unix socket path or a TCP ip:port with system calls,
// not the net package: importing net makes a cgo build link libc
// dynamically, which costs the hook client milliseconds at every start.
// Only IP literals and "localhost" are accepted for TCP (no DNS).
// The connection honours deadlines (a non-blocking descriptor on the
// runtime's poller).
func dial(ctx context.Context, network, target string) (conn, error) {
	var sa syscall.Sockaddr
	family := syscall.AF_UNIX
	switch network {
	case "unix":
		if err := checkSocketOwner(target); err != nil {
			return nil, err
		}
		sa = &syscall.SockaddrUnix{Name: target}
	case "tcp":
		ap, err := parseAddrPort(target)
		if err != nil {
			return nil, err
		}
		if err := checkTCPListener(ap); err != nil {
			return nil, err
		}
		if ap.Addr().Is4() {
			family = syscall.AF_INET
			sa = &syscall.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
		} else {
			family = syscall.AF_INET6
			sa = &syscall.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
		}
	default:
		return nil, fmt.Errorf("network %q", network)
	}
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("setnonblock", err)
	}
	// On a non-blocking descriptor os.NewFile uses the poller, so reads,
	// writes and the connect below honour deadlines.
	f := os.NewFile(uintptr(fd), network+":"+target)
	if deadline, ok := ctx.Deadline(); ok {
		f.SetDeadline(deadline)
	}
	err = syscall.Connect(fd, sa)
	if err == syscall.EINPROGRESS {
		err = waitConnected(f)
	}
	if err != nil {
		f.Close()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, fmt.Errorf("connect %s: %w", target, err)
		}
		return nil, &os.SyscallError{Syscall: "connect " + target, Err: err}
	}
	f.SetDeadline(time.Time{})
	return f, nil
}

// waitConnected waits for a non-blocking connect to finish and returns its
// result.
func waitConnected(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var connErr error
	// The callback runs after the poller's readiness was reset, so a
	// connect that finished earlier is seen here, and a later one wakes
	// the wait.
	err = rc.Write(func(fd uintptr) bool {
		v, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_ERROR)
		switch {
		case err != nil:
			connErr = err
		case v != 0:
			connErr = syscall.Errno(v)
		default:
			if _, err := syscall.Getpeername(int(fd)); err == syscall.ENOTCONN {
				return false // still connecting
			} else if err != nil {
				connErr = err
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	return connErr
}

// checkSocketOwner refuses a socket that belongs to another user (neither
// this one nor root): whoever created it would answer for the server, so
// a socket squatted in a shared directory could let every call through.
// A socket that does not exist is left to connect to fail (unreachable).
func checkSocketOwner(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := int(st.Uid); uid != os.Getuid() && uid != 0 {
		return &untrustedError{fmt.Errorf("socket %s belongs to uid %d, not to this user (uid %d) or root: refusing its answers", path, uid, os.Getuid())}
	}
	return nil
}
