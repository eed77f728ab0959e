package paths

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// File rules and recursive reads. A deny or ask Read rule hits a tree read
// (grep -r KEY ~ under Read(~/.ssh/**)) when the rule's pattern matches the
// root, or can match a path below it that the program reads:
//
//   - anchored: the pattern names a literal path below the root
//     (Read(~/.ssh/**) below ~, Read(./secrets/**) below .): a hit, whether
//     or not the path exists now, as for the well-known credential
//     locations (tree.go);
//   - wild: the pattern reaches below the root only through wildcards
//     (Read(**/.env), Read(**/*.pem)): a hit when the bounded walk of the
//     tree finds a path it matches, or cannot finish (an uncertain hit:
//     TreeMatch.Certain leaves it out).
//
// A program that skips hidden entries cannot read a path below the root
// whose segments below it start with "."; one that lists names only reads
// a directory rule (a pattern ending in /**, the directory's contents) and
// no file rule. Allow rules are never widened by a tree: a tree is matched
// by its root only.

// belowRoot says whether the absolute doublestar pattern pat can match a
// path strictly below root: anchored when it can through a literal first
// segment below the root, wild when it can through a wildcard one. With
// hidden false, no segment below the root may start with ".".
func belowRoot(pat, root string, hidden bool) (anchored, wild bool) {
	ps := splitSegments(pat, nil)
	rs := splitSegments(root, nil)
	var rec func(i, j int)
	rec = func(i, j int) {
		if anchored && wild {
			return
		}
		if j == len(rs) {
			if i == len(ps) || !satisfiable(ps[i:], hidden) {
				return
			}
			if ps[i] == "**" || isWild(ps[i]) {
				// Below the root only through a wildcard ("**" matching
				// nothing included: Read(**/.env) names no place).
				wild = true
				return
			}
			anchored = true
			return
		}
		if i == len(ps) {
			return
		}
		if ps[i] == "**" {
			rec(i+1, j)
			rec(i, j+1)
			return
		}
		if segMatch(ps[i], rs[j]) {
			rec(i+1, j+1)
		}
	}
	rec(0, 0)
	return anchored, wild
}

// satisfiable reports whether segments can match at least one segment of
// names (not starting with "." unless hidden).
func satisfiable(segs []string, hidden bool) bool {
	n := 0
	for _, s := range segs {
		if s == "**" {
			continue
		}
		n++
		if !hidden && (strings.HasPrefix(s, ".") || strings.HasPrefix(s, "\\.")) {
			return false
		}
	}
	return n > 0 || len(segs) > 0
}

func isWild(seg string) bool { return strings.ContainsAny(seg, "*?[{\\") }

func segMatch(pat, name string) bool {
	if !isWild(pat) {
		return pat == name
	}
	return doublestar.MatchUnvalidated(pat, name)
}

// TreeMatch is a tree for MatchTrees: its resolved root, what the program
// skips, and a function that walks it (shared with the credential check).
type TreeMatch struct {
	Tree
	List func() Listing
	// Cwd anchors relative fnmatch patterns (AgentScope rules); "" is "/".
	Cwd string
	// Certain: a walk that cannot finish hits only the rules that what it
	// found hits, not every rule (the caller knows such a walk from the
	// tree's verdict: docs/decision.md, point 1).
	Certain bool
}

// MatchTrees returns the index of the first pattern (deny and ask rules:
// ModeAny) that hits a tree read (see the comment at the top of this file),
// not counting a match of the root itself (Match does that), or -1.
//
// A program that follows links (t.SkipsLinks false) reads what each link
// below the root points to: the link's target is matched as a path, and a
// link to a directory as a tree of its own below its target, so that
// Read(~/.ssh/**) hits grep -R KEY . in a project holding a link to ~/.ssh.
// A walk that cannot finish hits every rule then (a link may lie beyond
// it), as a wild rule does, unless t.Certain.
func (rs *RuleSet) MatchTrees(trees []TreeMatch) int {
	best := -1
	if len(rs.globs) == 0 {
		return best
	}
	for _, t := range trees {
		best = rs.matchTree(t, best, false)
		if t.SkipsLinks || best == 0 {
			continue
		}
		for _, lt := range linkedTrees(t) {
			best = rs.matchTree(lt.TreeMatch, best, lt.dir)
		}
	}
	return best
}

