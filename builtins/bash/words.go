package bash

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/permopa/permopa/builtins/flagspec"
	"github.com/permopa/permopa/builtins/paths"
	"mvdan.cc/sh/v3/syntax"
)

// dyn is the marker of a word part only known at run time.
const dyn = flagspec.Dynamic

// maxFields caps the words one shell word may expand to (brace expansion).
const maxFields = 256

// numberMark stands for a number known only at run time ($$, $#, $?):
// it does not start with "-" and holds dyn, so it is never a static path.
const numberMark = "0" + dyn

// procSubstPath is what a process substitution expands to: a pipe that
// bash names /dev/fd/N. It is a static, harmless path to read or write.
const procSubstPath = "/dev/fd/63"

// word is one field of argv after quote removal and expansion.
type word struct {
	s string
	// dynamic: s holds at least one dyn marker.
	dynamic bool
	// splits: an unquoted expansion whose value is unknown, so the field may
	// split into several words or none, or expand to options.
	splits bool
	// glob: an unquoted glob metacharacter (* ? [) is active.
	glob bool
	// subst: a command or process substitution is part of the word.
	subst bool
	// one: the word stays one word whatever its glob matches (a quoted
	// loop variable holding a glob's match: "$f" in for f in *.txt).
	one bool
	// taint says why this word keeps its command from being read-only
	// (arithmetic on variables, indirect expansion, ...).
	taint string
	// param is the variable when the word is only "$x" or "${x}".
	param string
	// prov: the word is one command substitution whose producer is
	// known (substvalues.go).
	prov *substProv
	// provWhy: why prov is nil when a name read at decision time is
	// the cause (for the reason only; a pointer keeps word as small as
	// it was: limits_test.go bounds the allocation).
	provWhy *string
}

// fieldBuilder accumulates one field while a word is evaluated.
type fieldBuilder struct {
	b       strings.Builder
	started bool // something (maybe empty quotes) was added
	w       word
	// shellPid is one past the offset of the last $$ added (0: none),
	// for /proc/$$/… (procShellPath).
	shellPid int
}

func (f *fieldBuilder) add(s string) {
	f.b.WriteString(s)
	f.started = true
}

// evalCtx says how a word is expanded.
type evalCtx struct {
	fr frame // frame for command and process substitutions found inside
	st state
	// assign: the word is an assignment value: tilde expands after = and :.
	assign bool
	// braced: the word is one result of brace expansion, which bash no
	// longer reads as looking like an assignment.
	braced bool
}

// evalArgs expands command words: brace expansion, then each word.
func (w *walker) evalArgs(words []*syntax.Word, ctx evalCtx) []word {
	out := make([]word, 0, len(words))
	for _, wd := range words {
		if w.stop {
			return out
		}
		if len(out) > maxFields*4 {
			w.unanalysable("too many words after expansion")
			return out
		}
		if len(wd.Parts) == 1 {
			// Fast path: a plain literal with nothing to expand.
			if l, ok := wd.Parts[0].(*syntax.Lit); ok && strings.IndexAny(l.Value, "\\*?[~{") < 0 {
				out = append(out, word{s: l.Value})
				w.countField(len(l.Value))
				continue
			}
		}
		if ws, ok := w.positionalWords(wd); ok {
			out = append(out, ws...)
			continue
		}
		out = append(out, w.evalWordBraces(wd, ctx)...)
	}
	return out
}

