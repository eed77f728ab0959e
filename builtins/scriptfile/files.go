package scriptfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/permopa/permopa/builtins/paths"
)

// MaxProbes bounds the existence checks of one analysis (a command name
// looked up in node_modules/.bin directories, package.json walked up to).
const MaxProbes = 512

// Files reads the files of one analysis. It is not safe for concurrent use
// (one analysis runs on one goroutine).
type Files struct {
	roots  []string
	files  int
	probes int
	stamps []Stamp
	seen   map[string]bool // paths stamped (Path and whether Real was resolved)
}

// NewFiles returns the reader of one analysis. roots are the working
// directories (absolute): a file is read only when it lies under one of
// them, symbolic links resolved. No roots: nothing is read.
func NewFiles(roots []string) *Files {
	f := &Files{}
	for _, r := range roots {
		if !filepath.IsAbs(r) {
			continue
		}
		r = filepath.Clean(r)
		f.roots = append(f.roots, r)
		if real, err := filepath.EvalSymlinks(r); err == nil && real != r {
			f.roots = append(f.roots, real)
		}
	}
	return f
}

// Stamps are the files looked at so far, for Fresh.
func (f *Files) Stamps() []Stamp {
	if f == nil {
		return nil
	}
	return f.stamps
}

// Within reports whether the clean absolute path p is a working directory
// or below one (as written, links not resolved).
func (f *Files) Within(p string) bool {
	return f != nil && under(f.roots, p)
}

func under(roots []string, p string) bool {
	for _, r := range roots {
		if p == r || r == "/" || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// Exists reports whether p names an existing file or directory (links
// followed); the answer is stamped. ok is false past MaxProbes: the caller
// then cannot tell.
func (f *Files) Exists(p string) (exists, ok bool) {
	if f == nil {
		return false, false
	}
	f.probes++
	if f.probes > MaxProbes {
		return false, false
	}
	st := probeOf(p)
	f.stamp(st)
	return st.Exists, true
}

// Probe reports whether p exists without stamping it: for names in a
// directory whose own stamp (its modification time) changes with its
// entries. ok is false past MaxProbes.
func (f *Files) Probe(p string) (exists, ok bool) {
	if f == nil {
		return false, false
	}
	f.probes++
	if f.probes > MaxProbes {
		return false, false
	}
	_, err := os.Stat(p)
	return err == nil, true
}

// StampDir stamps the directory p without counting a probe: a walk of
// names below a root (builtins/bash, xargs fed by find) holds only while
// each directory it read is unchanged (its modification time changes with
// its entries).
func (f *Files) StampDir(p string) {
	if f != nil {
		f.stamp(probeOf(p))
	}
}

func (f *Files) stamp(st Stamp) {
	key := st.Path
	if st.Resolved {
		key += "\x00"
	}
	if f.seen[key] {
		return
	}
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	f.seen[key] = true
	f.stamps = append(f.stamps, st)
}

// Errors of Read; the message names the file.
var (
	ErrNotExist = errors.New("does not exist")
	ErrOutside  = errors.New("is outside the working directories")
)

// Read returns the contents of the regular file p (absolute, clean). It
// refuses a file outside the working directories (symbolic links
// resolved), a credential file, a file larger than MaxFileBytes, one
// holding NUL bytes, and more than MaxFiles files per analysis; the error
// says which, naming p. Every read is stamped.
func (f *Files) Read(p string) ([]byte, error) { return f.read(p, false) }

// ReadSetting is Read for a configuration file that may also hold
// credentials (.npmrc holds registry tokens): it is read, with the same
// bounds, only for a caller that takes a setting from it and never puts
// its text in a message (npmrcIgnoresScripts).
func (f *Files) ReadSetting(p string) ([]byte, error) { return f.read(p, true) }

func (f *Files) read(p string, credentialOK bool) ([]byte, error) {
	if f == nil || len(f.roots) == 0 {
		return nil, fmt.Errorf("%s: no working directory is known, so permopa reads no script", p)
	}
	st := stampOf(p)
	f.stamp(st)
	if !under(f.roots, p) {
		return nil, fmt.Errorf("%s %w", p, ErrOutside)
	}
	if !st.Exists {
		return nil, fmt.Errorf("%s %w", p, ErrNotExist)
	}
	if st.Real == "" || !under(f.roots, st.Real) {
		return nil, fmt.Errorf("%s leads out of the working directories (to %s)", p, st.Real)
	}
	for _, q := range []string{p, st.Real} {
		if _, cred, why := paths.Default().Classify(q); cred && !credentialOK {
			return nil, fmt.Errorf("%s is a credential file (%s): permopa does not read it as a script", p, why)
		}
	}
	if st.Dir {
		return nil, fmt.Errorf("%s is a directory", p)
	}
	if st.Size > MaxFileBytes {
		return nil, fmt.Errorf("%s is larger than %d KiB, more than permopa reads", p, MaxFileBytes>>10)
	}
	f.files++
	if f.files > MaxFiles {
		return nil, fmt.Errorf("%s: the command runs more than %d script files, more than permopa reads", p, MaxFiles)
	}
	if data, ok := cache.get(st); ok {
		return data, nil
	}
	data, err := readRegular(st.Real, MaxFileBytes+1)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read: %w", p, err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s is larger than %d KiB, more than permopa reads", p, MaxFileBytes>>10)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, fmt.Errorf("%s is a binary file", p)
	}
	// The file may have changed between the stat and the read: stamp what
	// was read, so that a later check sees the change.
	if again := stampOf(p); again != st {
		return nil, fmt.Errorf("%s changed while permopa read it", p)
	}
	cache.put(st, data)
	return data, nil
}

