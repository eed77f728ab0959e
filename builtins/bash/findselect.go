package bash

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/permopa/permopa/builtins/flagspec"
	"github.com/permopa/permopa/builtins/paths"
	"mvdan.cc/sh/v3/syntax"
)

// Which paths a find pipeline prints (docs/shell.md, "Values and where
// they come from"). The rows that hand find's paths to xargs or split
// $(find …) check at decision time that every name find can print reaches
// the program whole (findNamesPlain, substNamesOK). Where find's
// expression, and the grep filters after it, are simple enough to be
// evaluated exactly, only the paths they select are checked: a name with
// a blank that find -name '*.py' never prints does not matter. Anything
// not modelled here selects every path, the check of every name.
//
// Modelled: find's expression with its operators as GNU find 4.9 parses
// and evaluates it (parentheses, ! and -not, -a and -and or nothing, -o
// and -or, the comma; -a evaluates its right side only where the left is
// true, -o only where it is false), over -name, -iname, -path, -ipath,
// -wholename, -iwholename (GNU fnmatch without FNM_PERIOD or
// FNM_PATHNAME: * and ? match a leading dot and a slash; -i folds ASCII
// case) with patterns of printable ASCII holding *, ?, and bracket
// expressions of single characters (no range, class or backslash); -type
// f, d, l as find -P sees them (lstat: a link is l); -mindepth N; -true,
// -false, -prune (true; what it prunes is still walked); options, true;
// tests that are not evaluated, either true or false (-size, -mtime,
// -newer, -perm, -regex, a pattern not modelled, ...); -quit, no value
// (find exits: nothing after it runs, not even the -print find adds,
// which -quit does not keep it from adding); -print or -print0, which does. An
// entry is selected when the expression may run -print on it, or, with
// no action, may be true. -L, -H, -follow or any other primary selects
// every path, as does an expression GNU find refuses. A name or path
// holding a byte beyond ASCII is taken as selected (the locale decides how
// it matches). grep filters select lines: one pattern of printable ASCII
// in the subset of basic or extended regular expressions whose meaning Go's
// regexp package shares (literals, ., *, and, extended, + ? | and groups;
// ^ and $ at the ends; bracket expressions of single characters), or a
// fixed string, with -i, -v, -x, -E, -F, -G only. A path holding a newline
// is several lines, any of which a filter may print: taken as selected.

// pathSelection is what a find pipeline may print below its starting
// points; nil selects every path.
type pathSelection struct {
	// find's tests: each says false only when find certainly does not
	// print the entry.
	tests    []func(e selEntry) bool
	minDepth int
	// lines: the grep filters after find, each false only when it
	// certainly drops the line.
	lines []func(line string) bool
	// root is find's one starting point as written ("" with several):
	// the prefix of every path it prints.
	root string
}

// selEntry is one entry of the walk below a starting point.
type selEntry struct {
	rel                string // below the starting point ("a/b")
	depth              int    // components of rel
	dir, link, special bool
}

// name is the entry's last component (what -name sees).
func (e selEntry) name() string { return e.rel[strings.LastIndexByte(e.rel, '/')+1:] }

// printed is the path as find prints it below root ("" when not known).
func (s *pathSelection) printed(e selEntry) string {
	if s.root == "" {
		return ""
	}
	if strings.HasSuffix(s.root, "/") {
		return s.root + e.rel
	}
	return s.root + "/" + e.rel
}

// selects reports whether the pipeline may print the entry.
func (s *pathSelection) selects(e selEntry) bool {
	if s == nil {
		return true
	}
	if e.depth < s.minDepth {
		return false
	}
	for _, t := range s.tests {
		if !t(e) {
			return false
		}
	}
	if len(s.lines) > 0 {
		p := s.printed(e)
		if p == "" || strings.ContainsRune(p, '\n') || !asciiText(p) {
			return true
		}
		for _, l := range s.lines {
			if !l(p) {
				return false
			}
		}
	}
	return true
}

// findNarrowingTests are find tests the model does not evaluate: each may
// be true or false for an entry (selEither).
var findNarrowingTests = map[string]bool{
	"-size": true, "-mtime": true, "-mmin": true, "-atime": true, "-amin": true, "-ctime": true, "-cmin": true,
	"-newer": true, "-anewer": true, "-cnewer": true, "-used": true, "-empty": true, "-perm": true,
	"-user": true, "-group": true, "-uid": true, "-gid": true, "-nouser": true, "-nogroup": true,
	"-readable": true, "-writable": true, "-executable": true, "-links": true, "-inum": true,
	"-samefile": true, "-regex": true, "-iregex": true, "-lname": true, "-ilname": true, "-xtype": true,
	"-fstype": true,
}