// braceAmbiguous reports a word bash may brace-expand (an unquoted {,
// then an unquoted , or .., then an unquoted }) in which bash's reading and
// mvdan.cc/sh's may differ: a quoted or escaped brace or comma, an
// unquoted group without a separator, or braces that do not pair. Bash
// then looks further for a brace that closes a group with a comma:
// "{a\,b}\{,--x}" is the two words "a,b}{" and "--x" to it, one word to
// mvdan.cc/sh.
func braceAmbiguous(wd *syntax.Word) bool {
	type ch struct {
		c      byte
		quoted bool
	}
	var seq []ch
	for _, part := range wd.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			for i := 0; i < len(v); i++ {
				if v[i] == '\\' && i+1 < len(v) {
					i++
					seq = append(seq, ch{v[i], true})
					continue
				}
				seq = append(seq, ch{v[i], false})
			}
		case *syntax.SglQuoted:
			for i := 0; i < len(p.Value); i++ {
				seq = append(seq, ch{p.Value[i], true})
			}
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				if l, ok := dp.(*syntax.Lit); ok {
					for i := 0; i < len(l.Value); i++ {
						seq = append(seq, ch{l.Value[i], true})
					}
				} else {
					seq = append(seq, ch{'x', true})
				}
			}
		default:
			seq = append(seq, ch{'x', true})
		}
	}
	// Could bash expand at all?
	stage := 0
	for i, c := range seq {
		if c.quoted {
			continue
		}
		switch {
		case stage == 0 && c.c == '{':
			stage = 1
		case stage == 1 && (c.c == ',' || c.c == '.' && i+1 < len(seq) && seq[i+1] == ch{'.', false}):
			stage = 2
		case stage == 2 && c.c == '}':
			stage = 3
		}
	}
	if stage < 3 {
		return false
	}
	var open []int
	seps := []bool{false} // per open group: a separator seen
	for i, c := range seq {
		if c.quoted {
			if c.c == '{' || c.c == '}' || c.c == ',' {
				return true
			}
			continue
		}
		switch c.c {
		case '{':
			open = append(open, i)
			seps = append(seps, false)
		case '}':
			if len(open) == 0 || !seps[len(seps)-1] {
				return true
			}
			open, seps = open[:len(open)-1], seps[:len(seps)-1]
		case ',':
			seps[len(seps)-1] = true
		case '.':
			if i+1 < len(seq) && seq[i+1] == (ch{'.', false}) {
				seps[len(seps)-1] = true
			}
		}
	}
	return len(open) > 0
}

// emptyUnquoted reports parts that are no text at all, with no quotes.
func emptyUnquoted(parts []syntax.WordPart) bool {
	for _, p := range parts {
		if l, ok := p.(*syntax.Lit); !ok || l.Value != "" {
			return false
		}
	}
	return true
}

// evalWordBraces expands the braces of one command word, then evaluates each result.
func (w *walker) evalWordBraces(wd *syntax.Word, ctx evalCtx) []word {
	if len(wd.Parts) == 1 {
		// Fast path: a plain literal with nothing to expand.
		if l, ok := wd.Parts[0].(*syntax.Lit); ok && strings.IndexAny(l.Value, "\\*?[~{") < 0 {
			w.countField(len(l.Value))
			return []word{{s: l.Value}}
		}
	}
	if !hasBraceCandidate(wd) {
		return w.evalWord(wd, ctx, true)
	}
	if braceAmbiguous(wd) {
		w.unanalysable("brace expansion that bash may read otherwise than permopa")
		return w.evalWord(wd, ctx, true)
	}
	cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), wd.Parts...)}
	if !syntax.SplitBraces(cp) {
		return w.evalWord(wd, ctx, true)
	}
	alts, ok := expandBraces(cp.Parts)
	if !ok {
		w.unanalysable("brace expansion too large or malformed")
		return w.evalWord(wd, ctx, true)
	}
	var out []word
	for _, parts := range alts {
		if w.stop {
			break
		}
		if emptyUnquoted(parts) {
			continue // bash removes a word that expands to nothing: "echo {,}" has no argument
		}
		bc := ctx
		bc.braced = len(alts) > 1
		out = append(out, w.evalWord(&syntax.Word{Parts: parts}, bc, true)...)
	}
	return out
}

func hasBraceCandidate(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.IndexByte(l.Value, '{') >= 0 {
			return true
		}
	}
	return false
}

