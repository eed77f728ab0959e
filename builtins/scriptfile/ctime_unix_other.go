//go:build unix && !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package scriptfile

import "syscall"

func ctimeOf(*syscall.Stat_t) int64 { return 0 }
