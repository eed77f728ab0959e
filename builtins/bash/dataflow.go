package bash

import (
	"errors"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/permopa/permopa/builtins/flagspec"
	"mvdan.cc/sh/v3/syntax"
)

// Values whose provenance the analysis knows (docs/shell.md, "Values and
// where they come from"). A path find prints or hands to -exec is a path
// under one of find's starting points; when every starting point is a
// static word that cannot start with "-", no such path can be taken for an
// option, and the program reading it reads (at most) the tree of that
// starting point. The walk hands those roots to the command that receives
// the paths (frame.dataRoots); the leaf is judged with pathMark in place of
// each supplied path, and a read of exactly pathMark becomes a recursive
// read of every root.

// pathMark stands for one path under a known root in the argv a leaf is
// judged with: it does not start with "-" (so the vocabulary reads it as an
// operand or an option's value), and it holds dyn (so it is never a static
// path, a literal pattern or literal code).
const pathMark = "./" + dyn

// findDataRoots returns the starting points of a find command line,
// resolved, when the paths it supplies are known to be paths under them:
// every word before the expression is static and no glob (or a glob
// ending in "/", whose names find refuses when they start with "-":
// findGlobWords; the root is then the glob), and no primary reads
// starting points from elsewhere. ok is false otherwise.
func (w *walker) findDataRoots(argv []word, e flagspec.FindExpr, st state) ([]string, bool) {
	end := len(argv)
	if len(e.Primaries) > 0 {
		end = e.Primaries[0].Index
	}
	for _, a := range argv[1:end] {
		if a.dynamic || a.glob && !w.findSlashGlob(a) || a.s == "" || strings.Contains(a.s, pasteMark) {
			// A path pasted into a sh -c script (pastescript.go) is
			// no starting point known statically.
			return nil, false
		}
	}
	for _, p := range e.Primaries {
		if p.Name == "-files0-from" {
			return nil, false
		}
	}
	var roots []string
	for _, r := range e.Roots {
		if strings.HasPrefix(r, "-") || strings.Contains(r, dyn) || w.rootMayNameHost(r, st) {
			return nil, false
		}
		ps, ok := w.resolve(r, st)
		if !ok || len(ps) == 0 {
			return nil, false
		}
		for _, p := range ps {
			roots = appendUnique(roots, p)
		}
	}
	return roots, len(roots) > 0
}

// rootMayNameHost reports whether a path find prints under the starting
// point r may name a file on another host: tar -f and cpio -F read
// "host:file" (a colon before any slash) as a remote archive and run rsh
// to reach it, while the path is judged as pathMark ("./…", local). So r's
// first component must hold no colon, and where it is a glob (find */),
// no name in the working directory may hold one at decision time (every
// name is tried, a superset of what the glob matches; the directory is
// stamped, and a name the same command creates is handled in namesnow.go).
func (w *walker) rootMayNameHost(r string, st state) bool {
	first, _, _ := strings.Cut(r, "/")
	if strings.Contains(first, ":") {
		return true
	}
	if !strings.ContainsAny(first, "*?[") {
		return false
	}
	dir := st.single()
	if dir == "" {
		return true
	}
	names, ok := w.dirNamesNow(dir, listedPaths)
	return !ok || slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, ":") })
}

// findPipedCall returns a find statement whose words are all literal
// (quoted or not) or $HOME (home: quoted, or unquoted when the home
// directory holds no blank or glob character, so that it stays one word)
// and whose stderr, if redirected, goes to a file, not into the pipe; nil
// otherwise.
func findPipedCall(s *syntax.Stmt, home string) *syntax.CallExpr {
	c, isCall := s.Cmd.(*syntax.CallExpr)
	if !isCall || len(c.Assigns) > 0 || len(c.Args) < 1 || c.Args[0].Lit() != "find" {
		return nil
	}
	for _, r := range s.Redirs {
		if r.N == nil || r.N.Value != "2" || (r.Op != syntax.RdrOut && r.Op != syntax.AppOut) {
			return nil
		}
	}
	for _, a := range c.Args {
		if !quotedLiteral(a) && !homeWord(a, home) {
			return nil
		}
	}
	return c
}

// homeWord reports whether a word is $HOME or ${HOME} (quoted or not),
// optionally followed by a literal: the analysis expands it to the home
// directory (words.go), which must be known.
func homeWord(wd *syntax.Word, home string) bool {
	if home == "" || len(wd.Parts) == 0 {
		return false
	}
	first := wd.Parts[0]
	quoted := false
	if dq, ok := first.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		first, quoted = dq.Parts[0], true
	}
	pe, ok := first.(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Param.Value != "HOME" || !isPlainParam(pe, "HOME") {
		return false
	}
	if !quoted && strings.ContainsAny(home, " \t\n*?[") {
		return false
	}
	return quotedLiteral(&syntax.Word{Parts: wd.Parts[1:]})
}