// expandBraces turns parts holding BraceExp nodes into the list of part
// sequences they stand for (the cartesian product), at most maxFields.
func expandBraces(parts []syntax.WordPart) ([][]syntax.WordPart, bool) {
	acc := [][]syntax.WordPart{nil}
	for _, p := range parts {
		be, ok := p.(*syntax.BraceExp)
		if !ok {
			for i := range acc {
				acc[i] = append(acc[i], p)
			}
			continue
		}
		var alts [][]syntax.WordPart
		if be.Sequence {
			seq, ok := braceSequence(be)
			if !ok {
				return nil, false
			}
			for _, s := range seq {
				alts = append(alts, []syntax.WordPart{&syntax.Lit{Value: s}})
			}
		} else {
			for _, el := range be.Elems {
				sub, ok := expandBraces(el.Parts)
				if !ok {
					return nil, false
				}
				alts = append(alts, sub...)
			}
		}
		if len(acc)*len(alts) > maxFields {
			return nil, false
		}
		next := make([][]syntax.WordPart, 0, len(acc)*len(alts))
		for _, a := range acc {
			for _, b := range alts {
				n := make([]syntax.WordPart, 0, len(a)+len(b))
				n = append(append(n, a...), b...)
				next = append(next, n)
			}
		}
		acc = next
	}
	return acc, true
}

