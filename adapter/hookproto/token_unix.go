//go:build unix

package hookproto

import (
	"fmt"
	"os"
	"syscall"
)

// checkOwner refuses a file that belongs to another user.
func checkOwner(info os.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := int(st.Uid); uid != os.Geteuid() {
		return fmt.Errorf("belongs to uid %d, not to this user (uid %d); refused", uid, os.Geteuid())
	}
	return nil
}
