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

// FoldByDefault says whether the file system compares names without
// regard to case by default, as those of macOS and Windows do: there a deny
// rule on ".env" must also stop ".ENV". Deny and ask rules fold case when it
// is set or the settings ask for it (case_insensitive_paths); allow rules
// never do (docs/rules.md): an allow rule covers a path only as spelled.
var FoldByDefault = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// Glob is a compiled file-rule pattern (docs/rules.md): a doublestar pattern
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
	folded   bool
	// fn is set for a pattern with FnmatchPrefix: it matches path strings
	// as AgentScope does, not clean absolute paths. fnHome is the same
	// pattern with a leading "~" read as the home directory, which deny and
	// ask rules also try.
	fn, fnHome *fnmatch
	fnStyle    byte   // how the fnmatch pattern writes paths: '/' absolute, '~' at the home, '.' relative
	home       string // the home, for '~'-style patterns
	// For the index: the literal directory every match lies in (or is), the
	// literal last segment, or the literal extension of the last segment.
	dir, base, ext string
}

// Pattern returns the pattern as written.
func (g Glob) Pattern() string { return g.pattern }

// Expanded returns the absolute doublestar pattern the Glob matches with.
func (g Glob) Expanded() string { return g.expanded }

// Match reports whether the clean absolute path p matches (for an fnmatch
// pattern: whether the string p does).
func (g Glob) Match(p string) bool {
	if g.folded {
		p = strings.ToLower(p)
	}
	return g.match(p)
}

func (g Glob) match(p string) bool {
	if g.fn != nil {
		return g.fn.match(p)
	}
	if g.literal {
		return g.expanded == p
	}
	return doublestar.MatchUnvalidated(g.expanded, p)
}