// braceSequence expands {x..y[..step]} for integers and single letters.
func braceSequence(be *syntax.BraceExp) ([]string, bool) {
	if len(be.Elems) < 2 || len(be.Elems) > 3 {
		return nil, false
	}
	lits := make([]string, len(be.Elems))
	for i, e := range be.Elems {
		lits[i] = e.Lit()
		if lits[i] == "" {
			return nil, false
		}
	}
	step := 1
	if len(lits) == 3 {
		n, err := strconv.Atoi(lits[2])
		if err != nil {
			return nil, false
		}
		if n < 0 {
			n = -n
		}
		if n == 0 {
			n = 1
		}
		step = n
	}
	a, errA := strconv.Atoi(lits[0])
	b, errB := strconv.Atoi(lits[1])
	var out []string
	if errA == nil && errB == nil {
		width := 0
		if (len(lits[0]) > 1 && strings.TrimLeft(lits[0], "-")[0] == '0') || (len(lits[1]) > 1 && strings.TrimLeft(lits[1], "-")[0] == '0') {
			width = max(len(lits[0]), len(lits[1]))
		}
		span := b - a
		if span < 0 {
			span = -span
		}
		if span/step+1 > maxFields {
			return nil, false
		}
		for i := 0; i <= span; i += step {
			v := a + i
			if b < a {
				v = a - i
			}
			s := strconv.Itoa(v)
			for len(s) < width {
				s = "0" + s
			}
			out = append(out, s)
		}
		return out, true
	}
	if len(lits[0]) == 1 && len(lits[1]) == 1 {
		x, y := int(lits[0][0]), int(lits[1][0])
		d := 1
		if y < x {
			d = -1
		}
		for v := x; ; v += d * step {
			if (d > 0 && v > y) || (d < 0 && v < y) {
				break
			}
			out = append(out, string(rune(v)))
			if len(out) > maxFields {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// evalWord performs quote removal and the expansions permopa models on one
// word. With split, an unquoted ${IFS} splits fields as bash would.
func (w *walker) evalWord(wd *syntax.Word, ctx evalCtx, split bool) []word {
	var fields []word
	cur := &fieldBuilder{}
	finish := func() {
		if cur.started {
			cur.w.s = cur.b.String()
			if cur.shellPid > 0 {
				cur.w = procShellPath(cur.w, cur.shellPid-1)
			}
			fields = append(fields, cur.w)
			w.countField(len(cur.w.s))
		}
		cur = &fieldBuilder{}
	}
	// bash also expands ~ after = and : in an argument that looks like an
	// assignment (echo x=~/a prints x=/home/u/a; not in POSIX mode).
	assignLike := ctx.assign || !ctx.braced && looksLikeAssignment(wd)
	for i, part := range wd.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") && (strings.IndexByte(v, '/') >= 0 || len(wd.Parts) == 1) {
				v = w.tilde(v, cur, ctx)
			}
			if assignLike {
				firstEq := -1
				if i == 0 && !ctx.assign {
					firstEq = strings.IndexByte(v, '=')
				}
				var unsure bool
				v, unsure = w.assignTildes(v, firstEq, i == len(wd.Parts)-1)
				if unsure {
					// ~user, or a ~ whose tilde-word bash reads further
					// (readline's tilde_expand, which also expands a
					// later =~ or :~ in it): not a static word.
					cur.add(dyn)
					cur.w.dynamic = true
				}
			}
			w.unquotedLit(v, cur)
		case *syntax.SglQuoted:
			if p.Dollar {
				cur.add(ansiC(p.Value))
			} else {
				cur.add(p.Value)
			}
		case *syntax.DblQuoted:
			cur.started = true
			for _, dp := range p.Parts {
				w.quotedPart(dp, cur, ctx)
			}
			if cs, ok := wholeSubst(wd); ok && cur.w.prov == nil {
				cur.w.prov, cur.w.provWhy = w.substProvenanceWhy(cs, ctx, true)
			}
		case *syntax.ParamExp:
			if split && !w.ifsChanged && isPlainParam(p, "IFS") {
				// Unquoted $IFS with bash's default value only separates fields.
				finish()
				continue
			}
			w.paramExp(p, cur, ctx, false)
		case *syntax.CmdSubst:
			w.cmdSubst(p, ctx)
			if d := w.substPwd(p, ctx, true); d != "" {
				cur.add(d)
				continue
			}
			cur.add(dyn)
			cur.w.dynamic, cur.w.splits, cur.w.subst = true, true, true
			if len(wd.Parts) == 1 && split {
				cur.w.prov, cur.w.provWhy = w.substProvenanceWhy(p, ctx, false)
			}
		case *syntax.ArithmExp:
			w.arith(p.X, cur, ctx)
			cur.add(dyn)
			cur.w.dynamic = true
		case *syntax.ProcSubst:
			w.procSubst(p, ctx)
			cur.add(procSubstPath)
		case *syntax.ExtGlob:
			w.unanalysable("extended glob " + p.Op.String() + p.Pattern.Value + ")")
			cur.add(p.Op.String() + p.Pattern.Value + ")")
			cur.w.glob = true
		case *syntax.BraceExp:
			// Only reached when braces were not expanded (not a command word).
			w.unanalysable("brace expansion in this position")
			cur.add(dyn)
			cur.w.dynamic = true
		default:
			w.unanalysable("unmodelled word part")
			cur.add(dyn)
			cur.w.dynamic = true
		}
	}
	finish()
	if name := plainParamName(wd); name != "" {
		for i := range fields {
			fields[i].param = name
		}
	}
	return fields
}

// countField charges one field of n bytes against the hard limits.
func (w *walker) countField(n int) {
	w.fields++
	w.fieldBytes += n
	switch {
	case w.fields > MaxWords:
		w.limit(LimitWords, limitDetail(LimitWords)+" after expansion")
	case w.fieldBytes > 2*HardMaxLength:
		w.limit(LimitLength, "expansions make "+limitDetail(LimitLength))
	}
}

// evalOne evaluates a word that must stay one field (redirect targets, assignment values).
func (w *walker) evalOne(wd *syntax.Word, ctx evalCtx) word {
	if wd == nil {
		return word{}
	}
	fs := w.evalWord(wd, ctx, false)
	switch len(fs) {
	case 0:
		return word{}
	case 1:
		return fs[0]
	}
	var b strings.Builder
	out := word{}
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f.s)
		out.dynamic = out.dynamic || f.dynamic
		out.splits = out.splits || f.splits
		out.glob = out.glob || f.glob
		if out.taint == "" {
			out.taint = f.taint
		}
	}
	out.s = b.String()
	return out
}

func isPlainParam(p *syntax.ParamExp, name string) bool {
	return p.Param != nil && p.Param.Value == name && p.Flags == nil && !p.Excl && !p.Length &&
		!p.Width && !p.IsSet && p.NestedParam == nil && p.Index == nil && len(p.Modifiers) == 0 &&
		p.Slice == nil && p.Repl == nil && p.Names == 0 && p.Exp == nil &&
		p.Split == syntax.OptUnset && p.GlobSubst == syntax.OptUnset && p.RcExpand == syntax.OptUnset
}

