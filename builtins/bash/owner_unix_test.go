//go:build unix

package bash

import (
	"os"
	"syscall"
)

func ownerUID(fi os.FileInfo) int {
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(s.Uid)
	}
	return -1
}
