package bash

import (
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/permopa/permopa/builtins/flagspec"
	"mvdan.cc/sh/v3/syntax"
)

// Command substitutions whose words come from a producer the analysis
// knows (docs/shell.md, "Values and where they come from"). A word that is
// exactly $(…) or `…` (or "$(…)") gets a provenance (word.prov) when the
// substitution is
//   - find ROOT… printing only its paths (-print), optionally piped into
//     line filters (grep without options that change the lines it prints,
//     head, tail, sort): each word is a path under a root, judged as
//     pathMark, and the leaf reads the roots' trees (dataflow.go);
//   - date +FORMAT with numeric conversions only, or a pipeline ending in
//     wc counting its stdin: numbers, judged as numberMark (never an option,
//     never a static path).
//
// An unquoted substitution is split on blanks and globbed: the leaf is
// judged with the substitution as no word, one and two words (one, and
// none when it may print nothing, for a producer of one word), and a path
// producer is followed only when no name it can print holds a blank, a
// newline or a glob character, checked at decision time as for plain
// xargs (findNamesPlain). A name the command itself may create before the
// substitution runs is not on disk when the decision is made (namesnow.go).

// provKind says what a substitution's words are.
type provKind uint8

const (
	provPaths  provKind = iota + 1 // paths under roots (pathMark)
	provNumber                     // numbers and date text (numberMark)
)

// substProv is the provenance of a word that is one command substitution.
type substProv struct {
	kind   provKind
	quoted bool
	// roots and depth: as frame.dataRoots and frame.dataDepth (provPaths).
	roots []string
	depth int
	// one: unquoted, the producer prints exactly one word (date +%s, wc
	// -l), or none when empty says it may print nothing.
	one, empty bool
	// quotedOnly: a loop variable holding such a path is followed only
	// where it is quoted ("$f"): a value may hold a blank (readloop.go).
	quotedOnly bool
}

// substProvenance returns the provenance of the words of a command
// substitution that is a whole shell word, nil when not known; why then
// says which name read at decision time failed, when that is the cause.
func (w *walker) substProvenance(c *syntax.CmdSubst, ctx evalCtx, quoted bool) (prov *substProv, why string) {
	if c.TempFile || c.ReplyVar || len(c.Stmts) != 1 || !quoted && (w.ifsChanged || w.globsChanged) {
		// IFS splits elsewhere; a shopt may add glob syntax (extglob's
		// @(…)) to the names checked below.
		return nil, ""
	}
	stages := w.substStages(c)
	if stages == nil {
		return nil, ""
	}
	last := stages[len(stages)-1]
	if ok, words := numberProducer(last, false); ok {
		return &substProv{kind: provNumber, quoted: quoted, one: words == 1, empty: len(last.Redirs) > 0}, ""
	}
	for _, f := range stages[1:] {
		if !lineFilter(f, w.defined) {
			return nil, ""
		}
	}
	if lsNames(stages[0]) {
		// ls with no operand: the names in the working directory, each
		// a path under it that starts with "-" only when the name does.
		// The directory must exist now: one made by the command first
		// is not listed (the tests' fictional working directories).
		dir := ctx.st.single()
		if fi, err := os.Stat(dir); dir == "" || err != nil || !fi.IsDir() {
			return nil, ""
		}
		if why := w.substNamesOK([]string{dir}, []string{dir}, 2, !quoted, true, nil); why != "" {
			return nil, why
		}
		return &substProv{kind: provPaths, quoted: quoted, roots: []string{dir}, depth: 2}, ""
	}
	first := findPipedCall(stages[0], w.opts.Home)
	if first == nil || len(stages[0].Redirs) > 0 {
		return nil, ""
	}
	fargv := w.evalArgs(first.Args, evalCtx{fr: ctx.fr.substBase(), st: ctx.st})
	fsv := strs(fargv)
	if !findPrintsOnlyLines(fsv) {
		return nil, ""
	}
	expr := flagspec.ParseFind(fsv)
	roots, ok := w.findDataRoots(fargv, expr, ctx.st)
	if !ok {
		return nil, ""
	}
	depth := findDepth(expr)
	// Only the paths find and the grep filters print (findselect.go).
	if why := w.substNamesOK(expr.Roots, roots, depth, !quoted, false, w.findSelectionOf(fargv, ctx.st, stages[1:])); why != "" {
		return nil, why
	}
	return &substProv{kind: provPaths, quoted: quoted, roots: roots, depth: depth}, ""
}

