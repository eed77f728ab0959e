package paths

import (
	"fmt"
	"hash/maphash"
	"path"
	"runtime"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/permopa/permopa/builtins/internal/lru"
)

// Mode says how MatchAny combines a pattern with several paths.
type Mode int

const (
	// ModeAny is for deny and ask rules: a pattern hits when it matches the
	// Abs or the Real form of any of the paths.
	ModeAny Mode = iota
	// ModeAll is for allow rules: a pattern covers when it matches the Abs
	// and the Real form of every path. No paths: nothing is covered.
	ModeAll
)

// ParseMode reads "any" (also "") or "all".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "any":
		return ModeAny, nil
	case "all":
		return ModeAll, nil
	}
	return ModeAny, fmt.Errorf("mode %q: want \"any\" or \"all\"", s)
}

func (m Mode) String() string {
	if m == ModeAll {
		return "all"
	}
	return "any"
}

// foldCase makes rule globs case-insensitive, as the file systems of macOS
// and Windows are by default: there a deny rule on ".env" must also stop
// ".ENV".
var foldCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// Glob is a compiled file-rule pattern (contract §3): a doublestar pattern
// over clean absolute paths, where "*" stays within a segment and "**"
// crosses segments. The pattern is anchored by its first characters:
//
//	"/abs/**", "//abs/**"  absolute ("//" is Claude Code's spelling)
//	"~", "~/x"             the home directory
//	"**", "**/x"           anywhere ("/**/x")
//	"./x", "x", "../x"     relative to the call's cwd
//	""                     every path (a rule without content)
//
// A trailing "/" means the directory and everything below it ("src/" is
// "src/**"). The cwd and home are inserted literally: their glob
// metacharacters are escaped.
type Glob struct {
	pattern  string
	expanded string
	literal  bool
	// For the index: the literal directory every match lies in (or is), the
	// literal last segment, or the literal extension of the last segment.
	dir, base, ext string
}

// Pattern returns the pattern as written.
func (g Glob) Pattern() string { return g.pattern }

// Expanded returns the absolute doublestar pattern the Glob matches with.
func (g Glob) Expanded() string { return g.expanded }

// Match reports whether the clean absolute path p matches.
func (g Glob) Match(p string) bool {
	if foldCase {
		p = strings.ToLower(p)
	}
	return g.match(p)
}

func (g Glob) match(p string) bool {
	if g.literal {
		return g.expanded == p
	}
	return doublestar.MatchUnvalidated(g.expanded, p)
}

type globKey struct{ pattern, cwd, home string }

var globs = lru.New[globKey, Glob](1 << 16)

// CompileRule compiles a file-rule pattern for a call with the given cwd and
// home (see Glob), through a process-wide bounded cache. A malformed pattern
// is an error naming it.
func CompileRule(pattern, cwd, home string) (Glob, error) {
	k := globKey{pattern: pattern}
	switch anchorOf(pattern) {
	case anchorHome:
		k.home = home
	case anchorCwd:
		k.cwd, k.home = cwd, home
	}
	if g, ok := globs.Get(k); ok {
		return g, nil
	}
	g, err := compileRule(pattern, cwd, home)
	if err != nil {
		return g, err
	}
	globs.Put(k, g)
	return g, nil
}

type anchor int

const (
	anchorAbs anchor = iota
	anchorHome
	anchorAnywhere
	anchorCwd
)

func anchorOf(p string) anchor {
	switch {
	case p == "" || strings.HasPrefix(p, "/"):
		return anchorAbs
	case p == "~" || strings.HasPrefix(p, "~/"):
		return anchorHome
	case p == "**" || strings.HasPrefix(p, "**/"):
		return anchorAnywhere
	}
	return anchorCwd
}

const globMeta = "*?[]{}\\"

