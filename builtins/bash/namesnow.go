package bash

import (
	"os"
	"path/filepath"
	"strings"
)

// Names read at decision time: the one place for names the same command
// may change (docs/shell.md, "Values and where they come from"). Some
// rows look at the file system when the command is judged: the tree below
// find's starting points for plain xargs (findNamesPlain) and for
// $(find …) (substNamesOK), the working directory for ls | xargs, $(ls),
// find's glob starting points and unmatched globs, and glob operands
// (dirNamesNow). Every such look goes through namesNow. A part of the same
// command that runs before them, or beside them (a pipeline, a background
// job), may create the names that change the answer: mkdir "src/a
// -o/outside" before find src | xargs sort hands sort -o/outside; a file
// named -fprint or -delete turns find * or find . -newer *te into a write
// or a deletion; touch ./-rf before du -sh *. So when the command may
// create such a name (namesMayChange), analyze judges it again with every
// look refused, as if the names were unknown: each row then fails closed
// and the leaf gets the verdict its words deserve without the listing
// (which may still be read-only when no name could matter). Re-judging,
// rather than withdrawing read-only from the leaves that used a listing,
// keeps one gate (no list of such leaves to keep complete) and also undoes
// what a listing fed besides the verdict (reads, roots).

// listing says how names read at decision time reach a program, which
// decides the names a write may create without changing a verdict
// (tameNewNames).
type listing uint8

const (
	// listedPaths: under a starting point (find ROOT | xargs, $(find
	// ROOT)), or as find's own words (a glob starting point, a glob in
	// its expression): a name matters when it splits, globs, starts with
	// "-" or is one of find's operators.
	listedPaths listing = iota + 1
	// listedBare: as a bare operand of any program (a glob operand, ls
	// | xargs, $(ls)): a name matters unless plainLead.
	listedBare
	// listedText: pasted into a sh -c script's text (find -exec sh -c
	// '… {} …' \;, xargs -I; pastescript.go): a name matters unless it
	// is also shellInertText.
	listedText
)

// namesNow reports whether this walk may read names from the file system,
// and records that it did, and how the names are used (analyze then
// checks namesMayChange).
func (w *walker) namesNow(l listing) bool {
	if w.noListing {
		return false
	}
	w.listedNames = max(w.listedNames, l)
	return true
}

// namesMayChangeWhy is findNamesPlain's answer on the walk without listing.
const namesMayChangeWhy = "the names below find's starting points are read at decision time, and this command may create others before find runs"

// lsNamesMayChangeWhy is lsNamesPlain's.
const lsNamesMayChangeWhy = "the names in the working directory are read at decision time, and this command may create others before ls runs"

// namesMayChange reports whether a command may create or rename a name one
// of the listings would object to: a part the analysis cannot see (not
// analysable), a write nobody can name (DynamicWrites), a leaf that is not
// read-only other than touch, mkdir, rm and rmdir with every target known,
// or a write (a redirection included, of any leaf: bash opens a group's
// redirection before its commands expand their words) that creates a name
// that is not tame.
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
		if !tameNewNames(p, res.listedNames) {
			return true
		}
	}
	return false
}

// tameNewNames reports whether every name a write of p may create (its
// last component and each directory above it that does not exist yet:
// mkdir -p) is one no listing of kind l can object to: it splits in no
// xargs and loses nothing there (xargsPlain), holds no glob character
// and no ":" (a glob starting point's name would be a host: rootMayNameHost),
// and starts with no "-" and is no find operator or, for listedBare,
// means what ./name means to every program (plainLead: no "@" or "+"
// first either, no "="), and for listedText is plain shell text
// (shellInertText). touch, mkdir and a redirection create regular
// files and directories only (no FIFO, device or link).
func tameNewNames(p string, l listing) bool {
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
		if !xargsPlain(n) || strings.ContainsAny(n, "*?[:") || strings.HasPrefix(n, "-") ||
			n == "!" || n == "(" || n == ")" || n == "," || l >= listedBare && !plainLead(n) ||
			l >= listedText && !shellInertText(n) {
			return false
		}
	}
	return true
}

// carryNameReasons gives the walk without listing (res) the reasons the
// walk with it (first) found in the names themselves, so that the answer
// names the first name that failed and why (a blank xargs splits, a FIFO,
// a "-" first, a link out of the project) rather than only that names are
// read at decision time (docs/shell.md, "Values and where they come
// from"). Only reasons change: a reason of res that first does not have is
// replaced by first's reason for the same leaf (the text before the first
// ": ") that res does not have, and a leaf's reason (and what it says of
// code it cannot read, when both say something) by the same leaf's in
// first when first also judged it not read-only. The verdicts stay res's.
func carryNameReasons(res, first *Analysis) {
	res.NotReadOnly = carryReasons(res.NotReadOnly, first.NotReadOnly)
	res.Reasons = carryReasons(res.Reasons, first.Reasons)
	if len(res.Leaves) != len(first.Leaves) {
		return
	}
	for i := range res.Leaves {
		l, f := &res.Leaves[i], &first.Leaves[i]
		if l.Program != f.Program {
			continue
		}
		if !l.ReadOnly && !f.ReadOnly && f.Reason != "" {
			l.Reason = f.Reason
		}
		if l.RunsUnknown != "" && f.RunsUnknown != "" {
			l.RunsUnknown = f.RunsUnknown
		}
	}
}

// carryReasons replaces each reason of now that was not also given with
// listing by the first reason given with listing, not now, that has the
// same leaf prefix (each used once).
func carryReasons(now, listed []string) []string {
	out := make([]string, 0, len(now))
	used := map[string]bool{}
	for _, r := range now {
		if !contains(listed, r) {
			lead, _, _ := strings.Cut(r, ": ")
			for _, f := range listed {
				if fl, _, _ := strings.Cut(f, ": "); fl == lead && !used[f] && !contains(now, f) {
					used[f] = true
					r = f
					break
				}
			}
		}
		if !contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}
