//go:build unix

package safefile

import "syscall"

// noFollow makes an open fail on a symbolic link; nonBlock keeps a read of
// a named pipe from waiting for a writer.
const (
	noFollow = syscall.O_NOFOLLOW
	nonBlock = syscall.O_NONBLOCK
)
