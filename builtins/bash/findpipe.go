package bash

import (
	"strconv"
	"strings"

	"github.com/permopa/permopa/builtins/flagspec"
	"github.com/permopa/permopa/builtins/paths"
	"mvdan.cc/sh/v3/syntax"
)

// What a pipeline feeds a plain xargs (docs/shell.md, "Values and where
// they come from"): find's paths, NUL-ended (-print0) or one a line
// (-print), through line filters and tr's exchange of newline and NUL,
// or ls's names. How xargs reads them decides which names matter: split
// at blanks and unquoted (no -0, no -d), only a name of xargsPlain bytes
// arrives whole; split at newlines only (-d '\n', or -0 after tr '\n'
// '\0'), only a name holding a newline does not; NUL-ended (-print0 into
// -0), every name does.

// pipedInput is what a pipeline feeds the command: only xargs reads it.
type pipedInput struct {
	// roots: the paths are under these resolved roots (nil: not known).
	roots []string
	depth int
	// lines: one path a line (find -print); nulLines: lines turned into
	// NUL-ended items by tr '\n' '\0'; neither: find -print0's paths.
	lines, nulLines bool
	// why: why blank-splitting xargs does not get whole paths ("" when
	// it does); whyLine: the same for a reader that splits at newlines
	// only.
	why, whyLine string
	// pasteNames: as frame.pasteNames, for xargs -I pasting the paths
	// into a sh -c script; nil when not known.
	pasteNames func(st state) string
}

// xargsSplit is how xargs splits its input into items.
type xargsSplit uint8

const (
	splitUnknown xargsSplit = iota
	splitBlank              // no -0 or -d: blanks and newlines, quotes and backslashes removed
	splitNewline            // -d '\n': newlines only, every other byte literal
	splitNUL                // -0
)

// xargsSplitOf returns how xargs with these options splits its input,
// splitUnknown when an option may hand its command anything else: every
// other option only limits how many items go to one run or how runs are
// scheduled. -a (input from a file), -E (an end-of-input string), -o (the
// terminal as stdin), --process-slot-var (an environment variable), a -d
// other than a newline, and -0 with -d (the last one wins) are not
// modelled.
func xargsSplitOf(opts []parsedOpt) xargsSplit {
	null, delim := false, ""
	for _, o := range opts {
		switch o.name {
		case "0", "null":
			null = true
		case "d", "delimiter":
			if delim != "" {
				return splitUnknown
			}
			delim = o.value
		case "n", "max-args", "L", "l", "max-lines", "P", "max-procs", "s", "max-chars", "r", "no-run-if-empty",
			"t", "verbose", "x", "exit", "p", "interactive", "I", "i", "replace":
		default:
			return splitUnknown
		}
	}
	switch {
	case null && delim != "":
		return splitUnknown
	case null:
		return splitNUL
	case delim == "":
		return splitBlank
	case xargsNewlineDelimiter(delim):
		return splitNewline
	}
	return splitUnknown
}

// xargsNewlineDelimiter reports whether GNU xargs reads a -d value as the
// newline: the character itself, or the escapes \n, \012 and \x0a
// (checked with GNU xargs 4.9).
func xargsNewlineDelimiter(d string) bool {
	switch d {
	case "\n", `\n`, `\012`, `\x0a`, `\x0A`:
		return true
	}
	return false
}

// keptBy says whether an xargs splitting its input as split gets each
// path whole, and why not.
func (p pipedInput) keptBy(split xargsSplit) (bool, string) {
	if p.roots == nil {
		return false, p.why
	}
	switch {
	case !p.lines && !p.nulLines:
		return split == splitNUL, ""
	case p.nulLines && split == splitNUL, p.lines && split == splitNewline:
		return p.whyLine == "", p.whyLine
	case p.lines && split == splitBlank:
		return p.why == "", p.why
	}
	return false, ""
}

