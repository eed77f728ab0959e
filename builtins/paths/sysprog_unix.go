//go:build unix

package paths

import (
	"os"
	"path/filepath"
	"syscall"
)

// systemBinDirs are the directories whose programs are the system's own:
// installed by the package manager, owned by root.
var systemBinDirs = []string{"/usr/bin", "/bin", "/usr/sbin", "/sbin"}

// SystemProgram reports whether p, an absolute program path as written
// (/usr/bin/find, /bin/ls), names a program of the system: p is clean,
// its directory is one of systemBinDirs, and p and every file and
// directory its links lead through (/bin -> usr/bin, /usr/bin/awk ->
// /etc/alternatives/awk -> /usr/bin/mawk) are owned by root and writable
// by no one else, ending in a regular file in one of systemBinDirs.
// A project's ./bin/ls, a user-writable /usr/local/bin (Homebrew) or a
// link into the home directory are not.
func SystemProgram(p string) bool {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p || !inSystemBinDir(p) {
		return false
	}
	for _, d := range []string{"/", "/usr", filepath.Dir(p)} {
		if !rootOwned(d, true) {
			return false
		}
	}
	cur := p
	for hops := 0; hops < 8; hops++ {
		fi, err := os.Lstat(cur)
		if err != nil || !rootOwnedInfo(fi) {
			return false
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			return fi.Mode().IsRegular() && inSystemBinDir(cur)
		}
		t, err := os.Readlink(cur)
		if err != nil {
			return false
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(cur), t)
		}
		// The link's target directory must be the system's too
		// (/etc/alternatives).
		dir := filepath.Dir(filepath.Clean(t))
		if !rootOwned(dir, true) {
			return false
		}
		cur = filepath.Clean(t)
	}
	return false
}

func inSystemBinDir(p string) bool {
	d := filepath.Dir(p)
	for _, s := range systemBinDirs {
		if d == s {
			return true
		}
	}
	return false
}

// rootOwned reports whether the file at p (followed, for a directory
// such as /bin -> usr/bin) is owned by root and writable by no one else.
func rootOwned(p string, follow bool) bool {
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	fi, err := stat(p)
	return err == nil && rootOwnedInfo(fi)
}

func rootOwnedInfo(fi os.FileInfo) bool {
	s, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || s.Uid != 0 {
		return false
	}
	// A link's own mode bits mean nothing; a sticky directory still
	// lets others add names.
	return fi.Mode()&os.ModeSymlink != 0 || fi.Mode().Perm()&0o022 == 0
}
