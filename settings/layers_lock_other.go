//go:build !unix

package settings

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// lockDir takes the directory's lock by creating a lock file in it
// exclusively, waiting while another writer holds it; a lock older than a
// minute is taken to be left by a writer that died.
func lockDir(dir string) (func(), error) {
	path := filepath.Join(dir, ".permopa.lock")
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if info, err := os.Stat(path); err == nil && time.Since(info.ModTime()) > time.Minute {
			os.Remove(path)
			continue
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// openNonBlocking opens a file for reading; the caller checks that it is a
// regular file before reading.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }

// noFollow: O_EXCL already refuses an existing name, link or not.
const noFollow = 0