// pipedFindInput returns what the left side of a pipe into a plain xargs
// feeds it: find's paths through line filters and tr (below), or ls's
// names of the working directory; a zero pipedInput when not known.
func (w *walker) pipedFindInput(x *syntax.Stmt, fr frame, st state) pipedInput {
	src, after := pipedStages(x, w.defined)
	if c := findPipedCall(src, w.opts.Home); c != nil {
		// find's words as the shell expands them (~, braces); literal
		// words only, so evaluating them runs nothing.
		fargv := w.evalArgs(c.Args, evalCtx{fr: fr.substBase(), st: st})
		fsv := strs(fargv)
		expr := flagspec.ParseFind(fsv)
		var in pipedInput
		switch {
		case findPrintsOnlyPaths(fsv):
		case findPrintsOnlyLines(fsv):
			in.lines = true
		default:
			return pipedInput{}
		}
		var filters []*syntax.Stmt
		for _, f := range after {
			switch {
			case lineFilter(f, w.defined):
				if !in.lines {
					// Filters of NUL-ended paths are not followed.
					return pipedInput{}
				}
				filters = append(filters, f)
			case in.lines && trExchange(f, w.defined) == trToNUL:
				in.lines, in.nulLines = false, true
			case !in.lines && !in.nulLines && trExchange(f, w.defined) == trToNewline:
				in.lines = true // -print0's paths one a line, as -print's
			default:
				return pipedInput{}
			}
		}
		roots, ok := w.findDataRoots(fargv, expr, st)
		if !ok {
			return pipedInput{}
		}
		if in.lines || in.nulLines {
			// Paths one a line, which xargs splits: whole only when no
			// name it can print holds a byte it splits at (or removes),
			// checked now.
			sel := w.findSelectionOf(fargv, st, filters)
			in.why, in.whyLine = w.findNamesPlainFor(expr.Roots, roots, findDepth(expr), sel)
			if in.why != "" && in.whyLine != "" {
				return pipedInput{why: in.why}
			}
		}
		in.roots, in.depth = roots, findDepth(expr)
		in.pasteNames = func(at state) string {
			if !sameState(at, st) {
				return "the script runs in another directory than the one find's paths are relative to"
			}
			return w.findNamesInert(expr.Roots, roots, in.depth, w.findSelectionOf(fargv, st, filters))
		}
		return in
	}
	if len(after) > 0 && trExchangeIn(after, w.defined) {
		return pipedInput{}
	}
	if lsPipedCall(src, w.defined) {
		// ls | xargs CMD: names of the working directory.
		if dir, why := w.lsNamesPlain(st); why == "" {
			return pipedInput{roots: []string{dir}, lines: true, depth: 2, whyLine: "ls's names are followed only into an xargs that splits at blanks"}
		} else {
			return pipedInput{why: why}
		}
	}
	return pipedInput{}
}

// trExchangeIn reports whether any of the stages is a tr exchange.
func trExchangeIn(stages []*syntax.Stmt, defined map[string]string) bool {
	for _, s := range stages {
		if trExchange(s, defined) != 0 {
			return true
		}
	}
	return false
}

// pipedStages splits a pipeline into the statement whose output reaches
// its end through line filters and tr exchanges (lineFilter, trExchange)
// and those stages, left to right.
func pipedStages(s *syntax.Stmt, defined map[string]string) (*syntax.Stmt, []*syntax.Stmt) {
	var after []*syntax.Stmt
	for {
		b, ok := s.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe || len(s.Redirs) > 0 || s.Background || s.Negated ||
			!lineFilter(b.Y, defined) && trExchange(b.Y, defined) == 0 {
			return s, after
		}
		after = append([]*syntax.Stmt{b.Y}, after...)
		s = b.X
	}
}

// The exchanges trExchange finds.
const (
	trToNUL     = 1 // tr '\n' '\0'
	trToNewline = 2 // tr '\0' '\n'
)

// trExchange returns trToNUL for a pipeline part that is tr turning every
// newline into a NUL, trToNewline for one turning every NUL into a
// newline, and 0 for anything else: exactly two operands, each one
// character as GNU tr reads it (the character, or the escapes \n, \NNN in
// octal), no option, literal words, nothing redirected but stderr to a
// file, no function or alias tr in the command.
func trExchange(s *syntax.Stmt, defined map[string]string) int {
	args := callWords(s)
	if len(args) != 3 || args[0] != "tr" {
		return 0
	}
	if _, def := defined["tr"]; def {
		return 0
	}
	for _, r := range s.Redirs {
		if r.N == nil || r.N.Value != "2" || (r.Op != syntax.RdrOut && r.Op != syntax.AppOut) || !quotedLiteral(r.Word) {
			return 0
		}
	}
	from, ok1 := trChar(args[1])
	to, ok2 := trChar(args[2])
	switch {
	case !ok1 || !ok2:
	case from == '\n' && to == 0:
		return trToNUL
	case from == 0 && to == '\n':
		return trToNewline
	}
	return 0
}

// trChar reads one of tr's set operands that names exactly a newline or
// a NUL.
func trChar(a string) (byte, bool) {
	switch a {
	case "\n", `\n`, `\012`, `\12`:
		return '\n', true
	case `\0`, `\00`, `\000`:
		return 0, true
	}
	return 0, false
}

