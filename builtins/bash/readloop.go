package bash

import (
	"strconv"
	"strings"

	"github.com/permopa/permopa/builtins/flagspec"
	"mvdan.cc/sh/v3/syntax"
)

// A while-read loop fed by a producer whose lines are known (docs/shell.md,
// "Values and where they come from"):
//
//	find ROOT… [| FILTER…] | while read [-r] NAME; do BODY; done
//	ls [-1trSXUvcuA] [| FILTER…] | while read [-r] NAME; do BODY; done
//
// binds NAME in BODY to one line the producer prints: a path under find's
// roots (ls: a name in the working directory), as `for NAME in $(find
// ROOT…)` does (loopValues, loopSubstItems). read takes the whole line
// only when nothing in it is changed on the way: no blank (IFS white space
// is trimmed, an unquoted $NAME splits), no backslash (removed without
// -r: a directory named `.\.` would give `./../x`), no newline (a name
// holding one is read as two lines, the second no path under the root),
// no glob character (an unquoted $NAME globs), checked at decision time
// on every name below the roots as for plain xargs (namesBelow).

// readLoopVars returns the loop variables of the body of the while loop
// that is the right side of the pipe b, with the read's variable bound to
// the producer's lines, and ok true; ok false when the loop or its
// producer is not one of the forms above.
func (w *walker) readLoopVars(b *syntax.BinaryCmd, fr frame, st state) (map[string][]word, bool) {
	if b.Op != syntax.Pipe || len(b.Y.Redirs) > 0 || b.Y.Negated || b.Y.Background || b.Y.Coprocess {
		return nil, false
	}
	loop, ok := b.Y.Cmd.(*syntax.WhileClause)
	if !ok || loop.Until || len(loop.Cond) != 1 || w.globsChanged {
		return nil, false
	}
	name, raw, ok := w.plainRead(loop.Cond[0])
	if !ok {
		return nil, false
	}
	quotedOnly := false
	src, after := pipedStages(b.X, w.defined)
	for _, f := range after {
		if !lineFilter(f, w.defined) {
			return nil, false // tr and other exchanges are followed only into xargs
		}
	}
	var roots []string
	depth := 0
	if c := findPipedCall(src, w.opts.Home); c != nil {
		fargv := w.evalArgs(c.Args, evalCtx{fr: fr.substBase(), st: st})
		fsv := strs(fargv)
		if !findPrintsOnlyLines(fsv) {
			return nil, false
		}
		expr := flagspec.ParseFind(fsv)
		r, ok := w.findDataRoots(fargv, expr, st)
		if !ok {
			return nil, false
		}
		depth = findDepth(expr)
		plain, why := w.readNamesOK(expr.Roots, r, depth, raw)
		if why != "" {
			return nil, false
		}
		quotedOnly = !plain
		roots = r
	} else if lsPipedCall(src, w.defined) {
		dir, why := w.lsNamesPlain(st)
		if why != "" {
			return nil, false
		}
		names, ok := w.dirNamesNow(dir, listedBare)
		if !ok {
			return nil, false
		}
		for _, n := range names {
			if !readPlain(n) {
				return nil, false
			}
		}
		roots, depth = []string{dir}, 2
	} else {
		return nil, false
	}
	// One item standing for each line, as an unquoted $(find …) of a for
	// loop (loopSubstItems makes it one word per value).
	item := word{s: dyn, dynamic: true, splits: true, subst: true,
		prov: &substProv{kind: provPaths, roots: roots, depth: depth, quotedOnly: quotedOnly}}
	vars := w.loopValues(fr.loopVars, name, []word{item}, loop.Do)
	if _, bound := vars[name]; !bound {
		return nil, false
	}
	return vars, true
}

// plainRead returns the variable of a loop condition that is read with
// only -r and one shell-local name, nothing redirected, optionally after
// IFS= (empty: nothing trimmed or split) when that is the only mention of
// IFS in the command; without it IFS must keep its default (ifsChanged).
// Not -d (another delimiter), -n/-N (part of a line), -a (an array), -u
// (another file), -e (readline), several names (the last takes the rest
// of the line, the others a field).
func (w *walker) plainRead(s *syntax.Stmt) (name string, raw, ok bool) {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(s.Redirs) > 0 || s.Negated || s.Background || s.Coprocess || len(c.Args) < 2 || c.Args[0].Lit() != "read" {
		return "", false, false
	}
	if _, defined := w.defined["read"]; defined {
		return "", false, false
	}
	switch len(c.Assigns) {
	case 0:
		if w.ifsChanged {
			return "", false, false
		}
	case 1:
		a := c.Assigns[0]
		if a.Name == nil || a.Name.Value != "IFS" || a.Append || a.Naked || a.Index != nil || a.Array != nil ||
			a.Value != nil && len(a.Value.Parts) > 0 || strings.Count(w.src, "IFS") != 1 {
			return "", false, false
		}
	default:
		return "", false, false
	}
	args := make([]string, 0, len(c.Args)-1)
	for _, a := range c.Args[1:] {
		t, ok := literalText(a)
		if !ok {
			return "", false, false
		}
		args = append(args, t)
	}
	name = args[len(args)-1]
	for _, o := range args[:len(args)-1] {
		if o != "-r" {
			return "", false, false
		}
		raw = true
	}
	if !validName(name) || !localName(name) {
		return "", false, false
	}
	return name, raw, true
}

// readPlain reports whether a name reaches read's variable as it is and
// stays one word unquoted: printable ASCII without a blank, quote or
// backslash (xargsPlain), and no glob character.
func readPlain(s string) bool {
	return xargsPlain(s) && !strings.ContainsAny(s, "*?[")
}

// readNamesOK checks find's starting points (readPlain) and, at decision
// time, every name below them down to find's -maxdepth (namesBelow: no
// FIFO, socket or device, links known): each must reach read's variable
// as it is (readWhole), and plain says whether each also stays one word
// unquoted (readPlain). It returns why not, "" when fine.
func (w *walker) readNamesOK(words, roots []string, depth int, raw bool) (plain bool, why string) {
	for _, r := range words {
		if !readPlain(r) {
			return false, "the starting point " + strconv.Quote(r) + " would not be read whole"
		}
	}
	if depth == 1 {
		return true, "" // -maxdepth 0: find prints its starting points only
	}
	if !w.namesNow(listedPaths) {
		return false, namesMayChangeWhy
	}
	plain = true
	why = w.namesBelow(roots, depth, func(name string) string {
		if !readWhole(name, raw) {
			return "would not be read whole"
		}
		plain = plain && readPlain(name)
		return ""
	})
	return plain, why
}

// readWhole reports whether a name, below a starting point, leaves the
// line read assigns as it is: no newline (a second line), no backslash
// (removed without -r: raw), no blank or tab at its end (trimmed: a
// directory ".. " would read as ".."). Blanks inside stay.
func readWhole(name string, raw bool) bool {
	return name != "" && !strings.ContainsRune(name, '\n') && (raw || !strings.ContainsRune(name, '\\')) &&
		!strings.HasSuffix(name, " ") && !strings.HasSuffix(name, "\t")
}