// findOptionPrimaries are find's options that change no path find prints
// or only leave some out (-maxdepth: the walk stops there); as primaries
// they are true.
var findOptionPrimaries = map[string]bool{
	"-maxdepth": true, "-depth": true, "-d": true, "-xdev": true, "-mount": true, "-noleaf": true,
	"-ignore_readdir_race": true, "-noignore_readdir_race": true, "-regextype": true, "-warn": true,
	"-nowarn": true, "-daystart": true,
}

// findSelectionOf models what find's argv (the words as the shell passes
// them, fargv) and the grep filters after it print; nil when every path
// may be printed. A pattern word that is still a glob after
// literalUnmatchedGlobs is expanded by the shell first: not modelled.
func (w *walker) findSelectionOf(fargv []word, st state, filters []*syntax.Stmt) *pathSelection {
	s := &pathSelection{}
	fargv, _ = w.literalUnmatchedGlobs(fargv, st)
	fsv := strs(fargv)
	e := flagspec.ParseFind(fsv)
	if len(e.Roots) == 1 {
		s.root = e.Roots[0]
	}
	for i := 1; i < len(fsv); i++ {
		// Options before the starting points: -L and -H follow links.
		a := fsv[i]
		if a == "-P" || strings.HasPrefix(a, "-O") && len(a) > 2 {
			continue
		}
		if a == "-D" {
			i++
			continue
		}
		if a == "-L" || a == "-H" {
			return s.withLines(filters)
		}
		break
	}
	for _, p := range e.Primaries {
		for j := p.Index; j <= p.Index+len(p.Values) && j < len(fargv); j++ {
			if fargv[j].glob || fargv[j].dynamic {
				return s.withLines(filters)
			}
		}
	}
	ps := &selParser{prims: e.Primaries, s: s, modelled: true}
	x := ps.comma()
	if x == nil || ps.i != len(ps.prims) || !ps.modelled {
		s.minDepth = 0
		return s.withLines(filters)
	}
	action := ps.action
	s.tests = append(s.tests, func(en selEntry) bool {
		o := x(en)
		if action {
			return o.canPrint
		}
		return o.canTrue
	})
	return s.withLines(filters)
}

// withLines adds the grep filters' line tests; nil when nothing is
// selected out.
func (s *pathSelection) withLines(filters []*syntax.Stmt) *pathSelection {
	for _, f := range filters {
		if t := grepLineTest(callWords(f)); t != nil {
			s.lines = append(s.lines, t)
		}
	}
	if len(s.tests) == 0 && s.minDepth == 0 && len(s.lines) == 0 {
		return nil
	}
	return s
}

// nameTest is the test of -name and -path (whole: the printed path), nil
// when the pattern is not modelled; ok is false for an entry whose name
// it cannot decide (a byte beyond ASCII, a path not known).
func nameTest(values []string, fold, whole bool, s *pathSelection) func(selEntry) (match, ok bool) {
	if len(values) != 1 {
		return nil
	}
	pat := values[0]
	if _, ok := fnmatchASCII(pat, "", fold); !ok || !whole && strings.Contains(pat, "/") {
		// GNU find warns that -name with a slash matches nothing
		// (but the root "/"): not modelled.
		return nil
	}
	return func(e selEntry) (bool, bool) {
		subject := e.name()
		if whole {
			subject = s.printed(e)
		}
		if subject == "" || !asciiText(subject) {
			return false, false
		}
		return fnmatchASCII(pat, subject, fold)
	}
}

// typeTest is -type's test as find -P sees an entry (lstat), nil for a
// type not modelled (b, c, p, s, D, a comma list).
func typeTest(t string) func(selEntry) bool {
	switch t {
	case "f":
		return func(e selEntry) bool { return !e.link && !e.dir && !e.special }
	case "d":
		return func(e selEntry) bool { return !e.link && e.dir }
	case "l":
		return func(e selEntry) bool { return e.link }
	}
	return nil
}