// fnmatchEscape makes s literal in an fnmatch pattern.
func fnmatchEscape(s string) string {
	if !strings.ContainsAny(s, "*?[") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[':
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

type globKey struct {
	pattern, cwd, home string
	fold               bool
}

var globs = lru.New[globKey, Glob](1 << 16)

// CompileRule compiles a file-rule pattern for a call with the given cwd and
// home (see Glob), through a process-wide bounded cache. A malformed pattern
// is an error naming it.
func CompileRule(pattern, cwd, home string) (Glob, error) {
	return compileCached(pattern, cwd, home, false)
}

// CompileRuleFolded is CompileRule comparing without regard to case (for
// deny and ask rules on a case-insensitive file system).
func CompileRuleFolded(pattern, cwd, home string) (Glob, error) {
	return compileCached(pattern, cwd, home, true)
}

func compileCached(pattern, cwd, home string, fold bool) (Glob, error) {
	k := globKey{pattern: pattern, fold: fold}
	switch anchorOf(pattern) {
	case anchorHome:
		k.home = home
	case anchorCwd:
		k.cwd, k.home = cwd, home
	}
	if g, ok := globs.Get(k); ok {
		return g, nil
	}
	g, err := compileRule(pattern, cwd, home, fold)
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
	case strings.HasPrefix(p, FnmatchPrefix+"~"):
		return anchorHome // the home stands in for "~" in deny rules
	case strings.HasPrefix(p, FnmatchPrefix):
		return anchorAbs // matched as written: nothing to anchor
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

func compileRule(pattern, cwd, home string, fold bool) (Glob, error) {
	g := Glob{pattern: pattern, folded: fold}
	if rest, ok := strings.CutPrefix(pattern, FnmatchPrefix); ok {
		fn, err := compileFnmatch(rest, fold)
		if err != nil {
			return g, err
		}
		g.fn, g.expanded = fn, pattern
		g.fnStyle = '.'
		if strings.HasPrefix(rest, "/") {
			g.fnStyle = '/'
		}
		if rest == "~" || strings.HasPrefix(rest, "~/") {
			g.fnStyle = '~'
			if h := normHome(home); h != "" {
				g.home = h
				if g.fnHome, err = compileFnmatch(fnmatchEscape(h)+rest[1:], fold); err != nil {
					return g, err
				}
			}
		}
		return g, nil
	}
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
	if fold {
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
	fold      bool
	idx       map[string]*bucket // by Glob.dir; nil for small sets
	fn        []int32            // the fnmatch patterns, ascending
	nfn       int                // patterns that are not fnmatch ones
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
	return compileRules(patterns, cwd, home, false)
}

// CompileRulesFolded is CompileRules comparing without regard to case: for
// deny and ask rules where the file system does (FoldByDefault, or a
// setting). Allow rules are never folded.
func CompileRulesFolded(patterns []string, cwd, home string) (*RuleSet, error) {
	return compileRules(patterns, cwd, home, true)
}

func compileRules(patterns []string, cwd, home string, fold bool) (*RuleSet, error) {
	rs := &RuleSet{patterns: slices.Clone(patterns), globs: make([]Glob, len(patterns)), fold: fold}
	for i, p := range patterns {
		g, err := compileCached(p, cwd, home, fold)
		if err != nil {
			return nil, err
		}
		rs.globs[i] = g
		if g.fn != nil {
			rs.fn = append(rs.fn, int32(i))
		}
	}
	rs.nfn = len(rs.globs) - len(rs.fn)
	if rs.nfn >= indexFrom {
		rs.idx = make(map[string]*bucket)
		for i, g := range rs.globs {
			if g.fn != nil {
				continue
			}
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

// Folded reports whether the set compares without regard to case.
func (rs *RuleSet) Folded() bool { return rs.fold }

// Target is one path of a call: the string as written (Raw, "" when not
// known) and every form under which it reaches a file: its Resolved forms,
// OtherRoads, and what a shell glob in it expands to.
type Target struct {
	Raw   string
	Forms []Resolved
}

// Match returns the index of the first pattern that hits (ModeAny) or covers
// (ModeAll) paths, or -1.
func (rs *RuleSet) Match(paths []Resolved, mode Mode) int {
	if len(paths) == 0 || len(rs.globs) == 0 {
		return -1
	}
	return rs.MatchTargets([]Target{{Forms: paths}}, "/", mode)
}

// MatchTargets returns the index of the first pattern that hits (ModeAny)
// or covers (ModeAll) the targets, or -1. A doublestar pattern hits when it
// matches any form of any target and covers when it matches every form of
// every target. An fnmatch pattern (FnmatchPrefix) is matched the way
// AgentScope matches it, against the path as written, and further: it hits
// when it matches the raw string, any form, or any form relative to cwd;
// it covers when it matches the raw string and every form written the way
// the raw string is (absolute, or relative to cwd), so that ".." or a
// symlink cannot carry an allowed spelling elsewhere. No targets: -1.
func (rs *RuleSet) MatchTargets(ts []Target, cwd string, mode Mode) int {
	if len(ts) == 0 || len(rs.globs) == 0 {
		return -1
	}
	var buf [8]Resolved
	forms := buf[:0]
	for _, t := range ts {
		for _, f := range t.Forms {
			if f.Unknown != "" && mode == ModeAll {
				return -1 // what the kernel reaches is not known: nothing covers it
			}
		}
		forms = append(forms, t.Forms...)
	}
	if rs.fold {
		folded := make([]Resolved, len(forms))
		for i, r := range forms {
			folded[i] = Resolved{Abs: strings.ToLower(r.Abs), Real: strings.ToLower(r.Real)}
		}
		forms = folded
	}
	best := -1
	if rs.nfn > 0 && len(forms) > 0 {
		if mode == ModeAll {
			best = rs.first(forms[0].Abs, -1, forms)
		} else {
			for _, r := range forms {
				best = rs.first(r.Abs, best, nil)
				if r.Real != r.Abs {
					best = rs.first(r.Real, best, nil)
				}
				if best == 0 {
					break
				}
			}
		}
	}
	for _, i := range rs.fn {
		if best >= 0 && int(i) >= best {
			break
		}
		if rs.fnHit(&rs.globs[i], ts, cwd, mode) {
			best = int(i)
			break
		}
	}
	if mode == ModeAny {
		for _, r := range forms {
			if r.Tail != "" {
				best = rs.firstEndingIn(r.Tail, best)
			}
		}
	}
	return best
}

// firstEndingIn returns the lowest index below best (or any, when best is
// -1) of a doublestar pattern that could match a path ending in "/"+tail,
// else best: the fallback for a path in a directory that cannot be known
// statically (Resolved.Tail). The directory is tried as each leading run
// of the pattern's own segments (a wildcard segment by a sample name).
func (rs *RuleSet) firstEndingIn(tail string, best int) int {
	if rs.fold {
		tail = strings.ToLower(tail)
	}
	end := len(rs.globs)
	if best >= 0 {
		end = best
	}
	for i := 0; i < end; i++ {
		g := &rs.globs[i]
		if g.fn != nil {
			continue
		}
		prefix := ""
		if g.match("/" + tail) {
			return i
		}
		for _, seg := range splitSegments(g.expanded, nil) {
			switch {
			case seg == "**":
				continue
			case isWild(seg):
				seg = globSample(seg, "x")
			}
			prefix += "/" + seg
			if g.match(prefix + "/" + tail) {
				return i
			}
		}
	}
	return best
}

// fnHit applies an fnmatch pattern to the targets (see MatchTargets).
//
// A deny or ask rule (ModeAny) hits when the pattern matches the path as
// written, or any form of it, absolute, relative to the cwd (also with
// "./") or as a directory ("/w/secret/" for a Grep of /w/secret meets
// "/w/secret/**"); a pattern starting with "~" is also tried at the home.
//
// An allow rule (ModeAll) covers a path when every form of it, written the
// way the pattern writes paths (absolute, "~/..." at the home, or relative
// to the cwd), matches, and so does the path as written when it is written
// that way too: a relative path is covered by an absolute rule on the files
// it names, but "..", a symlink or another road cannot carry a spelling the
// rule matches to a file it does not.
func (rs *RuleSet) fnHit(g *Glob, ts []Target, cwd string, mode Mode) bool {
	dir := absDir(cwd, "")
	under := func(p, d string) (string, bool) {
		switch {
		case d == "":
			return "", false
		case p == d:
			return ".", true
		case d == "/":
			return strings.TrimPrefix(p, "/"), true
		case Within(p, d):
			return p[len(d)+1:], true
		}
		return "", false
	}
	rel := func(p string) (string, bool) { return under(p, dir) }
	for _, t := range ts {
		if mode == ModeAny {
			hit := func(x string) bool {
				return g.Match(x) || g.Match(x+"/") || g.fnHome != nil && (g.fnHome.match(x) || g.fnHome.match(x+"/"))
			}
			if t.Raw != "" && hit(t.Raw) {
				return true
			}
			for _, f := range t.Forms {
				for _, x := range [...]string{f.Abs, f.Real} {
					if hit(x) {
						return true
					}
					if r, ok := rel(x); ok && (hit(r) || hit("./"+r)) {
						return true
					}
				}
			}
			continue
		}
		style := byte('.')
		switch {
		case strings.HasPrefix(t.Raw, "/"):
			style = '/'
		case t.Raw == "~" || strings.HasPrefix(t.Raw, "~/"):
			style = '~'
		}
		if t.Raw != "" && style == g.fnStyle && !g.Match(t.Raw) {
			return false
		}
		for _, f := range t.Forms {
			for _, x := range [...]string{f.Abs, f.Real} {
				switch g.fnStyle {
				case '.':
					r, ok := rel(x)
					if !ok {
						return false
					}
					x = r
				case '~':
					r, ok := under(x, g.home)
					if !ok {
						return false
					}
					x = "~/" + r
					if r == "." {
						x = "~"
					}
				}
				if !g.Match(x) {
					return false
				}
			}
		}
	}
	return mode == ModeAll
}

// first returns the lowest index below best (or any, when best is -1) of a
// doublestar pattern that matches p and, when all is not nil, matches the
// Abs and Real form of every path in all; else best.
func (rs *RuleSet) first(p string, best int, all []Resolved) int {
	ok := func(i int) bool {
		g := &rs.globs[i]
		if g.fn != nil || !g.match(p) {
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
// `/p/.env`), or -1: the fallback for a glob too large to expand. An
// fnmatch pattern is tried on g itself.
func (rs *RuleSet) MatchLiteralByGlob(g string) int {
	if rs.fold {
		g = strings.ToLower(g)
	}
	for i := range rs.globs {
		gl := &rs.globs[i]
		if gl.fn != nil {
			if gl.fn.match(g) {
				return i
			}
			continue
		}
		if gl.literal && globNames(g, gl.expanded) {
			return i
		}
	}
	return -1
}

type rulesKey struct {
	h         uint64
	cwd, home string
	n         int
	fold      bool
}

var (
	ruleSets = lru.New[rulesKey, *RuleSet](1 << 18) // weighed by patterns
	seed     = maphash.MakeSeed()
)

// CachedRules is CompileRules through a process-wide bounded cache keyed by
// the patterns (hashed, then compared), cwd and home.
func CachedRules(patterns []string, cwd, home string) (*RuleSet, error) {
	return cachedRules(patterns, cwd, home, false)
}

func cachedRules(patterns []string, cwd, home string, fold bool) (*RuleSet, error) {
	var h maphash.Hash
	h.SetSeed(seed)
	for _, p := range patterns {
		h.WriteString(p)
		h.WriteByte(0)
	}
	k := rulesKey{h: h.Sum64(), cwd: cwd, home: home, n: len(patterns), fold: fold}
	if rs, ok := ruleSets.Get(k); ok && slices.Equal(rs.patterns, patterns) {
		return rs, nil
	}
	rs, err := compileRules(patterns, cwd, home, fold)
	if err != nil {
		return nil, err
	}
	ruleSets.PutWeighted(k, rs, len(patterns))
	return rs, nil
}

// MatchOptions configure MatchPaths.
type MatchOptions struct {
	Cwd, Home string
	Mode      Mode
	// Fold compares without regard to case in ModeAny (deny and ask
	// rules); ModeAll never folds.
	Fold bool
}

// MatchAny resolves every path against cwd and home (see Resolve) and returns
// the index of the first pattern that hits (ModeAny) or covers (ModeAll) them,
// or -1. A malformed pattern is an error naming it. Paths are taken
// literally: shell globs in them are not expanded (the built-in
// permopa.glob.match_any adds the expansions, see Expand).
func MatchAny(patterns, paths []string, cwd, home string, mode Mode) (int, error) {
	return MatchPaths(patterns, paths, MatchOptions{Cwd: cwd, Home: home, Mode: mode, Fold: FoldByDefault})
}

// MatchPaths is MatchAny with options: each path is taken with its
// OtherRoads too.
func MatchPaths(patterns, paths []string, o MatchOptions) (int, error) {
	rs, err := cachedRules(patterns, o.Cwd, o.Home, o.Fold && o.Mode == ModeAny)
	if err != nil {
		return -1, err
	}
	ts := make([]Target, len(paths))
	for i, p := range paths {
		r := ResolvePath(p, o.Cwd, o.Home)
		ts[i] = Target{Raw: p, Forms: append([]Resolved{r}, OtherRoads(p, o.Cwd, o.Home, r)...)}
	}
	return rs.MatchTargets(ts, o.Cwd, o.Mode), nil
}