// findPrintsOnlyPaths reports whether find's standard output is nothing
// but its paths, each ended by a NUL (-print0 and no other action that
// prints or runs a command): xargs -0 then reads whole paths.
func findPrintsOnlyPaths(argv []string) bool {
	print0 := false
	for _, p := range flagspec.ParseFind(argv).Primaries {
		switch p.Name {
		case "-print0":
			print0 = true
		case "-print", "-printf", "-ls", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0",
			"-fprintf", "-fls", "-delete":
			return false
		}
	}
	return print0
}

// quotedLiteral reports whether a word is made of literal and quoted
// literal parts only ('*.go', "x").
func quotedLiteral(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
		case *syntax.SglQuoted:
			if p.Dollar {
				return false
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// pipedXargs reports whether a pipeline part is a plain xargs command that
// reads the pipe itself: no assignment, no input redirection, no
// substitution (which could read part of the pipe first).
func pipedXargs(s *syntax.Stmt) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(c.Args) < 1 || c.Args[0].Lit() != "xargs" {
		return false
	}
	for _, r := range s.Redirs {
		if r.N != nil && r.N.Value == "0" || r.N == nil && isInputRedir(r.Op) {
			return false
		}
	}
	subst := false
	walkAST(s, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			subst = true
		}
		return !subst
	})
	return !subst
}

func isInputRedir(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	}
	return false
}

// isPathMark reports whether a path from the vocabulary is exactly one
// supplied path (pathMark): not a path built around it ({}.bak, x{}, {}/..).
func isPathMark(p string) bool { return p == pathMark }

// rootTrees are the trees read when a program reads paths under roots:
// everything below each root, hidden entries included, at any depth, no
// filter (a supplied path may itself be hidden, and a program's include
// and exclude globs need not apply to the paths it is named).
func rootTrees(roots []string) []Tree {
	out := make([]Tree, 0, len(roots))
	for _, r := range roots {
		out = append(out, Tree{Path: r, Hidden: true})
	}
	return out
}

// rootTreesTo are rootTrees read down to depth levels (0: no limit).
func rootTreesTo(roots []string, depth int) []Tree {
	ts := rootTrees(roots)
	for i := range ts {
		ts[i].MaxDepth = depth
	}
	return ts
}

// findDepth is how deep below its starting point a path find supplies
// lies, plus one (the entries of a directory it names): -maxdepth N gives
// N+1, the largest N when given more than once; 0 (no limit) without
// -maxdepth or with a value that is not a plain number.
func findDepth(e flagspec.FindExpr) int {
	depth := 0
	for _, p := range e.Primaries {
		if p.Name != "-maxdepth" {
			continue
		}
		if len(p.Values) != 1 {
			return 0
		}
		n, err := strconv.Atoi(p.Values[0])
		if err != nil || n < 0 || n > 1<<16 || strings.HasPrefix(p.Values[0], "+") {
			return 0
		}
		depth = max(depth, n+1)
	}
	return depth
}

// markInArgv reports whether a word already holds pathMark before any
// supplied word is put in (./$x): then a read of pathMark could come from
// it, and no supplied value is tracked.
func markInArgv(argv []string) bool {
	for _, a := range argv[1:] {
		if strings.Contains(a, pathMark) {
			return true
		}
	}
	return false
}

// judgeSupplied judges argv, whose supplied words are pathMark, in every
// shape the wrapper may run it: with the words it appends (one and two
// of them: xargs and -exec ... {} + pass several), and with none when it
// may run the command on empty input. The verdict is read-only only when
// every shape is; the paths of all shapes are reported. It returns the
// argv of the main shape (the one judged for a single supplied path).
func judgeSupplied(argv []string, fr frame) ([]string, flagspec.Verdict) {
	var shapes [][]string
	if fr.appends {
		one := append(append([]string(nil), argv...), pathMark)
		shapes = append(shapes, one, append(append([]string(nil), one...), pathMark))
		if fr.dataEmpty {
			shapes = append(shapes, argv)
		}
	} else {
		shapes = append(shapes, argv)
		// -exec ... {} +: the last {} stands for one or more paths.
		if n := len(argv); n > 1 && argv[n-1] == pathMark {
			shapes = append(shapes, append(append([]string(nil), argv...), pathMark))
		}
	}
	v := flagspec.Judge(shapes[0])
	for _, sh := range shapes[1:] {
		o := flagspec.Judge(sh)
		if !o.ReadOnly && v.ReadOnly {
			v.ReadOnly, v.Reason = false, o.Reason
		}
		v.Reads = append(v.Reads, o.Reads...)
		v.Writes = append(v.Writes, o.Writes...)
		v.RecursiveReads = append(v.RecursiveReads, o.RecursiveReads...)
		v.RunsUnknown = firstNonEmpty(v.RunsUnknown, o.RunsUnknown)
		v.RunsData = firstNonEmpty(v.RunsData, o.RunsData)
		v.Environment = firstNonEmpty(v.Environment, o.Environment)
		v.Terminal = firstNonEmpty(v.Terminal, o.Terminal)
		if o.Network != "" && v.Network == "" {
			v.Network = o.Network
		}
	}
	return shapes[0], v
}