func escapeGlob(s string) string {
	if !strings.ContainsAny(s, globMeta) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(globMeta, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func compileRule(pattern, cwd, home string) (Glob, error) {
	g := Glob{pattern: pattern}
	p := pattern
	switch anchorOf(p) {
	case anchorAbs:
		if p == "" {
			p = "/**"
		}
	case anchorHome:
		h := normHome(home)
		if h == "" {
			return g, fmt.Errorf("pattern %q: no home directory to anchor it", pattern)
		}
		if p == "~" {
			p = escapeGlob(h)
		} else {
			p = escapeGlob(h) + p[1:]
		}
	case anchorAnywhere:
		p = "/" + p
	case anchorCwd:
		p = escapeGlob(absDir(cwd, home)) + "/" + p
	}
	if strings.HasSuffix(p, "/") && p != "/" {
		p += "**"
	}
	p = path.Clean(p)
	if foldCase {
		p = strings.ToLower(p)
	}
	if !doublestar.ValidatePattern(p) {
		return g, fmt.Errorf("pattern %q: malformed glob", pattern)
	}
	g.expanded = p

	// Index facts.
	slash := strings.LastIndexByte(p, '/')
	last := p[slash+1:]
	m := strings.IndexAny(p, globMeta)
	if m < 0 {
		g.literal = true
		g.dir = p[:max(slash, 1)]
		g.base = last
		return g, nil
	}
	d := strings.LastIndexByte(p[:m], '/')
	g.dir = p[:max(d, 1)]
	if !strings.ContainsAny(last, globMeta) {
		g.base = last
	} else if t := last[strings.LastIndexAny(last, globMeta)+1:]; strings.Contains(t, ".") {
		g.ext = t[strings.LastIndexByte(t, '.'):]
	}
	return g, nil
}

// RuleSet is a compiled, indexed list of file-rule patterns. It is immutable
// and safe for concurrent use.
type RuleSet struct {
	patterns  []string
	globs     []Glob
	idx       map[string]*bucket // by Glob.dir; nil for small sets
	dirsIndex                    // the idx keys sorted, for MatchTrees (treeglob.go)
}

type bucket struct {
	byBase map[string][]int32
	byExt  map[string][]int32
	rest   []int32
}

// indexFrom is the size from which a RuleSet is indexed; below it a linear
// scan is faster.
const indexFrom = 4

// CompileRules compiles patterns for a call with the given cwd and home. The
// first malformed pattern is an error naming it.
func CompileRules(patterns []string, cwd, home string) (*RuleSet, error) {
	rs := &RuleSet{patterns: slices.Clone(patterns), globs: make([]Glob, len(patterns))}
	for i, p := range patterns {
		g, err := CompileRule(p, cwd, home)
		if err != nil {
			return nil, err
		}
		rs.globs[i] = g
	}
	if len(rs.globs) >= indexFrom {
		rs.idx = make(map[string]*bucket)
		for i, g := range rs.globs {
			b := rs.idx[g.dir]
			if b == nil {
				b = &bucket{}
				rs.idx[g.dir] = b
			}
			switch {
			case g.base != "":
				if b.byBase == nil {
					b.byBase = make(map[string][]int32)
				}
				b.byBase[g.base] = append(b.byBase[g.base], int32(i))
			case g.ext != "":
				if b.byExt == nil {
					b.byExt = make(map[string][]int32)
				}
				b.byExt[g.ext] = append(b.byExt[g.ext], int32(i))
			default:
				b.rest = append(b.rest, int32(i))
			}
		}
	}
	return rs, nil
}

// Len returns the number of patterns.
func (rs *RuleSet) Len() int { return len(rs.globs) }

// Patterns returns the patterns as written; callers must not modify it.
func (rs *RuleSet) Patterns() []string { return rs.patterns }

// Match returns the index of the first pattern that hits (ModeAny) or covers
// (ModeAll) paths, or -1.
func (rs *RuleSet) Match(paths []Resolved, mode Mode) int {
	if len(paths) == 0 || len(rs.globs) == 0 {
		return -1
	}
	if mode == ModeAll {
		return rs.matchAll(paths)
	}
	best := -1
	for _, r := range paths {
		abs, real := r.Abs, r.Real
		if foldCase {
			abs, real = strings.ToLower(abs), strings.ToLower(real)
		}
		best = rs.first(abs, best, nil)
		if real != abs {
			best = rs.first(real, best, nil)
		}
		if best == 0 {
			break
		}
	}
	return best
}

func (rs *RuleSet) matchAll(paths []Resolved) int {
	fold := paths
	if foldCase {
		fold = make([]Resolved, len(paths))
		for i, r := range paths {
			fold[i] = Resolved{Abs: strings.ToLower(r.Abs), Real: strings.ToLower(r.Real)}
		}
	}
	return rs.first(fold[0].Abs, -1, fold)
}

// first returns the lowest index below best (or any, when best is -1) of a
// pattern that matches p and, when all is not nil, matches the Abs and Real
// form of every path in all; else best.
func (rs *RuleSet) first(p string, best int, all []Resolved) int {
	ok := func(i int) bool {
		g := &rs.globs[i]
		if !g.match(p) {
			return false
		}
		for _, r := range all {
			if (r.Abs != p && !g.match(r.Abs)) || (r.Real != p && !g.match(r.Real)) {
				return false
			}
		}
		return true
	}
	if rs.idx == nil {
		end := len(rs.globs)
		if best >= 0 {
			end = best
		}
		for i := 0; i < end; i++ {
			if ok(i) {
				return i
			}
		}
		return best
	}
	try := func(list []int32) {
		for _, i := range list {
			if best >= 0 && int(i) >= best {
				return // lists are ascending
			}
			if ok(int(i)) {
				best = int(i)
				return
			}
		}
	}
	base := p[strings.LastIndexByte(p, '/')+1:]
	ext := ""
	if d := strings.LastIndexByte(base, '.'); d >= 0 {
		ext = base[d:]
	}
	visit := func(dir string) {
		b := rs.idx[dir]
		if b == nil {
			return
		}
		if b.byBase != nil {
			try(b.byBase[base])
		}
		if b.byExt != nil && ext != "" {
			try(b.byExt[ext])
		}
		try(b.rest)
	}
	// Every directory p lies in, from "/" down, and p itself.
	visit("/")
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			visit(p[:i])
		}
	}
	if p != "/" {
		visit(p)
	}
	return best
}

