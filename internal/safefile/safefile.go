// Package safefile reads and replaces the files permopa writes (the hosts'
// settings, its own settings, exported documents) so that a write goes only
// to the file it names (SECURITY.md, "Writes go only where they say"):
//
//   - the new content goes to a temporary file created exclusively
//     (O_CREAT|O_EXCL|O_NOFOLLOW, a random name) in the target's directory,
//     is synced, and is renamed over the target: a name planted next to the
//     target (a link called `settings.json.permopa-tmp`) is never opened;
//   - the target must be a regular file or absent: a symbolic link is
//     refused with an error that names the file and where the link points,
//     and a directory, named pipe, socket or device is refused too;
//   - below Options.Root (a project directory), no directory on the way
//     may be a symbolic link, so a repository's `.claude -> ~/.claude`
//     cannot turn a project write into a write of the user's files;
//   - an existing file's permission bits are kept.
//
// Read is the matching read: the same checks, opened with O_NOFOLLOW and
// O_NONBLOCK (a named pipe never blocks it) and a size limit.
package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Options shape Write.
type Options struct {
	// Mode is the permission of a file that does not exist yet (0: 0644).
	Mode fs.FileMode
	// DirMode, when not 0, creates the target's missing directories with
	// it; else a missing directory is an error.
	DirMode fs.FileMode
	// Root, when set, is a directory that contains the target: every
	// directory between it and the target must be a real directory, not
	// a symbolic link.
	Root string
}

// ErrTooLarge is returned (wrapped) by Read for a file over its limit.
var ErrTooLarge = errors.New("file too large")

// Check reports why path may not be written or read as a settings file: a
// symbolic link (naming where it points), or not a regular file. A path
// that does not exist passes; a directory on the way below root that is a
// link fails.
func Check(path, root string) error {
	if root != "" {
		if err := checkDirs(path, root); err != nil {
			return err
		}
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return checkTarget(path, fi)
}

func checkTarget(path string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		to, _ := os.Readlink(path)
		return fmt.Errorf("%s is a symbolic link to %s: permopa writes only regular files, never through a link; edit %s yourself, or replace the link with a file", path, to, to)
	case m.IsRegular():
		return nil
	default:
		return fmt.Errorf("%s is not a regular file (%s): permopa does not write it", path, kind(m))
	}
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// checkDirs fails when a directory between root and path's directory
// (root excluded) is a symbolic link or not a directory.
func checkDirs(path, root string) error {
	rel, err := filepath.Rel(root, filepath.Dir(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("%s is not inside %s", path, root)
	}
	if rel == "." {
		return nil
	}
	dir := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // created by Write, as a real directory
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			to, _ := os.Readlink(dir)
			return fmt.Errorf("%s is a symbolic link to %s: permopa does not write %s through it (a project's directory may not lead out of the project)", dir, to, path)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory (%s)", dir, kind(fi.Mode()))
		}
	}
	return nil
}

// Read reads path for editing: nil and an error wrapping fs.ErrNotExist
// when it does not exist; an error for a link, a file that is not regular
// (checked on the open file too) or one over max bytes (ErrTooLarge).
func Read(path string, max int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := checkTarget(path, fi); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkTarget(path, st); err != nil {
		return nil, err
	}
	if max > 0 && st.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, over permopa's limit of %d for this file: %w", path, st.Size(), max, ErrTooLarge)
	}
	r := io.Reader(f)
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if max > 0 && int64(len(data)) > max {
		return nil, fmt.Errorf("%s grew over permopa's limit of %d bytes for this file while it was read: %w", path, max, ErrTooLarge)
	}
	return data, nil
}

// Write replaces path with data as the package documents: a temporary file
// created exclusively in path's directory, synced, renamed over path.
func Write(path string, data []byte, opts Options) error {
	if err := Check(path, opts.Root); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if opts.DirMode != 0 {
		if err := os.MkdirAll(dir, opts.DirMode); err != nil {
			return err
		}
		if opts.Root != "" {
			// Made now: check again that nothing on the way is a link.
			if err := checkDirs(path, opts.Root); err != nil {
				return err
			}
		}
	}
	mode := opts.Mode
	if mode == 0 {
		mode = 0o644
	}
	fi, err := os.Lstat(path)
	switch {
	case err == nil:
		if err := checkTarget(path, fi); err != nil {
			return err
		}
		mode = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	tmp, f, err := createTemp(dir, filepath.Base(path), mode)
	if err != nil {
		return fmt.Errorf("%s: cannot create a temporary file next to it: %w", path, err)
	}
	committed := false
	defer func() {
		if !committed {
			os.Remove(tmp)
		}
	}()
	_, err = f.Write(data)
	if err == nil {
		// The umask applied at creation; the mode must be the old file's.
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: writing: %w", path, err)
	}
	// The target may have changed since it was checked: check again just
	// before the rename (rename replaces a link itself, never its target,
	// but a directory or a file that became a link must not be replaced
	// silently).
	if err := Check(path, opts.Root); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	committed = true
	if d, err := os.Open(dir); err == nil {
		d.Sync() // the rename itself on disk; best effort
		d.Close()
	}
	return nil
}

// createTemp creates ".<base>.<random>.permopa-tmp" in dir with
// O_CREAT|O_EXCL|O_NOFOLLOW: never an existing name, never through a link.
func createTemp(dir, base string, mode fs.FileMode) (string, *os.File, error) {
	for range 10 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", nil, err
		}
		name := filepath.Join(dir, "."+base+"."+hex.EncodeToString(b[:])+".permopa-tmp")
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, mode&0o777)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, f, err
	}
	return "", nil, errors.New("no free temporary name")
}
