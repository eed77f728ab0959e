//go:build !linux

package paths

import (
	"io/fs"
	"os"
)

// readDirUnsorted is (*os.File).ReadDir(-1) of the directory name, in the
// system's order (readdir_linux.go opens it with fewer system calls).
func readDirUnsorted(name string) ([]fs.DirEntry, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