// MatchLiteralByGlob returns the index of the first pattern without
// wildcards that the shell glob g could name (`/p/.e*` names a rule on
// `/p/.env`), or -1: the fallback for a glob too large to expand.
func (rs *RuleSet) MatchLiteralByGlob(g string) int {
	if foldCase {
		g = strings.ToLower(g)
	}
	for i := range rs.globs {
		if rs.globs[i].literal && globNames(g, rs.globs[i].expanded) {
			return i
		}
	}
	return -1
}

type rulesKey struct {
	h         uint64
	cwd, home string
	n         int
}

var (
	ruleSets = lru.New[rulesKey, *RuleSet](1 << 18) // weighed by patterns
	seed     = maphash.MakeSeed()
)

// CachedRules is CompileRules through a process-wide bounded cache keyed by
// the patterns (hashed, then compared), cwd and home.
func CachedRules(patterns []string, cwd, home string) (*RuleSet, error) {
	var h maphash.Hash
	h.SetSeed(seed)
	for _, p := range patterns {
		h.WriteString(p)
		h.WriteByte(0)
	}
	k := rulesKey{h: h.Sum64(), cwd: cwd, home: home, n: len(patterns)}
	if rs, ok := ruleSets.Get(k); ok && slices.Equal(rs.patterns, patterns) {
		return rs, nil
	}
	rs, err := CompileRules(patterns, cwd, home)
	if err != nil {
		return nil, err
	}
	ruleSets.PutWeighted(k, rs, len(patterns))
	return rs, nil
}

// MatchAny resolves every path against cwd and home (see Resolve) and returns
// the index of the first pattern that hits (ModeAny) or covers (ModeAll) them,
// or -1. A malformed pattern is an error naming it. Paths are taken
// literally: shell globs in them are not expanded (the built-in
// permopa.glob.match_any adds the expansions, see Expand).
func MatchAny(patterns, paths []string, cwd, home string, mode Mode) (int, error) {
	rs, err := CachedRules(patterns, cwd, home)
	if err != nil {
		return -1, err
	}
	rp := make([]Resolved, len(paths))
	for i, p := range paths {
		rp[i] = ResolvePath(p, cwd, home)
	}
	return rs.Match(rp, mode), nil
}