// asciiText reports whether s holds ASCII bytes only.
func asciiText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// fnmatchASCII matches name against a glob as GNU fnmatch does with no
// flags (FNM_CASEFOLD when fold): * and ? match any character, a slash
// and a leading dot included. ok is false when the pattern holds what is
// not modelled: a byte outside printable ASCII, a backslash, an unclosed
// bracket, or a bracket expression that starts with "^" or holds "-" (a
// range) or "[" (a class, an equivalence class, a collating symbol). name
// must be ASCII. Folding is ASCII's, a superset of a locale's on ASCII
// (Turkish folds I to a dotless i, which matches less).
func fnmatchASCII(pat, name string, fold bool) (match, ok bool) {
	type tok struct {
		kind byte // 'c' a character, '?', '*', '[' a set
		c    byte
		set  string
		neg  bool
	}
	var toks []tok
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		if c >= 0x80 && !fold {
			// A byte beyond ASCII, outside a bracket, is part of a
			// literal character (or, not UTF-8, a byte fnmatch then
			// matches as one): it never matches an ASCII byte, so an
			// ASCII name it must match fails (‘*.c’, typographic
			// quotes). Folded, it may (the Kelvin sign folds to k).
			toks = append(toks, tok{kind: 'c', c: c})
			continue
		}
		if c < 0x20 || c > 0x7e || c == '\\' {
			return false, false
		}
		switch c {
		case '*', '?':
			toks = append(toks, tok{kind: c})
		case '[':
			j := i + 1
			if j < len(pat) && pat[j] == '^' {
				// glibc negates with "^" too, unless POSIXLY_CORRECT
				// is set in the environment: not modelled.
				return false, false
			}
			neg := j < len(pat) && pat[j] == '!'
			if neg {
				j++
			}
			set := ""
			if j < len(pat) && pat[j] == ']' {
				set, j = "]", j+1
			}
			for ; j < len(pat) && pat[j] != ']'; j++ {
				if pat[j] == '-' || pat[j] == '[' || pat[j] == '\\' || pat[j] < 0x20 || pat[j] > 0x7e {
					return false, false
				}
				set += string(pat[j])
			}
			if j >= len(pat) {
				return false, false
			}
			toks = append(toks, tok{kind: '[', set: set, neg: neg})
			i = j
		default:
			toks = append(toks, tok{kind: 'c', c: c})
		}
	}
	low := func(b byte) byte {
		if fold && b >= 'A' && b <= 'Z' {
			return b + 'a' - 'A'
		}
		return b
	}
	one := func(t tok, b byte) bool {
		switch t.kind {
		case '?':
			return true
		case 'c':
			return low(t.c) == low(b)
		default:
			in := false
			for k := 0; k < len(t.set); k++ {
				if low(t.set[k]) == low(b) {
					in = true
				}
			}
			return in != t.neg
		}
	}
	// Backtracking over the last star: linear in practice.
	ti, ni, starT, starN := 0, 0, -1, 0
	for ni < len(name) {
		switch {
		case ti < len(toks) && toks[ti].kind == '*':
			starT, starN = ti, ni
			ti++
		case ti < len(toks) && one(toks[ti], name[ni]):
			ti++
			ni++
		case starT >= 0:
			starN++
			ti, ni = starT+1, starN
		default:
			return false, true
		}
	}
	for ti < len(toks) && toks[ti].kind == '*' {
		ti++
	}
	return ti == len(toks), true
}

// grepLineTest is the test of a grep line filter (lineFilter's words):
// false only when grep certainly drops the line. nil when not modelled
// (every line may pass).
func grepLineTest(args []string) func(line string) bool {
	if len(args) == 0 {
		return nil
	}
	ere, fixed, fold, invert, whole := args[0] == "egrep", args[0] == "fgrep", false, false, false
	// Two matchers (-E -F, egrep -F): grep 3.8 refuses them, other
	// versions may take either; not modelled.
	matchers := 0
	if ere || fixed {
		matchers++
	}
	var pats []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pats = append(pats, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			switch {
			case hasVal && name == "regexp":
				pats = append(pats, val)
			case hasVal:
				return nil
			case name == "ignore-case":
				fold = true
			case name == "invert-match":
				invert = true
			case name == "extended-regexp":
				ere, fixed, matchers = true, false, matchers+1
			case name == "fixed-strings":
				fixed, matchers = true, matchers+1
			case name == "basic-regexp":
				ere, fixed, matchers = false, false, matchers+1
			case name == "line-regexp":
				whole = true
			case name == "no-messages":
			default:
				return nil
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'i', 'y':
					fold = true
				case 'v':
					invert = true
				case 'E':
					ere, fixed, matchers = true, false, matchers+1
				case 'F':
					fixed, matchers = true, matchers+1
				case 'G':
					ere, fixed, matchers = false, false, matchers+1
				case 'x':
					whole = true
				case 's':
				case 'e':
					if j+1 < len(a) {
						pats = append(pats, a[j+1:])
					} else if i+1 < len(args) {
						i++
						pats = append(pats, args[i])
					} else {
						return nil
					}
					j = len(a)
				default:
					return nil
				}
			}
		default:
			pats = append(pats, a)
		}
	}
	if len(pats) != 1 || strings.ContainsRune(pats[0], '\n') || matchers > 1 {
		return nil
	}
	expr, ok := regexp.QuoteMeta(pats[0]), asciiPrintable(pats[0])
	if !fixed {
		expr, ok = posixRegexpToGo(pats[0], ere)
	}
	if !ok {
		return nil
	}
	if whole {
		expr = "^(?:" + expr + ")$"
	}
	if fold {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil
	}
	return func(line string) bool { return re.MatchString(line) != invert }
}