// matchTree lowers best to the first pattern that hits t; with rootRead,
// also one that matches t's root itself (a linked tree: the link's target
// is read, or for a names-only program listed, as a directory).
func (rs *RuleSet) matchTree(t TreeMatch, best int, rootRead bool) int {
	for _, i := range rs.treeCandidates(t.Root) {
		if best >= 0 && i >= best {
			break
		}
		if rootRead && rs.globs[i].Match(t.Root.Real) || rs.hitsTree(i, t) {
			return i
		}
	}
	return best
}

// linkedTree is a tree below a link's target.
type linkedTree struct {
	TreeMatch
	// dir: the root is read as a whole (a file for a program that reads
	// contents, a directory listed for one that prints names).
	dir bool
}

// linkedTrees returns, for a tree whose program follows links, a tree for
// each link its walk found, rooted at the link's target and listing what
// the walk found below the link. A walk that cannot finish (unless
// t.Certain: the links it found only), or a link whose target is not known
// statically, gives a tree at "/" that every rule reaches. Depth limits are not applied below a link (reading more
// than the program does).
func linkedTrees(t TreeMatch) []linkedTree {
	everything := func() linkedTree {
		u := t
		u.Root = Resolved{Abs: "/", Real: "/"}
		u.MaxDepth, u.Hidden = 0, true
		u.List = func() Listing { return Listing{Why: "unknown"} }
		return linkedTree{u, true}
	}
	l := t.List()
	if !l.Complete && !t.Certain {
		return []linkedTree{everything()}
	}
	var out []linkedTree
	for k, e := range l.Entries {
		switch {
		case e.Unknown != "":
			out = append(out, everything())
			continue
		case e.Target == "":
			continue
		}
		u := t
		u.Root = Resolved{Abs: e.Target, Real: e.Target}
		u.MaxDepth = 0
		prefix := e.Rel + "/"
		u.List = func() Listing {
			sub := Listing{Complete: true}
			for _, f := range l.Entries[k+1:] {
				if rel, ok := strings.CutPrefix(f.Rel, prefix); ok {
					f.Rel = rel
					sub.Entries = append(sub.Entries, f)
				}
			}
			return sub
		}
		out = append(out, linkedTree{u, e.Dir || !t.NamesOnly})
	}
	return out
}

// hitsTree says whether pattern i reads below tree t.
func (rs *RuleSet) hitsTree(i int, t TreeMatch) bool {
	if rs.globs[i].fn != nil {
		return rs.fnHitsTree(&rs.globs[i], t)
	}
	g := rs.globs[i].expanded
	if t.NamesOnly {
		// Only a directory rule: its directory's contents are listed.
		d, ok := strings.CutSuffix(g, "/**")
		if !ok || d == "" {
			return false
		}
		g = d
	}
	wild := false
	for _, r := range rootForms(t.Root) {
		if rs.fold {
			r = strings.ToLower(r)
		}
		a, w := belowRoot(g, r, t.Hidden)
		if a {
			return true
		}
		wild = wild || w
	}
	if !wild {
		return false
	}
	return walkFinds(t, func(p, _ string, target string) bool {
		return rs.globs[i].Match(p) || target != "" && rs.globs[i].Match(target)
	})
}

// walkFinds says whether the walk of t finds an entry the program reads
// (a directory only, when it prints names) for which match holds, given
// its path under each form of the root, its path below the root and its
// link target (""); a walk that cannot finish counts as found unless
// t.Certain.
func walkFinds(t TreeMatch, match func(path, rel, target string) bool) bool {
	l := t.List()
	if !l.Complete && !t.Certain {
		return true
	}
	for _, e := range l.Entries {
		if t.NamesOnly && !e.Dir {
			continue
		}
		if e.Unknown != "" {
			return true // a link that may lead anywhere
		}
		for _, r := range rootForms(t.Root) {
			if match(strings.TrimSuffix(r, "/")+"/"+e.Rel, e.Rel, e.Target) {
				return true
			}
		}
	}
	return false
}