// unquotedLit adds an unquoted literal: backslashes quote the next character,
// and * ? [ are glob metacharacters.
func (w *walker) unquotedLit(v string, cur *fieldBuilder) {
	cur.started = true
	if strings.IndexAny(v, "\\*?[") < 0 {
		cur.b.WriteString(v)
		return
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch c {
		case '\\':
			if i+1 < len(v) {
				i++
				if v[i] != '\n' {
					cur.b.WriteByte(v[i])
				}
			}
		case '*', '?':
			cur.w.glob = true
			cur.b.WriteByte(c)
		case '[':
			// A bracket only globs when it is closed.
			if strings.IndexByte(v[i+1:], ']') >= 0 {
				cur.w.glob = true
			}
			cur.b.WriteByte(c)
		default:
			cur.b.WriteByte(c)
		}
	}
}

// tilde expands a leading ~ of an unquoted word; it returns the rest of v.
func (w *walker) tilde(v string, cur *fieldBuilder, ctx evalCtx) string {
	end := strings.IndexByte(v, '/')
	if end < 0 {
		end = len(v)
	}
	user := v[1:end]
	switch {
	case user == "" && w.opts.Home != "":
		cur.add(w.opts.Home)
	case user == "+" && ctx.st.single() != "":
		cur.add(ctx.st.single())
	case strings.ContainsAny(user, "\\'\"$`"):
		return v // quoted characters: no tilde expansion
	case paths.UserHome(user) != "":
		// ~name is name's home, as bash expands it: "~root/../etc/x" is
		// /etc/x to the path rules (docs/rules.md).
		cur.add(paths.UserHome(user))
	default:
		cur.add(dyn)
		cur.w.dynamic = true
	}
	return v[end:]
}

// looksLikeAssignment reports a word starting with NAME= or NAME+=.
func looksLikeAssignment(wd *syntax.Word) bool {
	if len(wd.Parts) == 0 {
		return false
	}
	l, ok := wd.Parts[0].(*syntax.Lit)
	if !ok {
		return false
	}
	v := l.Value
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9':
		case i > 0 && (c == '=' || c == '+' && i+1 < len(v) && v[i+1] == '='):
			return true
		default:
			return false
		}
	}
	return false
}

// assignTildes expands an unquoted ~ of one literal part of an assignment
// (or of an argument that looks like one) as bash does: right after the
// first = (at firstEq in v, -1 when it is not in v) or after a :, ending at
// / or : or the end of the word (last: v is the word's last part).
// unsure reports a ~ at such a place that is not followed by / or : or the
// word's end (~user, or a tilde-word bash reads further).
func (w *walker) assignTildes(v string, firstEq int, last bool) (out string, unsure bool) {
	if !strings.Contains(v, "~") {
		return v, false
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '~' && i > 0 && (v[i-1] == ':' || i-1 == firstEq) {
			if i+1 == len(v) && last || i+1 < len(v) && (v[i+1] == '/' || v[i+1] == ':') {
				if w.opts.Home == "" {
					unsure = true
				} else {
					b.WriteString(w.opts.Home)
					continue
				}
			} else {
				unsure = true
			}
		}
		b.WriteByte(v[i])
	}
	return b.String(), unsure
}

