//go:build linux

package paths

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

var openat2Unavailable atomic.Bool

// symlinkFree reports whether the kernel confirms that no component of the
// clean absolute path p that exists is a symlink, in one openat2 call with
// RESOLVE_NO_SYMLINKS instead of one lstat per component. false means
// "don't know": the caller walks the path.
func symlinkFree(p string) bool {
	if openat2Unavailable.Load() {
		return false
	}
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &how)
	switch err {
	case nil:
		unix.Close(fd)
		return true
	case unix.ENOENT, unix.ENOTDIR:
		// Lookup stopped at a missing component (or below a file) before
		// meeting a symlink, and nothing exists after it.
		return true
	case unix.ENOSYS, unix.EPERM:
		// Kernel before 5.6, or a seccomp filter that refuses the call.
		openat2Unavailable.Store(true)
	}
	return false
}
