//go:build unix

package hookwire

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// PrivateDir checks that dir is a directory (not a link) owned by this
// user that no other user can enter or write.
func PrivateDir(dir string) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil {
		return &fs.PathError{Op: "lstat", Path: dir, Err: err}
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFDIR:
		return errors.New(dir + " is not a directory")
	case int(st.Uid) != os.Getuid():
		return errors.New(dir + " belongs to another user")
	case st.Mode&0o077 != 0:
		return errors.New(dir + " is open to other users (mode " + octal(uint32(st.Mode)&0o777) + ", want 0700)")
	}
	return nil
}

// OwnSocket reports a unix socket owned by this user at path.
func OwnSocket(path string) bool {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return false
	}
	return st.Mode&syscall.S_IFMT == syscall.S_IFSOCK && int(st.Uid) == os.Getuid()
}