// fnHitsTree is hitsTree for an fnmatch pattern (an AgentScope rule): a hit
// when its literal beginning names a path below the root (whether or not it
// exists now), or when it matches a path the walk finds (absolute, or below
// the root for a relative pattern), or the walk cannot finish.
func (rs *RuleSet) fnHitsTree(g *Glob, t TreeMatch) bool {
	pat := strings.TrimPrefix(g.expanded, FnmatchPrefix)
	switch g.fnStyle {
	case '~':
		if g.home != "" {
			pat = g.home + strings.TrimPrefix(pat, "~")
		}
	case '.':
		pat = strings.TrimSuffix(absDir(t.Cwd, ""), "/") + "/" + strings.TrimPrefix(pat, "./")
	}
	lit := pat
	if k := strings.IndexAny(pat, "*?["); k >= 0 {
		lit = pat[:k]
	}
	if k := strings.LastIndexByte(lit, '/'); k >= 0 && lit != pat {
		lit = lit[:k+1] // the literal directories only
	}
	dir := strings.HasSuffix(lit, "/")
	lit = path.Clean(lit)
	if dir && lit != "/" {
		lit += "/"
	}
	if rs.fold {
		lit = strings.ToLower(lit)
	}
	for _, r := range rootForms(t.Root) {
		if rs.fold {
			r = strings.ToLower(r)
		}
		if strings.HasPrefix(lit, strings.TrimSuffix(r, "/")+"/") && len(lit) > len(r)+1 {
			return true
		}
	}
	// A relative pattern is also tried on the path below the root (as a
	// deny rule: wider when the root is not the cwd).
	return walkFinds(t, func(p, rel, target string) bool {
		return g.Match(p) || g.Match(rel) || g.fnHome != nil && g.fnHome.match(p) || target != "" && g.Match(target)
	})
}

// treeCandidates returns, in ascending order, the patterns that may match
// below root: those whose literal directory lies below root or is an
// ancestor of it (or root itself). Small sets are scanned whole.
func (rs *RuleSet) treeCandidates(root Resolved) []int {
	if rs.idx == nil {
		out := make([]int, len(rs.globs))
		for i := range out {
			out[i] = i
		}
		return out
	}
	dirs := rs.sortedDirs()
	var out []int
	add := func(dir string) {
		b := rs.idx[dir]
		if b == nil {
			return
		}
		for _, l := range b.byBase {
			out = append(out, int32s(l)...)
		}
		for _, l := range b.byExt {
			out = append(out, int32s(l)...)
		}
		out = append(out, int32s(b.rest)...)
	}
	seen := map[string]bool{}
	for _, r := range rootForms(root) {
		if rs.fold {
			r = strings.ToLower(r)
		}
		// Ancestors of the root, the root included.
		for d := r; ; {
			if !seen[d] {
				seen[d] = true
				add(d)
			}
			if d == "/" {
				break
			}
			k := strings.LastIndexByte(d, '/')
			d = d[:max(k, 1)]
		}
		// Directories below the root.
		prefix := r + "/"
		if r == "/" {
			prefix = "/"
		}
		k, _ := slices.BinarySearch(dirs, prefix)
		for ; k < len(dirs) && strings.HasPrefix(dirs[k], prefix); k++ {
			if !seen[dirs[k]] {
				seen[dirs[k]] = true
				add(dirs[k])
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func int32s(l []int32) []int {
	out := make([]int, len(l))
	for i, x := range l {
		out[i] = int(x)
	}
	return out
}

// sortedDirs returns the index's directories, sorted, computed once.
func (rs *RuleSet) sortedDirs() []string {
	rs.dirsOnce.Do(func() {
		for d := range rs.idx {
			rs.dirs = append(rs.dirs, d)
		}
		slices.Sort(rs.dirs)
	})
	return rs.dirs
}

// dirsOnce is embedded in RuleSet (glob.go) for sortedDirs.
type dirsIndex struct {
	dirsOnce sync.Once
	dirs     []string
}
