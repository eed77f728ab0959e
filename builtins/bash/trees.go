package bash

import (
	"slices"
	"strings"
)

// dynamicGlob turns a path with parts only known at run time into the
// shell glob of what it could name, each such part a "*" ("/proc/$$/environ"
// is "/proc/*/environ", "$D/.env" is "*/.env"): the credential check and
// Read rules then see what it may read. A path that is nothing but run-time
// parts, or whose parts may hold a slash in a place no glob can stand for,
// is not turned into one (ok false).
func dynamicGlob(p string) (string, bool) {
	if !strings.Contains(p, "/") || strings.Trim(p, dyn+"/") == "" {
		return "", false
	}
	var b strings.Builder
	static := false
	for _, seg := range strings.Split(p, "/") {
		if b.Len() > 0 || strings.HasPrefix(p, "/") {
			b.WriteByte('/')
		}
		if !strings.Contains(seg, dyn) {
			static = static || seg != ""
			b.WriteString(seg)
			continue
		}
		// Collapse each run of run-time parts into one "*".
		prev := false
		for _, r := range seg {
			if string(r) == dyn {
				if !prev {
					b.WriteByte('*')
				}
				prev = true
				continue
			}
			prev = false
			b.WriteRune(r)
		}
	}
	g := b.String()
	if strings.HasPrefix(p, "/") {
		g = g[1:]
	}
	return g, static
}

// appendTrees appends the trees not yet in ts.
func appendTrees(ts []Tree, add ...Tree) []Tree {
	for _, t := range add {
		if !slices.ContainsFunc(ts, func(u Tree) bool {
			return u.Path == t.Path && u.Hidden == t.Hidden && u.NamesOnly == t.NamesOnly &&
				u.Ignores == t.Ignores && slices.Equal(u.ExcludeDirs, t.ExcludeDirs) &&
				slices.Equal(u.Include, t.Include) && slices.Equal(u.Exclude, t.Exclude) && u.IncludeFirst == t.IncludeFirst &&
				u.MaxDepth == t.MaxDepth && u.SkipsLinks == t.SkipsLinks
		}) {
			ts = append(ts, t)
		}
	}
	return ts
}

// readsNames makes every names-only tree of the command a full read that
// follows links when some leaf runs on names it is handed at run time
// (xargs, find -exec): "find ~ | xargs cat" and "find ~ -exec cat {} +"
// read what find lists, and the program handed a name opens it through
// its link (find . -exec cat {} + prints what ./keylink points to; docs/reads.md).
func readsNames(res *Analysis) {
	handsOff := false
	for _, lf := range res.Leaves {
		for _, wr := range lf.Wrappers {
			if wr == "xargs" || strings.HasPrefix(wr, "find -") {
				handsOff = true
			}
		}
	}
	if !handsOff {
		return
	}
	var full []Tree
	for _, t := range res.RecursiveReads {
		t.NamesOnly, t.SkipsLinks = false, false
		full = appendTrees(full, t)
	}
	res.RecursiveReads = full
	for i := range res.Leaves {
		for j := range res.Leaves[i].RecursiveReads {
			res.Leaves[i].RecursiveReads[j].NamesOnly = false
			res.Leaves[i].RecursiveReads[j].SkipsLinks = false
		}
	}
}
