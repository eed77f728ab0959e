//go:build unix

package scriptfile

import (
	"os"
	"syscall"
)

// changeTime is the file's status change time and inode: a rewrite that
// restores size and modification time still changes them.
func changeTime(fi os.FileInfo) (int64, uint64) {
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		return ctimeOf(s), uint64(s.Ino)
	}
	return 0, 0
}
