//go:build unix

package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// adminOwned says why dir cannot be the managed settings directory named by
// PERMOPA_MANAGED_DIR, or nil when it can: the directory (links resolved)
// and every directory above it belong to root and let no one else write
// (an ancestor may be sticky, as /tmp: no one else can rename what root
// made in it). A directory that does not exist yet is judged by the
// nearest one above it that does: only root could create it. Managed
// settings are the administrator's; a directory the user (and so a
// repository's .envrc or its host's project `env`) controls is not.
func adminOwned(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	p := abs
	for {
		if _, err := os.Lstat(p); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return err
	}
	for first := true; ; first = false {
		info, err := os.Stat(real)
		if err != nil {
			return err
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			return fmt.Errorf("%s: owner unknown", real)
		}
		if st.Uid != 0 {
			return fmt.Errorf("%s belongs to uid %d, not root", real, st.Uid)
		}
		if info.Mode().Perm()&0o022 != 0 && (first || info.Mode()&fs.ModeSticky == 0) {
			return fmt.Errorf("%s is writable by group or others (mode %v)", real, info.Mode().Perm())
		}
		parent := filepath.Dir(real)
		if parent == real {
			return nil
		}
		real = parent
	}
}