// findNamesPlainFor checks, at decision time, the names find can print
// below its starting points as findNamesPlain does, restricted to the
// paths sel selects (findselect.go), for both ways xargs may read them:
// why is why a blank-splitting xargs does not get whole paths, whyLine why
// a reader splitting at newlines only does not ("" when it does).
func (w *walker) findNamesPlainFor(words []string, roots []string, depth int, sel *pathSelection) (why, whyLine string) {
	for _, r := range words {
		if strings.ContainsRune(r, '\n') {
			why = "the starting point " + strconv.Quote(r) + " holds a newline"
			return why, why
		}
		if strings.ContainsAny(r, "*?[") {
			why = "the starting point " + strconv.Quote(r) + " may be a glob, whose names are not walked"
			return why, why
		}
		if !xargsPlain(r) && why == "" {
			why = "the starting point " + strconv.Quote(r) + " holds a character xargs splits at or removes"
		}
	}
	if depth == 1 {
		return why, "" // -maxdepth 0: find prints its starting points only
	}
	if !w.namesNow(listedPaths) {
		return namesMayChangeWhy, namesMayChangeWhy
	}
	// A printed path holding blanks (spaces only) reaches a blank-splitting
	// xargs as pieces: the first one a path under the root, each other one
	// a word relative to the working directory. find . hands it pieces
	// under its root then, when each but the first is a bare name that
	// cannot climb (splitPieceWhy) and, the walk being whole (no
	// -maxdepth), none names a link, FIFO, socket or device, nor a path
	// through one.
	cwdRoot := depth == 0 && len(words) == 1 && (words[0] == "." || words[0] == "./")
	blank := ""
	var pieces []string
	odd := map[string]bool{}
	whyLine = w.namesBelowEach(roots, depth, sel, func(name string) string {
		if strings.ContainsRune(name, '\n') {
			return "holds a newline"
		}
		if blank == "" && !xargsPlain(name) && (!cwdRoot || !xargsPlain(strings.ReplaceAll(name, " ", ""))) {
			blank = strconv.Quote(name)
		}
		return ""
	}, func(e paths.Entry, selected bool) {
		if !cwdRoot {
			return
		}
		if e.Target != "" || e.Special || e.Unknown != "" {
			// Folded: a file system that ignores case (macOS) opens
			// "LNK" as "lnk"; beyond ASCII a piece may fold to it too
			// (the Kelvin sign is a k): any piece may name it.
			if !asciiText(e.Rel) {
				odd[""] = true
			}
			odd[strings.ToLower(e.Rel)] = true
		}
		if selected && strings.ContainsRune(e.Rel, ' ') {
			// The first piece is find's "./" and what comes before the
			// blank: a path under the root, which may name one too.
			for k, piece := range strings.Split(e.Rel, " ") {
				if why := splitPieceWhy(piece); k > 0 && why != "" && blank == "" {
					blank = strconv.Quote(e.Rel) + " (" + why + ")"
				}
				pieces = append(pieces, piece)
			}
		}
	})
	switch {
	case why != "":
	case whyLine != "":
		why = whyLine
	case blank != "":
		why = "a name find prints holds a character xargs splits at or removes: " + blank
	case len(pieces) > 0 && odd[""]:
		why = "a name find prints holds a blank, which splits off words that may name a link, FIFO, socket or device whose name is beyond ASCII"
	default:
		for _, piece := range pieces {
			// The piece's path and each directory on its way.
			rel := ""
			for _, c := range strings.Split(piece, "/") {
				if c == "" || c == "." {
					continue
				}
				rel = strings.TrimPrefix(rel+"/"+strings.ToLower(c), "/")
				if odd[rel] {
					why = "a name find prints holds a blank, which splits off the word " + strconv.Quote(piece) + ", a path through the link, FIFO, socket or device " + strconv.Quote(rel)
					return why, whyLine
				}
			}
		}
	}
	return why, whyLine
}

// splitPieceWhy says why a word a blank-splitting xargs cut from a path
// find . printed ("./a b/c" gives "./a" and "b/c") is not one more path
// under the working directory, "" when it is: it starts with a letter,
// digit, "." or "_" and holds no "=" or ":" (plainLead: no option, @FILE,
// +POS, NAME=VALUE or HOST:FILE), and no ".." component (which climbs out).
func splitPieceWhy(piece string) string {
	if piece == "" {
		return "" // two blanks in a row: no word
	}
	if !plainLead(piece) {
		return "the word " + strconv.Quote(piece) + " after a blank may be an option or more than a file"
	}
	for _, c := range strings.Split(piece, "/") {
		if c == ".." {
			return "the word " + strconv.Quote(piece) + " after a blank climbs out of the working directory"
		}
	}
	return ""
}