// asciiPrintable reports whether s holds printable ASCII only.
func asciiPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// posixRegexpToGo translates a grep pattern (basic, or extended when ere)
// into Go's syntax where both mean the same for ASCII lines: literal
// characters, ".", bracket expressions of single printable characters
// (no range, class or backslash), "*" (and, extended, "+", "?") after an
// atom, "^" first and "$" last (extended: also at the edges of a group or
// an alternative), and, extended, "|" and groups. A backslash may only
// quote a character that is special. ok is false for anything else
// (intervals, back-references, GNU's \w \< \b \| \+, a "*" that is
// literal because nothing precedes it).
func posixRegexpToGo(p string, ere bool) (string, bool) {
	if !asciiPrintable(p) {
		return "", false
	}
	var b strings.Builder
	atom := false // the previous token can take a repetition
	depth := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			if i+1 >= len(p) || !strings.ContainsRune(`.[]*^$\`, rune(p[i+1])) &&
				!(ere && strings.ContainsRune("+?(){}|", rune(p[i+1]))) {
				return "", false
			}
			i++
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
			atom = true
		case c == '.':
			b.WriteByte('.')
			atom = true
		case c == '[':
			j := i + 1
			neg := j < len(p) && p[j] == '^'
			if neg {
				j++
			}
			set := ""
			if j < len(p) && p[j] == ']' {
				set, j = "]", j+1
			}
			for ; j < len(p) && p[j] != ']'; j++ {
				if p[j] == '-' || p[j] == '[' || p[j] == '\\' {
					return "", false
				}
				set += p[j : j+1]
			}
			if j >= len(p) {
				return "", false
			}
			b.WriteByte('[')
			if neg {
				b.WriteByte('^')
			}
			for k := 0; k < len(set); k++ {
				b.WriteString(`\x` + strconv.FormatInt(int64(set[k])+0x100, 16)[1:])
			}
			b.WriteByte(']')
			i = j
			atom = true
		case c == '*' || ere && (c == '+' || c == '?'):
			if !atom {
				return "", false
			}
			b.WriteByte(c)
			atom = false
		case c == '^':
			if !(i == 0 || ere && (p[i-1] == '(' || p[i-1] == '|')) {
				return "", false
			}
			b.WriteByte('^')
			atom = false
		case c == '$':
			if !(i == len(p)-1 || ere && (p[i+1] == ')' || p[i+1] == '|')) {
				return "", false
			}
			b.WriteByte('$')
			atom = false
		case ere && c == '|':
			b.WriteByte('|')
			atom = false
		case ere && c == '(':
			b.WriteString("(?:")
			depth++
			atom = false
		case ere && c == ')':
			if depth == 0 {
				return "", false
			}
			depth--
			b.WriteByte(')')
			atom = true
		case ere && (c == '{' || c == '}'):
			return "", false
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
			atom = true
		}
	}
	if depth != 0 {
		return "", false
	}
	return b.String(), true
}

// namesBelowSelected is namesBelow for the entries sel selects (nil: all):
// a link that cannot be known statically fails wherever it is; a FIFO,
// socket or device, and each name on the way to it (nameOK), only for an
// entry find prints. Every directory read is stamped, selected or not: the
// answer depends on each name the walk saw.
func (w *walker) namesBelowSelected(roots []string, depth int, sel *pathSelection, nameOK func(name string) string) string {
	return w.namesBelowEach(roots, depth, sel, nameOK, nil)
}

// namesBelowEach is namesBelowSelected that also hands each entry the
// walk reaches, selected or not, to each (when not nil) before its names
// are checked.
func (w *walker) namesBelowEach(roots []string, depth int, sel *pathSelection, nameOK func(name string) string, each func(e paths.Entry, selected bool)) string {
	files := w.scriptFiles()
	left := paths.MaxTreeEntries
	for _, r := range roots {
		res := paths.ResolvePath(r, "/", w.opts.Home)
		if res.Unknown != "" {
			return "the starting point " + r + " is reached through a link that cannot be known statically"
		}
		l := paths.ListTreeWithin(paths.Tree{Root: res, Hidden: true, MaxDepth: max(depth-1, 0)}, left)
		if !l.Complete {
			return "the tree below " + r + " cannot be listed (" + l.Why + ")"
		}
		left -= l.Read
		files.StampDir(r)
		for _, e := range l.Entries {
			if e.Unknown != "" {
				return "a link below " + r + " leads where permopa cannot know statically (" + e.Unknown + ")"
			}
			if e.Dir {
				files.StampDir(filepath.Join(res.Real, e.Rel))
			}
			names := []string{e.Rel[strings.LastIndexByte(e.Rel, '/')+1:]}
			if sel != nil {
				se := selEntry{rel: e.Rel, depth: strings.Count(e.Rel, "/") + 1, dir: e.Dir, link: e.Target != "", special: e.Special}
				if !sel.selects(se) {
					if each != nil {
						each(e, false)
					}
					continue
				}
				// The path find prints holds every name on the way.
				names = strings.Split(e.Rel, "/")
			}
			if each != nil {
				each(e, true)
			}
			if e.Special {
				return "below " + r + ", " + strconv.Quote(e.Rel) + " is a FIFO, socket or device, which the program handed its name may block on"
			}
			for _, n := range names {
				if why := nameOK(n); why != "" {
					return "a name below " + r + " " + why + ": " + strconv.Quote(e.Rel)
				}
			}
		}
	}
	return ""
}

// selOutcome is what find's expression, or a part of it, may do for one
// entry: evaluate to true, to false, and run -print on the way. A test
// the model cannot decide may do either (a superset of find's outcome).
type selOutcome struct{ canTrue, canFalse, canPrint bool }

// selExpr evaluates a part of find's expression for an entry.
type selExpr func(e selEntry) selOutcome

var (
	selTrue    = selOutcome{canTrue: true}
	selFalse   = selOutcome{canFalse: true}
	selEither  = selOutcome{canTrue: true, canFalse: true}
	selPrinted = selOutcome{canTrue: true, canPrint: true}
	// selQuit: find exits (-quit) with neither value.
	selQuit = selOutcome{}
)

// selParser parses find's expression as GNU find 4.9 does (from the
// loosest: ",", then -o/-or, then -a/-and or two primaries side by side,
// then ! and -not, then parentheses) into a selExpr. modelled turns false
// at a primary the model does not know (the caller then selects every
// path); action records an action that keeps find from adding -print
// (-print: the callers admit no other; -quit is not one).
type selParser struct {
	prims    []flagspec.FindPrimary
	i        int
	s        *pathSelection
	modelled bool
	minSet   bool
	action   bool
}

func (p *selParser) peek() string {
	if p.i < len(p.prims) {
		return p.prims[p.i].Name
	}
	return ""
}

// comma: X , Y evaluates both; the value is Y's.
func (p *selParser) comma() selExpr {
	x := p.or()
	for x != nil && p.peek() == "," {
		p.i++
		y := p.or()
		if y == nil {
			return nil
		}
		x = func(x, y selExpr) selExpr {
			return func(e selEntry) selOutcome {
				a := x(e)
				if !a.canTrue && !a.canFalse {
					return a // find exited in X: Y does not run
				}
				b := y(e)
				return selOutcome{canTrue: b.canTrue, canFalse: b.canFalse, canPrint: a.canPrint || b.canPrint}
			}
		}(x, y)
	}
	return x
}

// or: X -o Y evaluates Y only where X is false.
func (p *selParser) or() selExpr {
	x := p.and()
	for x != nil && (p.peek() == "-o" || p.peek() == "-or") {
		p.i++
		y := p.and()
		if y == nil {
			return nil
		}
		x = func(x, y selExpr) selExpr {
			return func(e selEntry) selOutcome {
				a := x(e)
				if !a.canFalse {
					return a
				}
				b := y(e)
				return selOutcome{canTrue: a.canTrue || b.canTrue, canFalse: b.canFalse, canPrint: a.canPrint || b.canPrint}
			}
		}(x, y)
	}
	return x
}

// and: X -a Y (or X Y) evaluates Y only where X is true.
func (p *selParser) and() selExpr {
	x := p.unary()
	for x != nil {
		switch p.peek() {
		case "", ")", ",", "-o", "-or":
			return x
		case "-a", "-and":
			p.i++
		}
		y := p.unary()
		if y == nil {
			return nil
		}
		x = func(x, y selExpr) selExpr {
			return func(e selEntry) selOutcome {
				a := x(e)
				if !a.canTrue {
					return a
				}
				b := y(e)
				return selOutcome{canTrue: b.canTrue, canFalse: a.canFalse || b.canFalse, canPrint: a.canPrint || b.canPrint}
			}
		}(x, y)
	}
	return x
}

// unary: ! X, -not X, ( X ), or a primary. An expression GNU find
// refuses (an operator with no operand, empty or unbalanced parentheses)
// is nil: not modelled.
func (p *selParser) unary() selExpr {
	switch p.peek() {
	case "!", "-not":
		p.i++
		x := p.unary()
		if x == nil {
			return nil
		}
		return func(e selEntry) selOutcome {
			o := x(e)
			return selOutcome{canTrue: o.canFalse, canFalse: o.canTrue, canPrint: o.canPrint}
		}
	case "(":
		p.i++
		if p.peek() == ")" {
			return nil
		}
		x := p.comma()
		if x == nil || p.peek() != ")" {
			return nil
		}
		p.i++
		return x
	case "", ")", ",", "-o", "-or", "-a", "-and":
		return nil
	}
	pr := p.prims[p.i]
	p.i++
	if t := p.primary(pr); t != nil {
		return t
	}
	p.modelled = false
	return nil
}

// primary is the selExpr of one primary, nil when not modelled.
func (p *selParser) primary(pr flagspec.FindPrimary) selExpr {
	known := func(t func(selEntry) (match, ok bool)) selExpr {
		if t == nil {
			return func(selEntry) selOutcome { return selEither }
		}
		return func(e selEntry) selOutcome {
			switch m, ok := t(e); {
			case !ok:
				return selEither
			case m:
				return selTrue
			}
			return selFalse
		}
	}
	switch n := pr.Name; {
	case n == "-print", n == "-print0":
		// -print0 prints the same paths, NUL-terminated (find -print0 |
		// xargs -0 -I{} sh -c '… {} …', pastescript.go).
		p.action = true
		return func(selEntry) selOutcome { return selPrinted }
	case n == "-quit":
		// find exits at once: the entry gets no value, nothing after
		// it runs, and the -print find adds at the end does not run on
		// it. -quit does not keep find from adding that -print (GNU
		// find 4.9: find . -true -o -quit prints every path).
		return func(selEntry) selOutcome { return selQuit }
	case n == "-prune", n == "-true":
		// -prune is true; the subtrees it keeps find out of are still
		// walked (a superset).
		return func(selEntry) selOutcome { return selTrue }
	case n == "-false":
		return func(selEntry) selOutcome { return selFalse }
	case n == "-name" || n == "-iname":
		return known(nameTest(pr.Values, n == "-iname", false, p.s))
	case n == "-path" || n == "-wholename" || n == "-ipath" || n == "-iwholename":
		return known(nameTest(pr.Values, n == "-ipath" || n == "-iwholename", true, p.s))
	case n == "-type":
		if len(pr.Values) != 1 {
			return nil
		}
		if t := typeTest(pr.Values[0]); t != nil {
			return known(func(e selEntry) (bool, bool) { return t(e), true })
		}
		return known(nil)
	case n == "-mindepth":
		// An option: it applies to the whole expression wherever it
		// stands, and is true.
		if len(pr.Values) != 1 {
			return nil
		}
		v, err := strconv.Atoi(pr.Values[0])
		if err != nil || v < 0 || pr.Values[0] != strconv.Itoa(v) {
			return nil
		}
		if !p.minSet || v < p.s.minDepth {
			// Given twice, GNU find takes the last: the smaller one
			// is a superset of either.
			p.s.minDepth, p.minSet = v, true
		}
		return func(selEntry) selOutcome { return selTrue }
	case findOptionPrimaries[n]:
		return func(selEntry) selOutcome { return selTrue }
	case findNarrowingTests[n] || strings.HasPrefix(n, "-newer") && len(n) == 8:
		return known(nil)
	}
	return nil
}
