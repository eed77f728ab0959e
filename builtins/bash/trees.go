package bash

import (
	"slices"
	"strings"
)

// appendTrees appends the trees not yet in ts.
func appendTrees(ts []Tree, add ...Tree) []Tree {
	for _, t := range add {
		if !slices.ContainsFunc(ts, func(u Tree) bool {
			return u.Path == t.Path && u.Hidden == t.Hidden && u.NamesOnly == t.NamesOnly &&
				u.Ignores == t.Ignores && slices.Equal(u.ExcludeDirs, t.ExcludeDirs) &&
				slices.Equal(u.Include, t.Include) && slices.Equal(u.Exclude, t.Exclude) && u.IncludeFirst == t.IncludeFirst
		}) {
			ts = append(ts, t)
		}
	}
	return ts
}

// readsNames makes every names-only tree of the command a full read when
// some leaf runs on names it is handed at run time (xargs, find -exec):
// "find ~ | xargs cat" and "find ~ -exec cat {} +" read what find lists.
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
	for i := range res.RecursiveReads {
		res.RecursiveReads[i].NamesOnly = false
	}
	for i := range res.Leaves {
		for j := range res.Leaves[i].RecursiveReads {
			res.Leaves[i].RecursiveReads[j].NamesOnly = false
		}
	}
}