// quotedPart adds one part found inside double quotes.
func (w *walker) quotedPart(part syntax.WordPart, cur *fieldBuilder, ctx evalCtx) {
	switch p := part.(type) {
	case *syntax.Lit:
		v := p.Value
		if strings.IndexByte(v, '\\') < 0 {
			cur.add(v)
			return
		}
		var b strings.Builder
		for i := 0; i < len(v); i++ {
			if v[i] == '\\' && i+1 < len(v) {
				switch v[i+1] {
				case '$', '`', '"', '\\':
					i++
					b.WriteByte(v[i])
					continue
				case '\n':
					i++
					continue
				}
			}
			b.WriteByte(v[i])
		}
		cur.add(b.String())
	case *syntax.ParamExp:
		w.paramExp(p, cur, ctx, true)
	case *syntax.CmdSubst:
		w.cmdSubst(p, ctx)
		if d := w.substPwd(p, ctx, false); d != "" {
			cur.add(d)
			return
		}
		cur.add(dyn)
		cur.w.dynamic, cur.w.subst = true, true
	case *syntax.ArithmExp:
		w.arith(p.X, cur, ctx)
		cur.add(dyn)
		cur.w.dynamic = true
	default:
		w.unanalysable("unmodelled quoted word part")
		cur.add(dyn)
		cur.w.dynamic = true
	}
}

// substPwd returns the directory $(pwd) or `pwd` prints when it is known
// statically, as $PWD is: the substitution is exactly "pwd" (no option,
// redirection or assignment; pwd -P would resolve links), no function or
// alias named pwd is defined in the command, the working directory is
// one known directory, and, unquoted, the directory holds no blank or
// glob character and IFS is not assigned (it stays one word). "" when not
// known (docs/shell.md, "Values and where they come from").
func (w *walker) substPwd(c *syntax.CmdSubst, ctx evalCtx, unquoted bool) string {
	if len(c.Stmts) != 1 || c.TempFile || c.ReplyVar {
		return ""
	}
	s := c.Stmts[0]
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || s.Negated || s.Background || s.Coprocess || len(s.Redirs) > 0 || len(call.Assigns) > 0 ||
		len(call.Args) != 1 || call.Args[0].Lit() != "pwd" {
		return ""
	}
	if _, defined := w.defined["pwd"]; defined {
		return ""
	}
	d := ctx.st.single()
	if d == "" || !strings.HasPrefix(d, "/") || strings.ContainsAny(d, "\n"+dyn) {
		return ""
	}
	if unquoted && (w.ifsChanged || strings.ContainsAny(d, " \t*?[")) {
		return ""
	}
	return d
}

// paramExp expands $HOME, $PWD and quoted $IFS; any other parameter is dyn.
// Operators whose words hold substitutions are walked; transformations
// (${x@P} runs prompt expansion on a value) are not analysable.
func (w *walker) paramExp(p *syntax.ParamExp, cur *fieldBuilder, ctx evalCtx, quoted bool) {
	if p.Flags != nil || p.NestedParam != nil || len(p.Modifiers) > 0 || p.Width || p.IsSet ||
		p.Split != syntax.OptUnset || p.GlobSubst != syntax.OptUnset || p.RcExpand != syntax.OptUnset {
		w.unanalysable("unmodelled parameter expansion")
	}
	name := ""
	if p.Param != nil {
		name = p.Param.Value
	}
	if w.positionalExp(p, name, cur, quoted) {
		return
	}
	simple := isPlainParam(p, name)
	if simple {
		switch {
		case name == "HOME" && w.opts.Home != "":
			cur.add(w.opts.Home)
			return
		case name == "PWD" && ctx.st.single() != "":
			cur.add(ctx.st.single())
			return
		case name == "IFS" && quoted && !w.ifsChanged:
			cur.add(" \t\n")
			return
		case w.positional(name, cur, quoted):
			return
		case (name == "$" || name == "#" || name == "?") && !w.ifsChanged:
			// The shell's process ID, the count of positional parameters
			// and the last exit status: decimal digits in every shell,
			// set by the shell only, so never an option, a blank or a
			// glob (docs/shell.md, "Values and where they come from").
			if name == "$" {
				cur.shellPid = cur.b.Len() + 1
			}
			cur.add(numberMark)
			cur.w.dynamic = true
			return
		}
	}
	ok := w.enter()
	defer w.leave()
	if !ok {
		cur.add(dyn)
		cur.w.dynamic = true
		return
	}
	if p.Excl && p.Names == 0 {
		// ${!x}: indirection evaluates x's value as a name, subscripts included.
		cur.w.taint = firstNonEmpty(cur.w.taint, "indirect parameter expansion")
		if validName(name) {
			w.valuesAsName(name, ctx)
		}
	}
	if p.Index != nil && !isAtIndex(p.Index) {
		w.arith(p.Index, cur, ctx)
	}
	if p.Slice != nil {
		if p.Slice.Offset != nil {
			w.arith(p.Slice.Offset, cur, ctx)
		}
		if p.Slice.Length != nil {
			w.arith(p.Slice.Length, cur, ctx)
		}
	}
	if p.Repl != nil {
		w.walkWordSubsts(p.Repl.Orig, ctx)
		w.walkWordSubsts(p.Repl.With, ctx)
	}
	if p.Exp != nil {
		if p.Exp.Op == syntax.OtherParamOps {
			w.unanalysable("parameter transformation ${" + name + "@" + p.Exp.Word.Lit() + "}")
		}
		if p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull {
			cur.w.taint = firstNonEmpty(cur.w.taint, "assigns $"+name+" inside an expansion")
		}
		w.walkWordSubsts(p.Exp.Word, ctx)
	}
	cur.add(dyn)
	cur.w.dynamic = true
	if !quoted || name == "@" || isAtIndex(p.Index) {
		// "$@" and "${a[@]}" expand to several words even when quoted.
		cur.w.splits = true
	}
}