// readRegular reads at most limit bytes of the regular file p, opened
// without blocking: a FIFO or device swapped in never stalls the decision.
func readRegular(p string, limit int64) ([]byte, error) {
	fh, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return io.ReadAll(io.LimitReader(fh, limit))
}

// Stamp is what a file looked like when it was read or probed.
type Stamp struct {
	Path string
	// Resolved: Real was looked up (a file read, not only probed).
	Resolved bool
	Real     string // the path with every symbolic link resolved
	Exists   bool
	Dir      bool
	Size     int64
	Mtime    int64 // nanoseconds
	Ctime    int64 // nanoseconds; 0 where the platform has none
	Inode    uint64
}

// stampOf stamps a file that is read: what Stat says and where its links lead.
func stampOf(p string) Stamp {
	st := probeOf(p)
	st.Resolved = true
	if st.Exists {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			st.Real = real
		}
	}
	return st
}

// probeOf stamps a file only probed: what Stat says.
func probeOf(p string) Stamp {
	st := Stamp{Path: p}
	fi, err := os.Stat(p)
	if err != nil {
		return st
	}
	st.Exists = true
	st.Dir = fi.IsDir()
	st.Size = fi.Size()
	st.Mtime = fi.ModTime().UnixNano()
	st.Ctime, st.Inode = changeTime(fi)
	return st
}

// Fresh reports whether every stamped file still looks as stamped: its
// existence, size, modification and change times and inode, and for a
// file read the target of its links.
func Fresh(stamps []Stamp) bool {
	for _, s := range stamps {
		now := probeOf(s.Path)
		if s.Resolved {
			now = stampOf(s.Path)
		}
		if now != s {
			return false
		}
	}
	return true
}

// contentCache keeps file contents by stamp, bounded in bytes: a file is
// read again only when its stamp changes.
type contentCache struct {
	mu       sync.Mutex
	cur, old map[Stamp][]byte
	curBytes int
}

const cacheBytes = 4 << 20

var cache = &contentCache{}

func (c *contentCache) get(st Stamp) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.cur[st]; ok {
		return d, true
	}
	if d, ok := c.old[st]; ok {
		c.store(st, d)
		return d, true
	}
	return nil, false
}

func (c *contentCache) put(st Stamp, d []byte) {
	c.mu.Lock()
	c.store(st, d)
	c.mu.Unlock()
}

// store keeps two generations: when the current one passes half the
// budget it becomes the old one and the previous old one is dropped.
func (c *contentCache) store(st Stamp, d []byte) {
	if c.cur == nil {
		c.cur = map[Stamp][]byte{}
	}
	if c.curBytes+len(d) > cacheBytes/2 {
		c.old, c.cur, c.curBytes = c.cur, map[Stamp][]byte{}, 0
	}
	c.cur[st] = d
	c.curBytes += len(d)
}

// MaxDirEntries bounds the entries of one directory List reads.
const MaxDirEntries = 1024

// List returns the names of the subdirectories of dir (absolute, clean),
// sorted, links followed: for globs a reader expands (npm's workspaces).
// It refuses a directory outside the working directories (links
// resolved) and one with more than MaxDirEntries entries; the directory
// is stamped (its modification time changes with its entries) and each
// entry counts as a probe.
func (f *Files) List(dir string) ([]string, error) {
	if f == nil || len(f.roots) == 0 {
		return nil, fmt.Errorf("%s: no working directory is known, so permopa reads no script", dir)
	}
	st := stampOf(dir)
	f.stamp(st)
	switch {
	case !under(f.roots, dir):
		return nil, fmt.Errorf("%s %w", dir, ErrOutside)
	case !st.Exists:
		return nil, fmt.Errorf("%s %w", dir, ErrNotExist)
	case st.Real == "" || !under(f.roots, st.Real):
		return nil, fmt.Errorf("%s leads out of the working directories (to %s)", dir, st.Real)
	case !st.Dir:
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	fh, err := os.Open(st.Real)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read: %w", dir, err)
	}
	defer fh.Close()
	names, err := fh.Readdirnames(MaxDirEntries + 1)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s cannot be read: %w", dir, err)
	}
	if len(names) > MaxDirEntries {
		return nil, fmt.Errorf("%s has more than %d entries, more than permopa reads", dir, MaxDirEntries)
	}
	var out []string
	for _, n := range names {
		if f.probes++; f.probes > MaxProbes {
			return nil, fmt.Errorf("%s: permopa looked at more files than it reads", dir)
		}
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.IsDir() {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}
