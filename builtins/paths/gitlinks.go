package paths

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"os"
	"path"
)

// maxIndexBytes bounds the git index read for submodules (a large
// monorepo's index is tens of MiB).
const maxIndexBytes = 256 << 20

// gitWorkTreeSubmodules reads the repositories of the populated
// submodules of the work tree top: git status and git diff look into each
// gitlink of the index whose directory holds a .git, with that
// repository's own configuration and hooks (an embedded repository added
// with `git add sub`, no .gitmodules needed, ran its core.fsmonitor under
// the superproject's git status: TestGitWorkTreeSubmodules). depth counts
// the nesting; seen bounds the repositories read.
func (r *configReader) gitWorkTreeSubmodules(gitDir, top string, depth int, seen *int) {
	idx := path.Join(gitDir, "index")
	facts, err := readGitIndexFacts(idx)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return
	case err != nil:
		r.add(idx, 0, "", "cannot be read: "+err.Error())
		return
	case facts.tooLarge:
		r.add(idx, 0, "", "is larger than permopa reads for submodules")
		return
	case !facts.ok:
		if facts.valid {
			r.add(idx, 0, "", "cannot be parsed (the submodules git status looks into are not known)")
		}
		return
	case facts.split:
		r.add(idx, 0, "", "is a split index, whose shared part permopa does not read (the submodules git status looks into are not known)")
		return
	}
	links := facts.links
	for _, l := range links {
		sub := path.Join(top, l)
		if _, err := os.Lstat(path.Join(sub, ".git")); err != nil {
			continue // not populated: git does not look into it
		}
		*seen++
		if *seen > maxModuleDirs || depth >= maxIncludeDepth {
			r.add(sub, 0, "", "more submodule repositories than permopa reads")
			return
		}
		r.gitRepoAt(sub, depth+1, seen)
	}
}

// gitIndexFacts is what gitWorkTreeSubmodules needs of a git index: its
// gitlinks, whether it is a split index, whether it parses (ok) and, when
// it does not, whether git would read it (valid: its checksum holds), or
// that it is larger than permopa reads.
type gitIndexFacts struct {
	links            []string
	split, ok, valid bool
	tooLarge         bool
}

// parseGitIndex finds the facts of the index data. The checksum is only
// computed for an index that does not parse: git refuses one whose
// checksum fails, and runs nothing.
func parseGitIndex(data []byte) gitIndexFacts {
	if len(data) > maxIndexBytes {
		return gitIndexFacts{tooLarge: true}
	}
	var f gitIndexFacts
	f.links, f.split, f.ok = gitIndexGitlinks(data, 20)
	if !f.ok {
		f.links, f.split, f.ok = gitIndexGitlinks(data, 32) // SHA-256 repositories
	}
	if !f.ok {
		_, f.valid = gitIndexTrailer(data)
	}
	return f
}

// gitIndexTrailer says how long the object names of the git index data
// are (20: SHA-1, 32: SHA-256) by its trailing checksum, and whether git
// reads the index: it checks the checksum, unless the trailer is all zeros
// (index.skipHash), when either length may be meant (20 is tried first).
func gitIndexTrailer(data []byte) (hashLen int, valid bool) {
	for _, n := range []int{20, 32} {
		if len(data) < 12+n {
			continue
		}
		body, trailer := data[:len(data)-n], data[len(data)-n:]
		var sum []byte
		if n == 20 {
			s := sha1.Sum(body)
			sum = s[:]
		} else {
			s := sha256.Sum256(body)
			sum = s[:]
		}
		if bytes.Equal(sum, trailer) {
			return n, true
		}
	}
	if len(data) >= 12+20 && bytes.Count(data[len(data)-20:], []byte{0}) == 20 {
		return 20, true
	}
	return 0, false
}

// gitIndexGitlinks returns the paths of the gitlinks (mode 160000) of a
// git index of version 2, 3 or 4 whose object names are hashLen bytes,
// and whether it is a split index (a "link" extension: the entries are in
// a shared index too); ok is false when data is not such an index.
func gitIndexGitlinks(data []byte, hashLen int) (links []string, split, ok bool) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, false, false
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, false, false
	}
	n := int(binary.BigEndian.Uint32(data[8:12]))
	off := 12
	var prev []byte
	for i := 0; i < n; i++ {
		start := off
		fixed := 40 + hashLen + 2
		if off+fixed > len(data) {
			return nil, false, false
		}
		mode := binary.BigEndian.Uint32(data[off+24 : off+28])
		flags := binary.BigEndian.Uint16(data[off+40+hashLen : off+fixed])
		if flags&0x4000 != 0 {
			if version < 3 {
				return nil, false, false
			}
			fixed += 2
		}
		off += fixed
		var name []byte
		if version == 4 {
			// The name is the previous one less a varint's count of
			// bytes, then a NUL-terminated suffix.
			strip, used := gitVarint(data[off:])
			if used == 0 || strip > uint64(len(prev)) {
				return nil, false, false
			}
			off += used
			end := indexByte(data, off)
			if end < 0 {
				return nil, false, false
			}
			name = append(append([]byte{}, prev[:len(prev)-int(strip)]...), data[off:end]...)
			off = end + 1
		} else {
			end := indexByte(data, off)
			if end < 0 {
				return nil, false, false
			}
			name = data[off:end]
			off = start + (fixed+len(name)+8)&^7
			if off > len(data) {
				return nil, false, false
			}
		}
		if nl := int(flags & 0xfff); nl < 0xfff && nl != len(name) {
			return nil, false, false
		}
		if mode == 0o160000 {
			links = append(links, string(name))
		}
		prev = name
	}
	// Extensions: a signature, a length, the data; then the checksum.
	for len(data)-off > hashLen {
		if off+8 > len(data)-hashLen {
			return nil, false, false
		}
		sig := string(data[off : off+4])
		size := int(binary.BigEndian.Uint32(data[off+4 : off+8]))
		if size < 0 || off+8+size > len(data)-hashLen {
			return nil, false, false
		}
		split = split || sig == "link"
		off += 8 + size
	}
	return links, split, len(data)-off == hashLen
}

// gitVarint decodes git's offset varint (used bytes 0 when malformed).
func gitVarint(b []byte) (val uint64, used int) {
	for i, c := range b {
		if i == 0 {
			val = uint64(c & 127)
		} else {
			val = (val+1)<<7 | uint64(c&127)
		}
		if c&128 == 0 {
			return val, i + 1
		}
		if i >= 9 {
			break
		}
	}
	return 0, 0
}

func indexByte(b []byte, from int) int {
	for i := from; i < len(b); i++ {
		if b[i] == 0 {
			return i
		}
	}
	return -1
}
