//go:build linux

package paths

import (
	"io/fs"
	"os"
	"syscall"
)

// readDirUnsorted is (*os.File).ReadDir(-1) of the directory name, in the
// kernel's order. os.Open would make the descriptor non-blocking and try to
// register it with the poller (an fcntl, an epoll_ctl that fails for a
// directory, an fcntl to undo it); a directory never blocks, so it is
// opened plainly and handed to os.NewFile: a walk of a tree (ListTreeWithin)
// makes about half the system calls. The error is os.Open's, a
// *fs.PathError "open NAME: …".
func readDirUnsorted(name string) ([]fs.DirEntry, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_DIRECTORY, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return f.ReadDir(-1)
}