// substProvenanceWhy is substProvenance with why as word.provWhy holds it.
func (w *walker) substProvenanceWhy(c *syntax.CmdSubst, ctx evalCtx, quoted bool) (*substProv, *string) {
	prov, why := w.substProvenance(c, ctx, quoted)
	if why == "" {
		return prov, nil
	}
	return prov, &why
}

// pipeStages returns the statements of a pipeline joined by | (not |&),
// left to right; a single statement is a pipeline of one.
func pipeStages(s *syntax.Stmt) ([]*syntax.Stmt, bool) {
	b, ok := s.Cmd.(*syntax.BinaryCmd)
	if !ok {
		return []*syntax.Stmt{s}, true
	}
	if b.Op != syntax.Pipe || len(s.Redirs) > 0 {
		return nil, false
	}
	x, ok1 := pipeStages(b.X)
	y, ok2 := pipeStages(b.Y)
	return append(x, y...), ok1 && ok2
}

// callWords returns the literal text of a plain call's words (no
// assignment, every word literal or quoted literal), nil otherwise.
func callWords(s *syntax.Stmt) []string {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(c.Args) == 0 || s.Negated || s.Background || s.Coprocess {
		return nil
	}
	out := make([]string, 0, len(c.Args))
	for _, a := range c.Args {
		t, ok := literalText(a)
		if !ok {
			return nil
		}
		out = append(out, t)
	}
	return out
}

// onlyStderrOrInput reports whether a statement's redirections only send
// its stderr to a file or read its stdin from one: its stdout stays the
// substitution's.
func onlyStderrOrInput(s *syntax.Stmt) bool {
	for _, r := range s.Redirs {
		switch {
		case r.N != nil && r.N.Value == "2" && (r.Op == syntax.RdrOut || r.Op == syntax.AppOut):
		case r.N == nil && r.Op == syntax.RdrIn:
		default:
			return false
		}
	}
	return true
}

// numberProducer reports whether a pipeline's last stage prints only
// numbers (and date text of digits): wc counting its stdin (options of
// -l -c -w -m -L only, no operand: it then prints counts and no name, one
// per count), or date +FORMAT (optionally -u) whose format has numeric
// conversions only (dateNumericFormat), or echo of the shell's numbers
// (echoedNumbers). In arithmetic (arith), date may also be given a
// literal date (dateGivenDate; numbervalues.go). words is how many words
// it prints once split, 0 when not known.
func numberProducer(s *syntax.Stmt, arith bool) (ok bool, words int) {
	if ok, words := echoedNumbers(s); ok {
		return true, words
	}
	args := callWords(s)
	if args == nil || !onlyStderrOrInput(s) {
		return false, 0
	}
	switch args[0] {
	case "wc":
		counts := ""
		for _, a := range args[1:] {
			if len(a) < 2 || a[0] != '-' || a[1] == '-' || strings.Trim(a[1:], "lcwmL") != "" {
				return false, 0
			}
			for _, c := range a[1:] {
				if !strings.ContainsRune(counts, c) {
					counts += string(c)
				}
			}
		}
		if counts == "" {
			return true, 3 // lines, words, bytes
		}
		return true, len(counts)
	case "date":
		format, given := "", false
		for i := 1; i < len(args); i++ {
			a := args[i]
			if n := dateGivenDate(args, i); arith && !given && n > 0 {
				given = true
				i += n - 1
				continue
			}
			switch {
			case a == "-u" || a == "--utc" || a == "--universal":
			case strings.HasPrefix(a, "+") && format == "":
				if !dateNumericFormat(a[1:]) {
					return false, 0
				}
				format = a
			default:
				return false, 0
			}
		}
		if format == "" {
			return false, 0
		}
		if !strings.ContainsAny(format, " \t_ekl") && !strings.Contains(format, "%n") && !strings.Contains(format, "%t") {
			// No blank printed: one word (a conversion never prints
			// nothing).
			return true, 1
		}
		return true, 0
	}
	return false, 0
}

// dateNumericConversions are date's conversions that print decimal digits
// only (%e %k %l pad with a blank), or digits joined by - : / (%F %T %D %R).
// Not %z (a sign), not names (%a %b %p: the locale's words).
const dateNumericConversions = "CdDeFgGHIjklmMNRsSTuUVwWyY"

