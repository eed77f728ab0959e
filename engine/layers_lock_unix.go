//go:build unix

package engine

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
