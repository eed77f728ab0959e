//go:build linux

package paths

import (
	"io/fs"
	"syscall"
)

// fileStamp identifies a file's content as of a stat: the same inode with
// the same size, modification and change times. The change time is set by
// the kernel on every write and cannot be set back, so a file whose stamp
// is unchanged has not been written.
type fileStamp struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64
}

func stampOf(fi fs.FileInfo) (fileStamp, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}, false
	}
	return fileStamp{
		dev: uint64(st.Dev), ino: st.Ino, size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}, true
}
