package bash

import (
	"os"
	"path/filepath"
	"strings"
)

// Names read at decision time. Three checks look at the file system when
// the command is judged (docs/shell.md, "Values and where they come
// from"): that no name below find's starting points splits in plain xargs
// (findNamesPlain), that no name a glob starting point of find matches is
// an option or operator (findRootGlobListed), and that a glob in find's
// expression matches nothing (literalUnmatchedGlobs). A part of the same
// command that runs before them, or beside them (a pipeline, a background
// job), may create the names that change the answer: mkdir "src/a
// -o/outside" before find src | xargs sort hands sort -o/outside; a file
// named -fprint or -delete turns find * or find . -newer *te into a write
// or a deletion. So when the command may create a name, it is judged again
// without these checks.

// namesMayChangeWhy is findNamesPlain's answer on the walk without listing.
const namesMayChangeWhy = "the names below find's starting points are read at decision time, and this command may create others before find runs"

// namesMayChange reports whether a command may create a name one of the
// checks would object to: a write nobody can name (DynamicWrites), a
// leaf that is not read-only other than touch, mkdir, rm and rmdir with
// every target known, or a target of those or of a redirection that
// creates a name that is not tame.
func namesMayChange(res *Analysis) bool {
	if res.DynamicWrites || !res.Analysable {
		return true
	}
	for i := range res.Leaves {
		lf := &res.Leaves[i]
		if !lf.ReadOnly {
			switch lf.Program {
			case "touch", "mkdir", "rm", "rmdir":
				if !lf.FSCommand || lf.RunsUnknown != "" {
					return true
				}
			default:
				return true
			}
		}
	}
	for _, p := range res.Writes {
		if !tameNewNames(p) {
			return true
		}
	}
	return false
}

// tameNewNames reports whether every name a write of p may create (its
// last component and each directory above it that does not exist yet:
// mkdir -p) is one no check can object to: it splits in no xargs and
// loses nothing there (xargsPlain), starts with no "-" and is no find
// operator (so it is never an option or a primary), and holds no glob
// character.
func tameNewNames(p string) bool {
	if !filepath.IsAbs(p) {
		return false
	}
	for q := filepath.Clean(p); q != "/"; q = filepath.Dir(q) {
		if q != filepath.Clean(p) {
			if _, err := os.Lstat(q); err == nil {
				return true
			}
		}
		n := filepath.Base(q)
		if !xargsPlain(n) || strings.HasPrefix(n, "-") || strings.ContainsAny(n, "*?[") ||
			n == "!" || n == "(" || n == ")" || n == "," {
			return false
		}
	}
	return true
}
