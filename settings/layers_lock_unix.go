//go:build unix

package settings

import (
	"os"
	"syscall"
)

// lockDir takes an exclusive flock on a directory, blocking until it is
// free, and returns its release. Locking the directory leaves no lock file
// behind; flock locks belong to the open file, so two writers in one
// process exclude each other too.
func lockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// openNonBlocking opens a file for reading without blocking on a named
// pipe (whose open would wait for a writer); the caller checks that it is
// a regular file before reading.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// noFollow makes an open fail on a symbolic link rather than follow it.
const noFollow = syscall.O_NOFOLLOW