// innermostWrapper is the innermost wrapper's label ("xargs", "find -exec").
func innermostWrapper(wrappers []string) string {
	if len(wrappers) == 0 {
		return ""
	}
	return wrappers[len(wrappers)-1]
}

// maxLoopValues caps the items of a loop whose variable is followed, and
// the leaves one command becomes (one per combination of values).
const maxLoopValues = 16

// loopValues returns the loop variables known in the body of
// "for name in items; do body; done": outer's, with name bound to items
// when every value of name there is one of them as written, or removed
// when not. The items must be static words (literals or globs, no
// expansion: a glob is a name it matches or, matching none, itself), at
// most maxLoopValues; globs must mean what bash reads by default (no
// shopt that changes them, globsChanged); and nothing may assign name in
// the body (assignsName) or elsewhere (a nameref: no declare, typeset or
// local in the command; a trap, which runs between commands).
func (w *walker) loopValues(outer map[string][]word, name string, items []word, body []*syntax.Stmt) map[string][]word {
	known := len(items) > 0 && len(items) <= maxLoopValues && localName(name)
	for _, kw := range []string{"declare", "typeset", "local", "trap"} {
		if strings.Contains(w.src, kw) {
			known = false
		}
	}
	items = loopSubstItems(items)
	for _, it := range items {
		if (it.dynamic || it.splits) && it.prov == nil || it.taint != "" || it.glob && w.globsChanged {
			known = false
		}
	}
	for _, st := range body {
		if known && w.assignsName(st, name) {
			known = false
		}
	}
	_, had := outer[name]
	if !known && !had {
		return outer
	}
	out := make(map[string][]word, len(outer)+1)
	for k, v := range outer {
		if k != name {
			out[k] = v
		}
	}
	if known {
		out[name] = items
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// nameAssigners are the builtins that assign a variable named by an
// argument (read f, printf -v f, unset f, getopts o f, wait -p f) or
// run a string that may (eval, let); builtin and command run them.
var nameAssigners = map[string]bool{
	"read": true, "printf": true, "mapfile": true, "readarray": true, "getopts": true, "unset": true,
	"wait": true, "let": true, "eval": true, "export": true, "readonly": true, "declare": true,
	"typeset": true, "local": true, "builtin": true, "command": true, "source": true, ".": true,
}

// assignsName reports whether n may assign the variable name: an
// assignment, a loop over it, ${name:=x}, coproc name, an argument of a
// builtin that assigns variables by name that names it (name, name=x,
// name[i], -vname) or is only known at run time, {name}> redirection
// words, and arithmetic that mentions it ((( name = 1 )), $((name++)),
// subscripts, [[ ]]'s arithmetic comparisons, for (( ))).
func (w *walker) assignsName(n syntax.Node, name string) bool {
	found := false
	mentions := func(x syntax.Node) {
		if x != nil && containsIdent(w.source(x), name) {
			found = true
		}
	}
	w.walkAST(n, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.Assign:
			if x.Name != nil && x.Name.Value == name {
				found = true
			}
		case *syntax.WordIter:
			if x.Name != nil && x.Name.Value == name {
				found = true
			}
		case *syntax.CoprocClause:
			found = true
		case *syntax.ParamExp:
			if x.Exp != nil && (x.Param != nil && x.Param.Value == name || x.Excl) {
				found = true
			}
			mentions(x.Index)
			if x.Slice != nil {
				mentions(x.Slice.Offset)
				mentions(x.Slice.Length)
			}
		case *syntax.ArithmCmd, *syntax.ArithmExp, *syntax.LetClause, *syntax.CStyleLoop:
			mentions(x)
		case *syntax.BinaryTest:
			switch x.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				mentions(x)
			}
		case *syntax.DeclClause:
			found = true
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				break
			}
			if !nameAssigners[x.Args[0].Lit()] {
				for _, a := range x.Args {
					if t, ok := literalText(a); ok && (t == "{"+name+"}" || strings.HasPrefix(t, "{"+name+"[")) {
						found = true
					}
				}
				break
			}
			if n := x.Args[0].Lit(); n == "source" || n == "." || n == "eval" {
				found = true // a script or string that may assign anything
			}
			if printfFormatFirst(x) {
				break // printf assigns only with -v, before its format
			}
			for _, a := range x.Args[1:] {
				t, ok := literalText(a)
				if !ok || t == name || strings.HasPrefix(t, name+"=") || strings.HasPrefix(t, name+"+=") ||
					strings.HasPrefix(t, name+"[") || strings.HasPrefix(t, "-") && strings.HasSuffix(t, name) && len(t) > len(name)+1 {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// literalText is the text of a word made of literal and quoted literal
// parts only, after quote removal of the simple kind (no backslash in an
// unquoted part): ok is false for any other word.
func literalText(wd *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range wd.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsRune(p.Value, '\\') {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.ContainsRune(l.Value, '\\') {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// containsIdent reports whether s holds name as a whole identifier.
func containsIdent(s, name string) bool {
	for i := strings.Index(s, name); i >= 0; {
		end := i + len(name)
		if (i == 0 || !identByte(s[i-1])) && (end == len(s) || !identByte(s[end])) {
			return true
		}
		j := strings.Index(s[i+1:], name)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// loopAlternatives returns the argvs a leaf runs with, one per
// combination of the values of the loop variables it names (nil when it
// names none, or when a value is not known where it stands). A word that
// is only "$name" takes each value whole: quoted, a literal or a glob
// that cannot match a name starting with "-" (./*.txt, src/*.go,
// [n]*.txt: one name it matches, never an option; * and *.txt match -rf
// and --files0-from=list: unknown, whatever the program); unquoted, only a literal
// that splitting and globbing leave as it is (no blank, no glob
// character, not empty): a name a glob matches may hold blanks, and
// "a -rf" splits into an option.
func loopAlternatives(vars map[string][]word, argv []word) [][]word {
	if len(vars) == 0 {
		return nil
	}
	alts := [][]word{argv}
	bound := map[string]bool{}
	for _, a := range argv {
		vals, ok := vars[a.param]
		if a.param == "" || !ok || bound[a.param] || a.s != dyn {
			continue
		}
		for _, v := range vals {
			if a.splits && (v.glob || v.s == "" || strings.ContainsAny(v.s, " \t\n*?[") || v.prov != nil && v.prov.quotedOnly) ||
				v.glob && globMayBeOption(v.s) {
				return nil
			}
		}
		bound[a.param] = true
		if len(alts)*len(vals) > maxLoopValues {
			return nil
		}
		next := make([][]word, 0, len(alts)*len(vals))
		for _, alt := range alts {
			for _, v := range vals {
				n := make([]word, len(alt))
				for i, x := range alt {
					if x.param == a.param && x.s == dyn {
						x = word{s: v.s, glob: v.glob, one: true, prov: v.prov, dynamic: v.prov != nil}
					}
					n[i] = x
				}
				next = append(next, n)
			}
		}
		alts = next
	}
	if len(bound) == 0 {
		return nil
	}
	return alts
}

// findPrintsOnlyLines reports whether find's standard output is nothing
// but its paths, each ended by a newline (-print, or no action at all).
func findPrintsOnlyLines(argv []string) bool {
	for _, p := range flagspec.ParseFind(argv).Primaries {
		switch p.Name {
		case "-print0", "-printf", "-ls", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0",
			"-fprintf", "-fls", "-delete":
			return false
		}
	}
	return true
}

// xargsPlainByte reports whether GNU xargs, reading items separated by
// blanks and newlines (no -0, no -d), passes the byte on as it is: a
// printable ASCII character other than a quote or a backslash. Blanks,
// newlines and the other white space split items, quotes and backslashes
// are removed, and bytes beyond ASCII are left to the locale.
func xargsPlainByte(c byte) bool {
	return c > ' ' && c < 0x7f && c != '\'' && c != '"' && c != '\\'
}

func xargsPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if !xargsPlainByte(s[i]) {
			return false
		}
	}
	return s != ""
}

// findNamesPlain checks, at decision time, that every path find can print
// below its starting points reaches xargs (without -0) whole: each
// starting point as written and each name in its tree (down to find's
// -maxdepth: depth is findDepth's) is made of
// xargsPlain bytes only. The walk is the bounded one of recursive reads
// (paths.ListTree, hidden entries included, through links: a superset of
// what find prints with or without -L); a tree too large or unreadable
// fails. Every directory read is stamped, so a cached analysis holds only
// while none of them changes. It returns why not, "" when plain. What
// changes between the decision and the run is not seen (docs/shell.md).
func (w *walker) findNamesPlain(words []string, roots []string, depth int) string {
	for _, r := range words {
		if !xargsPlain(r) {
			return "the starting point " + strconv.Quote(r) + " holds a character xargs splits at or removes"
		}
		if strings.ContainsAny(r, "*?[") {
			// A glob root (find */, findGlobWords): the names it matches
			// are not the one directory the walk below would read.
			return "the starting point " + strconv.Quote(r) + " may be a glob, whose names are not walked"
		}
	}
	if depth == 1 {
		return "" // -maxdepth 0: find prints its starting points only
	}
	if !w.namesNow(listedPaths) {
		return namesMayChangeWhy
	}
	return w.namesBelow(roots, depth, func(name string) string {
		if !xargsPlain(name) {
			return "holds a character xargs splits at or removes"
		}
		return ""
	})
}

// namesBelow walks the trees below find's roots down to depth at
// decision time (hidden entries, through links, at most
// paths.MaxTreeEntries entries, every directory read stamped) and says
// why a name there cannot be taken, "" when none: a link that cannot be
// known statically, a FIFO, socket or device (the program handed its name
// may block on it or read the device), or a name nameOK objects to (it
// returns why). findNamesPlain and substNamesOK check their names here.
func (w *walker) namesBelow(roots []string, depth int, nameOK func(name string) string) string {
	return w.namesBelowSelected(roots, depth, nil, nameOK)
}

// maxGlobDirEntries bounds the directory read to tell whether a glob
// matches nothing.
const maxGlobDirEntries = 4096

// literalUnmatchedGlobs returns find's argv with each glob word of its
// expression (after the starting points: a -name pattern written without
// quotes) that matches no name in the working directory now taken as the
// literal word bash then passes (no nullglob or failglob, which a shopt in
// the command would set: globsChanged). Only a glob of * and ? without a
// slash, bracket or backslash is tried, every * and ? taken as active (a
// superset of its matches, names starting with "." included); the
// working directory must be one known directory, which is stamped (its
// modification time changes with its entries). A glob that matches keeps
// its glob mark (names, maybe options). What changes between the decision
// and the run is not seen (docs/shell.md).
func (w *walker) literalUnmatchedGlobs(argv []word, st state) ([]word, bool) {
	dir := st.single()
	if dir == "" || w.globsChanged {
		return argv, false
	}
	e := flagspec.ParseFind(strs(argv))
	if len(e.Primaries) == 0 {
		return argv, false
	}
	var names []string
	listed, out := false, argv
	for i := e.Primaries[0].Index; i < len(argv); i++ {
		a := argv[i]
		if !a.glob || a.dynamic || a.splits || a.taint != "" || a.s == "" || strings.ContainsAny(a.s, "/[\\") {
			continue
		}
		if !listed {
			listed = true
			var ok bool
			if names, ok = w.dirNamesNow(dir, listedPaths); !ok {
				return argv, false
			}
		}
		if slices.ContainsFunc(names, func(n string) bool {
			ok, err := path.Match(a.s, n)
			return ok || err != nil
		}) {
			continue
		}
		if &out[0] == &argv[0] {
			out = slices.Clone(argv)
		}
		out[i].glob = false
	}
	return out, &out[0] != &argv[0]
}

// globsNoOptionNow returns the indexes of argv's glob words that may
// match a name starting with "-" (globMayBeOption: * and ? lead, du -sh *,
// grep -r x *, ls -d */, wc -l *.txt) and that cannot now: the first
// component of the glob is matched in the working directory, and no name
// there starts with "-", whatever the pattern (a superset of what bash
// matches, brackets, hidden names and extglob included), nor one that
// means anything else to a program (plainLead). nil when none.
// The working directory must be one known directory of at most
// maxGlobDirEntries names. Not with a shopt in the command
// (globsChanged). The directory is stamped, so a cached analysis holds
// only while its names are unchanged; a name created by another part of
// the same command is handled in namesnow.go; one created by another
// process between the decision and the run is not seen (docs/shell.md,
// "Values and where they come from").
func (w *walker) globsNoOptionNow(argv []word, st state) (out map[int]bool, why string) {
	dir := st.single()
	if dir == "" || w.globsChanged {
		return nil, ""
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if !a.glob || a.dynamic || a.splits || a.taint != "" || !globMayBeOption(a.s) {
			continue
		}
		if out == nil {
			names, ok := w.dirNamesNow(dir, listedPaths) // listedBare where the leaf relies on it (leaf.go)
			if !ok {
				if w.noListing {
					return nil, ""
				}
				return nil, "the working directory cannot be listed whole"
			}
			if bad := firstName(names, func(n string) bool { return !plainLead(n) }); bad != "" {
				// The least such name: a reason that does not
				// depend on the directory's order.
				return nil, "a name in the working directory may be an option or more than a file: " + strconv.Quote(bad)
			}
			out = map[int]bool{}
		}
		out[i] = true
	}
	return out, ""
}

// firstName returns the least of names for which bad holds, "" when none.
func firstName(names []string, bad func(string) bool) string {
	least := ""
	for _, n := range names {
		if bad(n) && (least == "" || n < least) {
			least = n
		}
	}
	return least
}

// plainLead reports whether a name a glob may expand to means to any
// program what ./name means: it starts with a letter, a digit, "." or "_"
// (not "-", an option; "@", a file of more arguments to binutils' strings
// and objdump; "+", an obsolete key or offset to sort, head and tail; "(",
// "!" or "," to find and test) and holds no "=" (an assignment to make,
// awk and dd) and no ":" (a bare name holds no slash, so tar -f and cpio
// -F read "host:file" as an archive on that host, reached through rsh).
func plainLead(n string) bool {
	if n == "" || strings.ContainsAny(n, "=:") {
		return false
	}
	c := n[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
}

// dirNamesNow lists the names of directory dir at decision time (at most
// maxGlobDirEntries) and stamps it; l says how the names are used
// (namesNow). ok is false when it cannot be read whole, or does not
// exist (no shell runs there: the working directory named is not the one
// the command will see).
func (w *walker) dirNamesNow(dir string, l listing) ([]string, bool) {
	if !w.namesNow(l) {
		return nil, false
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	names, err := f.Readdirnames(maxGlobDirEntries + 1)
	f.Close()
	if err != nil && !errors.Is(err, io.EOF) || len(names) > maxGlobDirEntries {
		return nil, false
	}
	w.scriptFiles().StampDir(dir)
	return names, true
}

// xargsAppendsText reports whether the words xargs appends to cmd can be
// judged as one unquoted run-time word at the end of cmd's argv: cmd is a
// program the vocabulary judges itself (a bare name, no wrapper the walker
// reads, no shell, interpreter or other program that runs code: xargs sh
// would take the first word as its script), and every xargs option only
// splits the input (-0, -d, -E) or limits and schedules the runs. -I
// (words placed inside others), -o (the terminal as stdin) and
// --process-slot-var (an environment variable) are not. A run-time word
// may be any text, an option, "--", no word or several
// (flagspec.DynamicWordsHarmless), which is what xargs appends, whatever
// its input holds.
func xargsAppendsText(opts []parsedOpt, cmd []word) bool {
	for _, o := range opts {
		switch o.name {
		case "0", "null", "d", "delimiter", "E", "e", "eof", "n", "max-args", "L", "l", "max-lines", "P",
			"max-procs", "s", "max-chars", "r", "no-run-if-empty", "t", "verbose", "x", "exit", "a", "arg-file":
		default:
			return false
		}
	}
	if len(cmd) == 0 {
		return true // echo
	}
	p := cmd[0]
	if p.dynamic || p.glob || p.splits || p.taint != "" || strings.Contains(p.s, "/") || wrappers[p.s] != nil {
		return false
	}
	kind, _ := flagspec.RunsCode(p.s)
	return kind == flagspec.NoCode && flagspec.Modelled(p.s)
}

// findPatternPrimaries are find's primaries whose one value is a pattern
// matched against names, never a file find opens.
var findPatternPrimaries = map[string]bool{"-name": true, "-iname": true, "-path": true, "-ipath": true,
	"-wholename": true, "-iwholename": true, "-regex": true, "-iregex": true, "-lname": true, "-ilname": true}

// findGlobWords returns find's argv with the globs GNU find cannot take
// as more than one word marked one, and the indexes of the starting
// points that are globs no name they match can make an option
// (docs/shell.md, "Values and where they come from"). find reads its whole
// command line before it looks at a file, and stops with an error at a
// word in the expression that is no primary or operator ("paths must
// precede expression", "unknown predicate"):
//   - a pattern primary's value (-name *.bar, -name “*.pdf”) whose glob
//     holds a literal character no primary or operator holds (anything but
//     letters, digits and "-!(),"): a second name it matches stands where
//     a primary must and is none, so find runs nothing; one name, or none
//     (the pattern as written), is the value.
//   - a starting point ending in "/" (*/, src/*/): every name it matches
//     ends in "/", so one starting with "-" is no option find knows (-L/,
//     -delete/: find stops), and "(/" or "!/" is a path.
//
// Not with a shopt in the command (nullglob drops an unmatched glob, and
// -name then takes the next word), nor for a glob with a bracket or a
// backslash (read for less than it may match).
func (w *walker) findGlobWords(argv []word, st state) ([]word, map[int]bool) {
	if w.globsChanged {
		return argv, nil
	}
	e := flagspec.ParseFind(strs(argv))
	first := len(argv)
	if len(e.Primaries) > 0 {
		first = e.Primaries[0].Index
	}
	var roots map[int]bool
	for i := 1; i < first; i++ {
		if w.findSlashGlob(argv[i]) || w.findRootGlobListed(argv[i], st) {
			if roots == nil {
				roots = map[int]bool{}
			}
			roots[i] = true
		}
	}
	out := argv
	for _, p := range e.Primaries {
		i := p.Index + 1
		if !findPatternPrimaries[p.Name] || len(p.Values) != 1 || i >= len(argv) || !plainGlob(argv[i]) ||
			argv[i].one || !findNeverPrimary(argv[i].s) {
			continue
		}
		if &out[0] == &argv[0] {
			out = slices.Clone(argv)
		}
		out[i].one = true
	}
	return out, roots
}

// findRootGlobListed reports whether a starting point of find that is a
// plain glob of names in the working directory (find . *, find * -maxdepth
// 0) matches, at decision time, no name find would take for an option, a
// primary or an operator: none starting with "-", none that is "!", "(",
// ")" or ",". Every name is tried, hidden ones too (a superset of what
// bash matches); the working directory must be one known directory of at
// most maxGlobDirEntries names, and is stamped, as for
// literalUnmatchedGlobs. What changes between the decision and the run is
// not seen (docs/shell.md).
func (w *walker) findRootGlobListed(a word, st state) bool {
	dir := st.single()
	if w.globsChanged || !plainGlob(a) || strings.Contains(a.s, "/") || dir == "" {
		return false
	}
	names, ok := w.dirNamesNow(dir, listedPaths)
	if !ok {
		return false
	}
	for _, n := range names {
		ok, err := path.Match(a.s, n)
		if err != nil || ok && (strings.HasPrefix(n, "-") || n == "!" || n == "(" || n == ")" || n == ",") {
			return false
		}
	}
	return true
}

// plainGlob reports whether a word is a static glob of * and ? (no
// expansion, no bracket or backslash, which are read for less than they
// may match).
func plainGlob(a word) bool {
	return a.glob && !a.dynamic && !a.splits && a.taint == "" && a.s != "" && !strings.ContainsAny(a.s, "[\\")
}

// findSlashGlob reports whether a starting point of find is a plain glob
// ending in "/" read as bash reads it by default (no shopt in the
// command): findGlobWords.
func (w *walker) findSlashGlob(a word) bool {
	return !w.globsChanged && plainGlob(a) && strings.HasSuffix(a.s, "/")
}

// findNeverPrimary reports whether every name a glob (of * and ?) matches
// holds a character that no find primary or operator holds: a literal one
// other than a letter, a digit or one of "-!(),".
func findNeverPrimary(glob string) bool {
	for _, c := range glob {
		switch {
		case c == '*' || c == '?' || c == '-' || c == '!' || c == '(' || c == ')' || c == ',':
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
		default:
			return true
		}
	}
	return false
}

// readJudge is the argv of the read builtin to judge (docs/shell.md,
// "Values and where they come from"):
//   - a quoted word only known at run time that is the value of -d or -p
//     given as the next word (read -d "$(printf '\004')" x) is that value,
//     whatever it holds: bash takes the next word whole, so it cannot be an
//     option or a name. It is judged as plain text; values are the indexes
//     of those words.
//   - -e and -i TEXT (readline) are judged as -r and -p TEXT when stdin
//     cannot be a terminal: bash only starts readline, and reads the
//     user's inputrc, when stdin is one (checked under strace), and the
//     host's stdin is not (Options.StdinTerminal false) unless the command
//     redirects it: so not when the command names /dev/ or /proc/, dups a
//     descriptor (<&), uses exec or defines key bindings (bind -x runs a
//     command on a key); and only in a shell per call (Options.ShellPerCall:
//     an earlier call in a shell that lasts may have redirected its stdin or
//     bound keys). Only the separate words -e and -i are read so; a
//     cluster (-ei) stays as written.
func (w *walker) readJudge(argv []word, judge []string) ([]string, map[int]bool) {
	if len(argv) != len(judge) {
		return judge, nil
	}
	var values map[int]bool
	noTTY := w.opts.ShellPerCall && !w.opts.StdinTerminal
	for _, s := range []string{"/dev/", "/proc/", "<&", "exec", "bind"} {
		if strings.Contains(w.src, s) {
			noTTY = false
		}
	}
	out := judge
	set := func(i int, s string) {
		if &out[0] == &judge[0] {
			out = slices.Clone(judge)
		}
		out[i] = s
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a.dynamic || len(a.s) < 2 || a.s[0] != '-' || a.s == "--" {
			break
		}
		if a.s == "-e" && noTTY {
			set(i, "-r")
			continue
		}
		// The first letter that takes a value takes the rest of the word,
		// or the next word when it is the last letter.
		k := strings.IndexAny(a.s[1:], "adinNptu")
		if k < 0 || k+2 < len(a.s) || i+1 >= len(argv) {
			continue
		}
		if a.s == "-i" && noTTY {
			set(i, "-p")
		}
		if c, v := a.s[k+1], argv[i+1]; (c == 'd' || c == 'p' || c == 'i') && v.dynamic && !v.splits && v.taint == "" {
			set(i+1, "x")
			if values == nil {
				values = map[int]bool{}
			}
			values[i+1] = true
		}
		i++
	}
	return out, values
}

// lineFilter reports whether a pipeline part is a program that writes
// only whole lines of its stdin: grep with one pattern and the options
// that select lines, sort and its ordering options, head and tail by
// lines, uniq without counts, cat and tac alone. Every word is literal,
// no file operand (grep -r without one searches the working directory),
// and nothing redirected but stderr to a file.
func lineFilter(s *syntax.Stmt, defined map[string]string) bool {
	args := callWords(s)
	if args == nil {
		return false
	}
	if _, def := defined[args[0]]; def {
		return false
	}
	for _, r := range s.Redirs {
		if r.N == nil || r.N.Value != "2" || (r.Op != syntax.RdrOut && r.Op != syntax.AppOut) || !quotedLiteral(r.Word) {
			return false
		}
	}
	switch args[0] {
	case "cat", "tac":
		return len(args) == 1
	case "grep", "egrep", "fgrep":
		return filterArgs(args[1:], "ivEFGPwxsay", "em", []string{"ignore-case", "invert-match", "extended-regexp",
			"fixed-strings", "basic-regexp", "perl-regexp", "word-regexp", "line-regexp", "no-messages", "text"},
			[]string{"regexp", "max-count"}, true)
	case "sort":
		return filterArgs(args[1:], "bdfgiMhnRrVsu", "kt", []string{"ignore-leading-blanks", "dictionary-order",
			"ignore-case", "general-numeric-sort", "ignore-nonprinting", "month-sort", "human-numeric-sort",
			"numeric-sort", "random-sort", "reverse", "version-sort", "stable", "unique"},
			[]string{"key", "field-separator"}, false)
	case "head", "tail":
		// head +2 reads a file named +2; tail +2 starts at line 2.
		if args[0] == "head" && slices.ContainsFunc(args[1:], func(a string) bool { return strings.HasPrefix(a, "+") }) {
			return false
		}
		return filterArgs(args[1:], "0123456789", "n", nil, []string{"lines"}, false)
	case "uniq":
		return filterArgs(args[1:], "dui", "fsw", []string{"repeated", "unique", "ignore-case"},
			[]string{"skip-fields", "skip-chars", "check-chars"}, false)
	}
	return false
}

// filterArgs checks a line filter's arguments: clusters of the letters
// flags, letters of valued taking the rest of the word or the next word,
// the long options named (valued ones with "=VALUE"), and no operand but
// grep's pattern (pattern: one operand when no -e or --regexp gave one).
// tail's "+N" and head's and tail's "-N" are line counts.
func filterArgs(args []string, flags, valued string, long, longValued []string, pattern bool) bool {
	operands, given := 0, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands += len(args) - i - 1
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, _, hasVal := strings.Cut(a[2:], "=")
			switch {
			case !hasVal && slices.Contains(long, name):
			case hasVal && slices.Contains(longValued, name):
				given = given || name == "regexp"
			default:
				return false
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				l := a[j]
				if strings.IndexByte(valued, l) >= 0 {
					given = given || l == 'e'
					if j == len(a)-1 {
						i++ // the next word is the value
						if i >= len(args) {
							return false
						}
					}
					break
				}
				if strings.IndexByte(flags, l) < 0 {
					return false
				}
			}
		case len(a) > 1 && a[0] == '+' && valued == "n":
			// tail +N: from line N on (obsolete).
		default:
			operands++
		}
	}
	if pattern && !given {
		return operands == 1
	}
	return operands == 0
}

// lsPipedCall reports whether a pipeline part is ls listing the working
// directory one name a line: no operand, literal words, only options that
// choose the order (-1 -t -r -S -X -U -v -c -u) or add hidden names but
// not "." and ".." (-A), nothing redirected but stderr to a file, and no
// function or alias of that name in the command. -a would print "..", a
// way out of the directory; -l, -F, -p, -R, -Q and --color change the
// lines.
func lsPipedCall(s *syntax.Stmt, defined map[string]string) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(c.Args) == 0 || c.Args[0].Lit() != "ls" || s.Background || s.Negated {
		return false
	}
	if _, def := defined["ls"]; def {
		return false
	}
	for _, r := range s.Redirs {
		if r.N == nil || r.N.Value != "2" || (r.Op != syntax.RdrOut && r.Op != syntax.AppOut) || !quotedLiteral(r.Word) {
			return false
		}
	}
	for _, a := range c.Args[1:] {
		t, ok := literalText(a)
		if !ok || len(t) < 2 || t[0] != '-' || t == "--" || strings.Trim(t[1:], "1trSXUvcuA") != "" {
			return false
		}
	}
	return true
}

// lsNamesPlain checks, at decision time, that every name ls can print in
// the working directory reaches xargs (without -0) whole and means what
// ./name means (plainLead: no "-", "@" or "+" first, no "="), and that
// none is a FIFO, socket or device (findNamesPlain). It returns the
// directory, and why not ("" when plain). The directory is stamped.
func (w *walker) lsNamesPlain(st state) (string, string) {
	dir := st.single()
	if dir == "" {
		return "", "ls lists a directory not known statically"
	}
	names, ok := w.dirNamesNow(dir, listedBare)
	if !ok && w.noListing {
		return "", lsNamesMayChangeWhy
	}
	if !ok {
		return "", "the working directory cannot be listed whole"
	}
	// The least such name: a reason that does not depend on the
	// directory's order.
	if n := firstName(names, func(n string) bool { return !plainLead(n) }); n != "" {
		return "", "a name in the working directory may be an option or more than a file: " + strconv.Quote(n)
	}
	return dir, w.findNamesPlain([]string{"."}, []string{dir}, 2)
}