// dateNumericFormat reports whether every word date prints for format is
// made of digits and "-:/.," and never starts with "-": each conversion
// is numeric (an optional flag of -_0^#, an optional width), literal
// characters are digits, blanks or ".:/,", or a "-" that follows a digit
// or a conversion. The clock is the system's, after 1970: %s is positive.
func dateNumericFormat(format string) bool {
	prevWord := false // the previous character printed is part of a word
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			switch {
			case c >= '0' && c <= '9' || strings.IndexByte(".:/,", c) >= 0:
				prevWord = true
			case c == ' ' || c == '\t':
				prevWord = false
			case c == '-' && prevWord:
			default:
				return false
			}
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("-_0^#", format[i]) >= 0 {
			i++
		}
		for i < len(format) && format[i] >= '0' && format[i] <= '9' {
			i++
		}
		if i >= len(format) {
			return false
		}
		switch c := format[i]; {
		case c == 'n' || c == 't':
			prevWord = false
		case c == '%':
			return false
		case strings.IndexByte(dateNumericConversions, c) >= 0:
			prevWord = true
		default:
			return false
		}
	}
	return true
}

// substNamesOK checks, at decision time, the names a find substitution
// can print below its roots (the walk of findNamesPlain: hidden entries,
// through links, down to find's -maxdepth, at most paths.MaxTreeEntries
// entries, every directory read stamped): none is a FIFO, socket or
// device (the program handed its name may block on it), each means what
// ./name means when bare (ls prints bare names: plainLead, no "-", "@"
// or "+" first, no "="; quotedLead when quoted), and, when the substitution is
// split (unquoted), no starting point or name holds a blank, a newline or
// a glob character. Only the paths sel selects count (findselect.go; nil:
// every path). It returns why not, "" when the names are fine.
func (w *walker) substNamesOK(words []string, roots []string, depth int, split, bare bool, sel *pathSelection) string {
	l := listedPaths
	if bare {
		l = listedBare
	}
	if !w.namesNow(l) {
		return namesMayChangeWhy
	}
	for _, r := range words {
		if split && strings.ContainsAny(r, " \t\n*?[") {
			return "the starting point " + strconv.Quote(r) + " would split or glob"
		}
	}
	if depth == 1 {
		return "" // -maxdepth 0: find prints its starting points only
	}
	return w.namesBelowSelected(roots, depth, sel, func(name string) string {
		if bare && !plainLead(name) && (split || !quotedLead(name)) {
			return "may be an option or more than a file"
		}
		if split && strings.ContainsAny(name, " \t\n*?[") {
			return "would split or glob"
		}
		return ""
	})
}

// quotedLead reports whether a name ls prints may start the one word of
// "$(ls)" (all names, newline-separated): it starts as plainLead asks, and
// any "=" follows a character no variable name holds, so the word is no
// NAME=VALUE for awk or env ("q --output=x" may, "a=b" may not). It holds
// no ":": the word holds no slash, so a colon in any name makes it
// "host:file" to tar -f and cpio -F (plainLead).
func quotedLead(n string) bool {
	if n == "" || !plainLead(n[:1]) || strings.ContainsRune(n, ':') {
		return false
	}
	i := strings.IndexByte(n, '=')
	return i < 0 || strings.IndexFunc(n[:i], func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) >= 0
}

// substJudge rewrites the argv a leaf is judged with for the words that
// are command substitutions of a known producer (word.prov): a path under
// roots becomes pathMark, and the returned frame carries the roots as
// dataRoots, as for find -exec (dataflow.go); a number becomes
// numberMark. Every shape bash may run is judged first: an unquoted
// substitution as no word, one and two words; ok is false (nothing
// rewritten) when one of them is not read-only or reads, recursively
// reads, runs or prints more than the one-word shape, or when the frame
// already supplies values (find -exec, xargs).
func (w *walker) substJudge(fr frame, argv []word, judge []string) (frame, []word, []string, bool) {
	if len(judge) != len(argv) || fr.dataRoots != nil || fr.placeholder != "" || fr.appends || fr.appendsText != "" {
		return fr, argv, judge, false
	}
	var at []int
	var roots []string
	depth := -1
	for i, a := range argv[1:] {
		if a.prov == nil || a.taint != "" {
			continue
		}
		at = append(at, i+1)
		if a.prov.kind == provPaths {
			for _, r := range a.prov.roots {
				roots = appendUnique(roots, r)
			}
			if depth == -1 || depth == a.prov.depth {
				depth = a.prov.depth
			} else {
				depth = 0
			}
		}
	}
	if len(at) == 0 || len(at) > maxDynamicSubsts {
		return fr, argv, judge, false
	}
	nj, na := slices.Clone(judge), slices.Clone(argv)
	for _, i := range at {
		mark := numberMark
		if argv[i].prov.kind == provPaths {
			mark = pathMark
		}
		nj[i] = mark
		na[i] = word{s: mark, dynamic: true, one: true}
	}
	main := flagspec.Judge(nj)
	if !main.ReadOnly {
		return fr, argv, judge, false
	}
	for _, i := range at {
		p := argv[i].prov
		if p.quoted || p.one && !p.empty {
			continue
		}
		shapes := [][]string{slices.Concat(nj[:i], nj[i+1:])} // no word
		if !p.one {
			shapes = append(shapes, slices.Concat(nj[:i+1], nj[i:])) // two
		}
		for _, shape := range shapes {
			v := flagspec.Judge(shape)
			if !v.ReadOnly || v.RunsUnknown != main.RunsUnknown || v.RunsData != main.RunsData ||
				v.Network != main.Network || v.Environment != main.Environment || v.Terminal != "" && main.Terminal == "" ||
				!stringsWithin(v.Reads, main.Reads) || !stringsWithin(v.Writes, main.Writes) || !treePathsWithin(v.RecursiveReads, main.RecursiveReads) {
				return fr, argv, judge, false
			}
		}
	}
	if roots != nil {
		fr.dataRoots, fr.dataDepth = roots, max(depth, 0)
	}
	return fr, na, nj, true
}