func isAtIndex(x syntax.ArithmExpr) bool {
	wd, ok := x.(*syntax.Word)
	return ok && (wd.Lit() == "@" || wd.Lit() == "*")
}

// walkWordSubsts walks the substitutions inside a word whose value is not needed.
func (w *walker) walkWordSubsts(wd *syntax.Word, ctx evalCtx) string {
	if wd == nil {
		return ""
	}
	var taint string
	for _, f := range w.evalWord(wd, ctx, false) {
		taint = firstNonEmpty(taint, f.taint)
	}
	return taint
}

// arith checks an arithmetic expression: names (and expansions) are
// evaluated recursively by bash, subscripts included, so a variable holding
// "a[$(cmd)]" runs cmd; assignments change shell state. Substitutions inside
// are walked and make the command not analysable.
func (w *walker) arith(x syntax.ArithmExpr, cur *fieldBuilder, ctx evalCtx) {
	names, assigns := w.arithScan(x, ctx)
	if assigns {
		cur.w.taint = firstNonEmpty(cur.w.taint, "arithmetic assignment")
	} else if names {
		cur.w.taint = firstNonEmpty(cur.w.taint, "arithmetic on variables can run code")
	}
}

func (w *walker) arithScan(x syntax.ArithmExpr, ctx evalCtx) (names, assigns bool) {
	switch e := x.(type) {
	case nil:
	case *syntax.BinaryArithm:
		// mvdan.cc/sh nests "1+2+3" to the left: walk that spine as a
		// loop, left to right, not by recursion as deep as it is long.
		var buf [16]*syntax.BinaryArithm
		spine := append(buf[:0], e)
		for {
			x, ok := spine[len(spine)-1].X.(*syntax.BinaryArithm)
			if !ok {
				break
			}
			spine = append(spine, x)
		}
		names, assigns = w.arithScan(spine[len(spine)-1].X, ctx)
		for i := len(spine) - 1; i >= 0 && !w.stop; i-- {
			b := spine[i]
			if b.Op >= syntax.Assgn && b.Op <= syntax.PowAssgn && !w.numberHere(b.X) {
				assigns = true
			}
			n, a := w.arithScan(b.Y, ctx)
			names, assigns = names || n, assigns || a
		}
	case *syntax.UnaryArithm:
		if (e.Op == syntax.Inc || e.Op == syntax.Dec) && !w.numberHere(e.X) {
			assigns = true
		}
		n, a := w.arithScan(e.X, ctx)
		names, assigns = n, assigns || a
	case *syntax.ParenArithm:
		ok := w.enter()
		defer w.leave()
		if !ok {
			return true, false
		}
		return w.arithScan(e.X, ctx)
	case *syntax.Word:
		for _, p := range e.Parts {
			switch q := p.(type) {
			case *syntax.Lit:
				if !isNumberLit(q.Value) && !w.numberHere(e) {
					names = true
					if validName(q.Value) {
						// Its value is evaluated as arithmetic in turn.
						w.valuesAsArith(q.Value, ctx)
					}
				}
			case *syntax.CmdSubst, *syntax.ProcSubst:
				w.walkWordSubsts(&syntax.Word{Parts: []syntax.WordPart{p}}, ctx)
				if w.numericSubst(p) {
					// Digits (date +%s, wc -l): no name to evaluate.
					break
				}
				w.unanalysableSeen("arithmetic with a command substitution")
				names = true
			case *syntax.ArithmExp:
				n, a := w.arithScan(q.X, ctx)
				names, assigns = names || n, assigns || a
			case *syntax.SglQuoted:
				// Inside arithmetic, quotes do not stop expansion: bash
				// expands "$(cmd)" in (( 'a[$(cmd)]' )), and let and
				// subscripts evaluate the text once the quotes are gone.
				text := q.Value
				if q.Dollar {
					text = ansiC(text)
				}
				w.arithText(text, &fieldBuilder{}, ctx, "quoted "+labelArith)
				names = true
			default:
				if w.numberHere(e) {
					break // $n holding a number (numbervalues.go)
				}
				before := w.substs
				w.walkWordSubsts(&syntax.Word{Parts: []syntax.WordPart{p}}, ctx)
				if w.substs > before {
					w.unanalysableSeen("arithmetic with a command substitution")
				}
				switch q := p.(type) {
				case *syntax.ParamExp:
					if q.Param != nil && validName(q.Param.Value) {
						w.valuesAsArith(q.Param.Value, ctx)
					}
				case *syntax.DblQuoted:
					// "a[1]" and "x" are evaluated once the quotes are gone.
					if t, ok := staticText(&syntax.Word{Parts: []syntax.WordPart{q}}); ok {
						w.arithText(t, &fieldBuilder{}, ctx, "quoted "+labelArith)
					}
				}
				names = true
			}
		}
	default:
		w.unanalysable("unmodelled arithmetic")
		names = true
	}
	return names, assigns
}

