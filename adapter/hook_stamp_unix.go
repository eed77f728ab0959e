//go:build unix

package adapter

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// fileStamp is what changes when a file is written, replaced, moved,
// chmod'ed or chown'ed; the error's kind when it cannot be stat'ed.
func fileStamp(fi os.FileInfo, err error) string {
	if err != nil {
		return fmt.Sprintf("|err %v", errors.Unwrap(err))
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Sprintf("|%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
	}
	return fmt.Sprintf("|%o %d %d %d %d %d.%d %d.%d", st.Mode, st.Uid, st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
}