// maxDynamicSubsts bounds the substitutions of one argv that are followed.
const maxDynamicSubsts = 4

func stringsWithin(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func treePathsWithin(a, b []flagspec.Tree) bool {
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y flagspec.Tree) bool { return y.Path == x.Path }) {
			return false
		}
	}
	return true
}

// wholeSubst returns the command substitution that is the whole of a
// double-quoted word ("$(…)").
func wholeSubst(wd *syntax.Word) (*syntax.CmdSubst, bool) {
	if len(wd.Parts) != 1 {
		return nil, false
	}
	dq, ok := wd.Parts[0].(*syntax.DblQuoted)
	if !ok || len(dq.Parts) != 1 {
		return nil, false
	}
	cs, ok := dq.Parts[0].(*syntax.CmdSubst)
	return cs, ok
}

// numericSubst reports whether a word part is a command substitution that
// prints only numbers (numberProducer): inside arithmetic its text is
// digits, blanks and "-:/.,", never a name (no letter or "_") bash would evaluate in turn.
func (w *walker) numericSubst(p syntax.WordPart) bool {
	c, ok := p.(*syntax.CmdSubst)
	if !ok || c.TempFile || c.ReplyVar {
		return false
	}
	stages := w.substStages(c)
	if stages == nil {
		return false
	}
	ok, _ = numberProducer(stages[len(stages)-1], true)
	return ok
}

// substStages returns the pipeline stages of a command substitution that
// holds one statement, neither negated, in the background nor a
// coprocess, and none of whose programs the command defines as a function
// or alias; nil otherwise.
func (w *walker) substStages(c *syntax.CmdSubst) []*syntax.Stmt {
	if len(c.Stmts) != 1 {
		return nil
	}
	s := c.Stmts[0]
	if s.Negated || s.Background || s.Coprocess {
		return nil
	}
	stages, ok := pipeStages(s)
	if !ok || w.definesStage(stages) {
		return nil
	}
	return stages
}

// textValueOptions are options whose value is only text to the program
// (a pattern, a count, a delimiter): never a path it opens, code, or a
// setting that changes what else it reads. Not date -d nor find -newerXt:
// GNU's date parser takes TZ="FILE" at the start of the string and opens
// FILE as a time zone (a value of digits from a number producer is
// judged as such: substJudge). A quoted word only known
// at run time given as such an option's value in the next word is that
// value whatever it holds (bash passes it as one word, and the program
// takes the word after the option whole): optionTextValues.
var textValueOptions = map[string][]string{
	"grep":  {"-e", "--regexp"},
	"egrep": {"-e", "--regexp"},
	"fgrep": {"-e", "--regexp"},
	"head":  {"-n", "-c", "--lines", "--bytes"},
	"tail":  {"-n", "-c", "--lines", "--bytes"},
	"cut":   {"-d", "-f", "-c", "-b", "--delimiter", "--fields", "--characters", "--bytes"},
}

// findTextPrimaries are find's primaries whose one value is a pattern, a
// number or a name, never a file find opens or stats.
var findTextPrimaries = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true, "-iwholename": true,
	"-regex": true, "-iregex": true, "-lname": true, "-ilname": true,
	"-user": true, "-group": true, "-uid": true, "-gid": true, "-perm": true, "-size": true,
	"-mtime": true, "-mmin": true, "-atime": true, "-amin": true, "-ctime": true, "-cmin": true,
}