// isNumberLit accepts decimal, octal, hex and base#digits literals.
func isNumberLit(s string) bool {
	if s == "" {
		return false
	}
	if i := strings.IndexByte(s, '#'); i > 0 {
		if _, err := strconv.Atoi(s[:i]); err != nil {
			return false
		}
		s = s[i+1:]
		for _, c := range s {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '@' || c == '_') {
				return false
			}
		}
		return s != ""
	}
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		s = s[2:]
		if s == "" {
			return false
		}
		for _, c := range s {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
		return true
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ansiC decodes the body of a $'...' string as bash does.
func ansiC(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(s[i])
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			} else {
				b.WriteString("\\c")
			}
		case 'x':
			v, n := hexDigits(s[i+1:], 2)
			if n == 0 {
				b.WriteString("\\x")
				continue
			}
			i += n
			if v == 0 {
				return b.String() // bash truncates at NUL
			}
			b.WriteByte(byte(v))
		case 'u', 'U':
			maxN := 4
			if s[i] == 'U' {
				maxN = 8
			}
			v, n := hexDigits(s[i+1:], maxN)
			if n == 0 {
				b.WriteByte('\\')
				b.WriteByte(s[i])
				continue
			}
			i += n
			if v == 0 {
				return b.String()
			}
			if v > utf8.MaxRune {
				v = utf8.RuneError
			}
			b.WriteRune(rune(v))
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, n := 0, 0
			for n < 3 && i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '7' {
				v = v*8 + int(s[i+n]-'0')
				n++
			}
			i += n - 1
			if v&0xff == 0 {
				return b.String()
			}
			b.WriteByte(byte(v))
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func hexDigits(s string, maxN int) (int, int) {
	v, n := 0, 0
	for n < maxN && n < len(s) {
		c := s[n]
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		default:
			return v, n
		}
		v = v*16 + d
		n++
	}
	return v, n
}
