package paths

import (
	"os"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Shell globs in paths. The bash analyser leaves globs literal in the paths a
// command reads and writes ("cat .e*" reads "/repo/.e*"); the shell expands
// them at run time. A check that only looked at the literal string would let
// `cat .e*` read .env past every dangerous-path check and deny rule, so the
// path built-ins also look at what the glob expands to now (Expand) and at
// which dangerous names it could denote (Classifier.ClassifyGlob).

// Expansion bounds: the matches kept and the directory entries read.
const (
	maxExpansions = 256
	maxDirEntries = 8192
)

// HasGlob reports whether p contains shell glob syntax: * ? [ or a brace.
func HasGlob(p string) bool { return strings.ContainsAny(p, "*?[{") }

// Expand returns the existing paths the clean absolute shell glob p names,
// the way bash expands it without globstar, but as a superset: `*` and `?`
// also match a leading dot, `**` is `*`, braces within a segment are
// alternatives. Symlinked directories are followed. complete is false when
// the expansion was cut short (more than maxExpansions matches, more than
// maxDirEntries entries read, or a segment that is not a valid glob); the
// matches found so far are still returned.
func Expand(p string) (matches []string, complete bool) {
	cur := []string{""}
	read := 0
	rest := strings.TrimPrefix(p, "/")
	for rest != "" {
		seg := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			seg, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if seg == "" {
			continue
		}
		var next []string
		if !HasGlob(seg) {
			for _, c := range cur {
				next = append(next, c+"/"+seg)
			}
		} else {
			for strings.Contains(seg, "**") {
				seg = strings.ReplaceAll(seg, "**", "*")
			}
			if !doublestar.ValidatePattern(seg) {
				return nil, false
			}
			for _, c := range cur {
				dir := c
				if dir == "" {
					dir = "/"
				}
				entries, err := os.ReadDir(dir)
				if err != nil {
					continue
				}
				read += len(entries)
				if read > maxDirEntries {
					return existing(next), false
				}
				for _, e := range entries {
					if doublestar.MatchUnvalidated(seg, e.Name()) {
						next = append(next, c+"/"+e.Name())
					}
				}
				if len(next) > maxExpansions {
					return existing(next[:maxExpansions]), false
				}
			}
		}
		cur = next
		if len(cur) == 0 {
			return nil, true
		}
	}
	return existing(cur), true
}

// existing keeps the paths that exist (a dangling symlink counts).
func existing(ps []string) []string {
	out := ps[:0]
	for _, p := range ps {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// ClassifyGlob says whether the shell glob p could denote a dangerous path
// by name alone: the fallback for a glob that could not be expanded
// completely (Expand is precise for what exists). A
// run of segments with a glob that matches a dangerous directory name, or
// trailing segments that match a dangerous file name (`.e*` may name `.env`,
// `id_*` may name `id_rsa`). Names given as globs are probed with sample
// names. Removed names are probed all the same (a glob may name another file
// the removal did not mean). A path without glob syntax is classified as
// Classify does.
func (c *Classifier) ClassifyGlob(p string) (dangerous, credential bool, reason string) {
	dangerous, credential, reason = c.Classify(p)
	if credential || !HasGlob(p) {
		return
	}
	segs := splitSegments(strings.ToLower(p), nil)
	for i, s := range segs {
		for strings.Contains(s, "**") {
			s = strings.ReplaceAll(s, "**", "*")
		}
		segs[i] = s
	}
	orig := splitSegments(p, nil)
	if len(orig) != len(segs) {
		orig = segs
	}
	hit := func(e *entry, end int, kind string) bool {
		if e == nil || (dangerous && !(e.credential && !credential)) {
			return false
		}
		k := min(len(e.parts), end+1)
		dangerous, credential = true, e.credential
		reason = "`" + strings.Join(orig[end-k+1:end+1], "/") + "` may name a `" + e.name + "` " + kind
		return credential
	}
	last := len(segs) - 1
	if last < 0 {
		return
	}
	for _, s := range []*nameSet{&c.fileAdd, &c.files} {
		if hit(s.probeAt(segs, last), last, "file") {
			return
		}
	}
	for end := 0; end <= last; end++ {
		for _, s := range []*nameSet{&c.dirAdd, &c.dirs} {
			if hit(s.probeAt(segs, end), end, "directory") {
				return
			}
		}
	}
	return
}

// probeAt returns an entry of s that the run of segs ending at end could
// denote once its globs are expanded, preferring a credential entry. Runs
// without a glob are left to matchEnd.
func (s *nameSet) probeAt(segs []string, end int) *entry {
	var found *entry
	consider := func(e *entry) bool {
		k := len(e.parts)
		if k > end+1 {
			return false
		}
		glob := false
		for j, part := range e.parts {
			seg := segs[end-k+1+j]
			if !HasGlob(seg) {
				if !part.match(seg) {
					return false
				}
				continue
			}
			glob = true
			if !slices.ContainsFunc(part.samples(), func(n string) bool { return globNames(seg, n) }) {
				return false
			}
		}
		if !glob || slices.ContainsFunc(e.except, func(x string) bool { return doublestar.MatchUnvalidated(x, segs[end]) }) {
			return false
		}
		if found == nil || (e.credential && !found.credential) {
			found = e
		}
		return found.credential
	}
	if HasGlob(segs[end]) {
		for _, e := range s.single {
			if consider(e) {
				return found
			}
		}
	}
	for _, e := range s.multi {
		if consider(e) {
			return found
		}
	}
	return found
}

// globNames reports whether the shell glob seg expands to name, with bash's
// rule that a wildcard does not match a leading dot (braces, expanded before
// globbing, may spell one).
func globNames(seg, name string) bool {
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(seg, ".") && !strings.Contains(seg, "{") {
		return false
	}
	return doublestar.MatchUnvalidated(seg, name)
}

// samples returns names that a part denotes: itself when literal; for a
// glob, its literal characters with every wildcard empty and with every
// wildcard one letter.
func (p part) samples() []string {
	if !p.glob {
		return []string{p.s}
	}
	return []string{globSample(p.s, ""), globSample(p.s, "x")}
}

// globSample replaces the wildcards of a glob (a class counts as one
// character) by fill, or by "x" for a class when fill is empty.
func globSample(g, fill string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case '*', '?':
			b.WriteString(fill)
		case '[':
			j := strings.IndexByte(g[i:], ']')
			if j < 0 {
				return b.String()
			}
			b.WriteString("x")
			i += j
		case '{', '}', ',', '\\':
		default:
			b.WriteByte(g[i])
		}
	}
	return b.String()
}