// textValueSentinel stands for an option's value while the argv is parsed
// to find which option takes it.
const textValueSentinel = "permopa-text-value"

// optionTextValues returns judge with each quoted run-time word that is
// the value of a textValueOptions option (or of a find primary of
// findTextPrimaries) given as the next word replaced by a run-time text
// that is no option and no static path, and the indexes of those words;
// nil when there are none. The program's parser decides which option
// takes the word (flagspec.Parse, flagspec.ParseFind), so "-d" that is
// itself another option's value does not count.
func optionTextValues(argv []word, judge []string) ([]string, map[int]bool) {
	if len(argv) != len(judge) || len(argv) < 3 {
		return judge, nil
	}
	prog := judge[0]
	var out []string
	var at map[int]bool
	for i := 2; i < len(argv); i++ {
		a, opt := argv[i], argv[i-1]
		if !a.dynamic || a.splits || a.glob || a.taint != "" || a.prov != nil || opt.dynamic || opt.glob {
			continue
		}
		if !textValueAt(prog, judge, i, opt.s) {
			continue
		}
		if out == nil {
			out = slices.Clone(judge)
			at = map[int]bool{}
		}
		out[i] = "x" + dyn
		at[i] = true
	}
	if out == nil {
		return judge, nil
	}
	return out, at
}

// textValueAt reports whether the word at i of argv is the value of the
// option opt (argv[i-1]) of a table above.
func textValueAt(prog string, argv []string, i int, opt string) bool {
	probe := slices.Clone(argv)
	probe[i] = textValueSentinel
	if prog == "find" {
		if !findTextPrimaries[opt] {
			return false
		}
		for _, p := range flagspec.ParseFind(probe).Primaries {
			if p.Index == i-1 && p.Name == opt && len(p.Values) == 1 && p.Values[0] == textValueSentinel {
				return true
			}
		}
		return false
	}
	if !slices.Contains(textValueOptions[prog], opt) {
		return false
	}
	inv, ok := flagspec.Parse(probe[:i+1])
	if !ok || inv.Open != "" || len(inv.Options) == 0 {
		return false
	}
	last := inv.Options[len(inv.Options)-1]
	return last.HasValue && last.Value == textValueSentinel
}

// loopSubstItems returns a for loop's items with an unquoted substitution
// of find's paths (for f in $(find . -name '*.txt')) as one item that
// stands for each of its words: a path under the roots, one word whether
// "$f" or $f is used (substNamesOK found no blank, newline or glob
// character in any name). Any other substitution loses its provenance
// (a quoted one is a single item that $f would split; numbers are not
// followed into loops). Other items are returned as they are.
func loopSubstItems(items []word) []word {
	var out []word
	for i, it := range items {
		if it.prov == nil {
			continue
		}
		if out == nil {
			out = slices.Clone(items)
		}
		if it.prov.kind != provPaths || it.prov.quoted || it.taint != "" {
			out[i].prov = nil
			continue
		}
		p := *it.prov
		p.quoted = true // one word per value
		out[i] = word{s: dyn, dynamic: true, prov: &p}
	}
	if out == nil {
		return items
	}
	return out
}

// definesStage reports whether the command defines a function or alias
// named as a stage's program (date() { echo 'a[$(rm x)]'; } would print
// what arithmetic then runs): the producer is then not the program.
func (w *walker) definesStage(stages []*syntax.Stmt) bool {
	for _, st := range stages {
		if c, ok := st.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			if _, defined := w.defined[c.Args[0].Lit()]; defined {
				return true
			}
		}
	}
	return false
}

// lsNames reports whether a pipeline stage is ls with no operand and only
// options that keep its output one bare name a line in another order (to
// a pipe ls prints names as they are, one a line): -1 -t -r -S -A -U -X
// -v -c -u. Not -a (. and .. name the directory and its parent), -d, -l,
// -F, -p, -R, -Q, -m and the like, which print more than names.
func lsNames(s *syntax.Stmt) bool {
	args := callWords(s)
	if args == nil || args[0] != "ls" || len(s.Redirs) > 0 {
		return false
	}
	for _, a := range args[1:] {
		if len(a) < 2 || a[0] != '-' || a[1] == '-' || strings.Trim(a[1:], "1trSAUXvcu") != "" {
			return false
		}
	}
	return true
}
