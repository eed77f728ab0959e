package bash

import (
	"os"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Positional parameters of a shell script file (docs/shell.md, "Scripts"):
// bash x.sh a b, sh x.sh "$f", ./x.sh a and source x.sh a bind $1..., $@,
// $*, $# and $0 inside the script to the call's words. A known word stays
// known, a word only known at run time stays so (its text and taint carry
// over); from a word that may be several words or none (an unquoted $x, a
// glob) on, the parameters and their count are unknown. A top-level shift
// moves them; anything else that may change them (shift or set -- inside a
// statement, source, eval, a command named at run time) makes them unknown
// from that statement on. A sh -c script, eval's and trap's strings and
// function bodies have their own (unknown) parameters.

// posParams are the positional parameters known in the script being
// walked.
type posParams struct {
	// zero is $0, nil when not known.
	zero *word
	// args are $1, $2, ... as far as they are known.
	args []word
	// open: more words of unknown number follow args, so $# and the
	// parameters after args are unknown.
	open bool
	// noSource: BASH_SOURCE is empty, as in the command string of bash -c
	// (Options.PositionalEmpty), which the command does not assign.
	noSource bool
}

// newPosParams binds the words of a call; nil when the call supplies
// words at run time (xargs, find -exec), which the script reads as
// parameters nobody sees.
func newPosParams(zero *word, args []word, fr frame) *posParams {
	if fr.appends || fr.placeholder != "" {
		return nil
	}
	p := &posParams{zero: zero}
	for _, a := range args {
		if a.splits || a.glob && !a.one {
			p.open = true
			break
		}
		a.param = ""
		p.args = append(p.args, a)
	}
	return p
}

func (p *posParams) clone() *posParams {
	if p == nil {
		return nil
	}
	c := *p
	c.args = append([]word(nil), p.args...)
	return &c
}

// positionalWords expands a whole word that is only "$@" (quoted, each
// parameter one word, then words of unknown number when they are not all
// known) or an unquoted $@ or $* (each parameter split on
// blanks, when no parameter can glob or is only known at run time); ok
// false when the word is not such a word or the parameters are not known.
func (w *walker) positionalWords(wd *syntax.Word) ([]word, bool) {
	if w.pos == nil || len(wd.Parts) != 1 {
		return nil, false
	}
	switch p := wd.Parts[0].(type) {
	case *syntax.DblQuoted:
		if len(p.Parts) != 1 {
			return nil, false
		}
		pe, ok := p.Parts[0].(*syntax.ParamExp)
		if !ok || !isPlainParam(pe, "@") {
			return nil, false
		}
		out := make([]word, len(w.pos.args), len(w.pos.args)+1)
		for i, a := range w.pos.args {
			a.splits = false
			out[i] = a
			w.countField(len(a.s))
		}
		if w.pos.open {
			// The known ones, then words of unknown number.
			out = append(out, word{s: dyn, dynamic: true, splits: true})
		}
		return out, true
	case *syntax.ParamExp:
		if !isPlainParam(p, "@") && !isPlainParam(p, "*") || w.ifsChanged || w.pos.open {
			return nil, false
		}
		var out []word
		for _, a := range w.pos.args {
			if a.dynamic || strings.ContainsAny(a.s, "*?[\\"+dyn) {
				return nil, false
			}
			for _, f := range strings.Fields(a.s) {
				out = append(out, word{s: f})
				w.countField(len(f))
			}
		}
		return out, true
	}
	return nil, false
}

// positional adds the value of positional parameter name ("1", "#", "0",
// "*", "@") to cur when it is known; false when it is not (the caller
// adds an unknown word, as for any variable).
func (w *walker) positional(name string, cur *fieldBuilder, quoted bool) bool {
	p := w.pos
	if p == nil || name == "" {
		return false
	}
	switch {
	case name == "0":
		if p.zero == nil {
			return false
		}
		return w.positionalValue(*p.zero, cur, quoted)
	case name == "#":
		if p.open {
			return false
		}
		return w.positionalValue(word{s: strconv.Itoa(len(p.args))}, cur, quoted)
	case name == "*" || name == "@":
		if p.open || w.ifsChanged {
			return false
		}
		switch len(p.args) {
		case 0:
			if quoted {
				cur.started = true
			}
			return true
		case 1:
			return w.positionalValue(p.args[0], cur, quoted)
		}
		if !quoted || name == "@" {
			// Several words: only a whole-word "$@" (positionalWords).
			return false
		}
		// "$*": the parameters joined by IFS's first character.
		joined := word{}
		for i, a := range p.args {
			if i > 0 {
				joined.s += " "
			}
			joined.s += a.s
			joined.dynamic = joined.dynamic || a.dynamic
			joined.subst = joined.subst || a.subst
			joined.taint = firstNonEmpty(joined.taint, a.taint)
		}
		return w.positionalValue(joined, cur, true)
	}
	n, err := strconv.Atoi(name)
	if err != nil || n < 1 || strconv.Itoa(n) != name {
		return false
	}
	if n > len(p.args) {
		if p.open {
			return false
		}
		// Not set: empty.
		return w.positionalValue(word{}, cur, quoted)
	}
	return w.positionalValue(p.args[n-1], cur, quoted)
}

// positionalValue adds a known parameter's value: quoted, as it is;
// unquoted, only a value that splitting and globbing leave as one word
// (or an empty one, which leaves none); a value only known at run time
// stays so, and unquoted may split.
func (w *walker) positionalValue(v word, cur *fieldBuilder, quoted bool) bool {
	switch {
	case v.dynamic || strings.Contains(v.s, dyn):
		cur.add(v.s)
		cur.w.dynamic = true
		cur.w.splits = cur.w.splits || !quoted
		cur.w.subst = cur.w.subst || v.subst
	case quoted:
		cur.add(v.s)
	case v.s == "":
		// An unquoted empty value is no word.
	case w.ifsChanged || strings.ContainsAny(v.s, " \t\n*?[\\"):
		return false
	default:
		cur.add(v.s)
	}
	if v.taint != "" {
		cur.w.taint = firstNonEmpty(cur.w.taint, v.taint)
	}
	return true
}

// positionalBefore is what the positional parameters are while top-level
// statement s of a script runs, and after is applied once it ran: a plain
// shift N moves them, a plain source may change them, set with options
// only leaves them; any other statement that may change them (shift or
// set inside, source or eval with other commands, a command named at run
// time) makes them unknown.
func (w *walker) positionalBefore(s *syntax.Stmt) (before *posParams, after func(*posParams) *posParams) {
	keep := func(p *posParams) *posParams { return p }
	if w.pos == nil || w.positionalShadowed() {
		return nil, func(*posParams) *posParams { return nil }
	}
	if call, ok := s.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 && len(call.Assigns) == 0 && len(s.Redirs) == 0 &&
		!s.Negated && !s.Background && !s.Coprocess {
		switch call.Args[0].Lit() {
		case "shift":
			n := 1
			if len(call.Args) == 2 {
				v, err := strconv.Atoi(call.Args[1].Lit())
				if err != nil || v < 0 {
					return nil, func(*posParams) *posParams { return nil }
				}
				n = v
			}
			if len(call.Args) > 2 {
				return nil, func(*posParams) *posParams { return nil }
			}
			return w.pos, func(p *posParams) *posParams {
				switch {
				case p == nil:
					return nil
				case n <= len(p.args):
					p = p.clone()
					p.args = p.args[n:]
				case p.open:
					p = p.clone()
					p.args = nil
				}
				// More than $#: shift fails (bash) or the shell exits
				// (dash); either way what runs after sees them unchanged.
				return p
			}
		case "set":
			if setOptionsOnly(call.Args[1:]) {
				return w.pos, keep
			}
		case "source", ".":
			// Its words are expanded with them, the sourced script sees
			// them (without arguments), and it may change them.
			return w.pos, func(*posParams) *posParams { return nil }
		}
	}
	if mayChangePositional(w, s) {
		return nil, func(*posParams) *posParams { return nil }
	}
	return w.pos, keep
}

// positionalShadowed reports a script in which a plain shift or set may
// not be the builtin, or something runs between its commands: a function
// named like a builtin that changes the parameters (defined anywhere in the
// command, exported ones reach the script), an alias (expanded with
// shopt -s expand_aliases) or a trap.
func (w *walker) positionalShadowed() bool {
	for _, n := range []string{"shift", "set", "source", ".", "eval", "builtin", "command"} {
		if _, ok := w.defined[n]; ok {
			return true
		}
	}
	return strings.Contains(w.src, "alias") || strings.Contains(w.src, "trap")
}

// setOptionsOnly reports set's words that only set options (set -e,
// set -euo pipefail, set +x): no "--" or "-", no operand, nothing only
// known at run time.
func setOptionsOnly(args []*syntax.Word) bool {
	for i := 0; i < len(args); i++ {
		t, ok := literalText(args[i])
		if !ok || t == "--" || t == "-" || len(t) < 2 || t[0] != '-' && t[0] != '+' {
			return false
		}
		if strings.ContainsAny(t[1:], "o") && i+1 < len(args) {
			// -o NAME; -o alone lists the options, and the words after
			// it are set's own: set -o -- -x sets $1 to -x (bash 5.2).
			n, ok := literalText(args[i+1])
			if !ok || !shellOptionName(n) {
				return false
			}
			i++
		}
	}
	return true
}

// mayChangePositional reports nodes that may change the positional
// parameters of the shell running them: shift, set, source, ., eval, a
// command named at run time (outside function bodies, which have their
// own parameters).
func mayChangePositional(w *walker, n syntax.Node) bool {
	found := false
	w.walkAST(n, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.FuncDecl:
			return false
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true
			}
			for i, a := range x.Args {
				// The command's name: first, or after builtin or
				// command and their options (command -p -- set).
				named := i == 0
				if i > 0 {
					first, _ := unescapedText(x.Args[0])
					named = first == "builtin" || first == "command"
					for _, b := range x.Args[1:i] {
						t, _ := unescapedText(b)
						named = named && strings.HasPrefix(t, "-")
					}
				}
				t, ok := unescapedText(a)
				if !ok {
					// A name only known at run time may be any of them.
					found = found || named
					continue
				}
				switch t {
				case "shift", "set", "source", "eval", "trap":
					found = true
				case ".":
					// . as a command, not an operand (find ., cp x .).
					found = found || named
				}
			}
		}
		return !found
	})
	return found
}

// sourceZero is $0 in a sourced script: the sourcing shell's.
func sourceZero(p *posParams) *word {
	if p == nil {
		return nil
	}
	return p.zero
}

// shellOptionName reports a word set -o takes as an option's name.
func shellOptionName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && c != '-' {
			return false
		}
	}
	return true
}

// positionalExp expands ${N-w}, ${N:-w}, ${N+w} and ${N:+w} of a
// positional parameter whose value, or whether it is set, is known (the
// word only when it is a literal without blanks, globs, quotes, tilde or
// backslash), and $BASH_SOURCE, ${BASH_SOURCE[0]} where BASH_SOURCE is
// empty (posParams.noSource); false for anything else, which the caller
// expands as unknown.
func (w *walker) positionalExp(p *syntax.ParamExp, name string, cur *fieldBuilder, quoted bool) bool {
	if w.pos == nil || p.Param == nil {
		return false
	}
	if name == "BASH_SOURCE" && w.pos.noSource {
		bare := *p
		if lit, ok := indexLit(p.Index); ok && lit == "0" {
			bare.Index = nil
		}
		if isPlainParam(&bare, name) {
			return w.positionalValue(word{}, cur, quoted)
		}
		return false
	}
	if p.Exp == nil {
		return false
	}
	bare := *p
	bare.Exp = nil
	n, err := strconv.Atoi(name)
	if !isPlainParam(&bare, name) || err != nil || n < 1 || strconv.Itoa(n) != name {
		return false
	}
	set := n <= len(w.pos.args)
	if !set && w.pos.open {
		return false
	}
	var v word
	if set {
		v = w.pos.args[n-1]
	}
	known := !v.dynamic && !strings.Contains(v.s, dyn)
	var useWord bool
	switch p.Exp.Op {
	case syntax.DefaultUnset:
		useWord = !set
	case syntax.DefaultUnsetOrNull:
		useWord = !set || known && v.s == ""
		if set && !known {
			return false
		}
	case syntax.AlternateUnset:
		useWord, v = set, word{}
	case syntax.AlternateUnsetOrNull:
		if set && !known {
			return false
		}
		useWord, v = set && v.s != "", word{}
	default:
		// := cannot assign a positional parameter and :? stops the
		// shell: left unknown.
		return false
	}
	if !useWord {
		return w.positionalValue(v, cur, quoted)
	}
	text := ""
	if p.Exp.Word != nil {
		for _, part := range p.Exp.Word.Parts {
			l, ok := part.(*syntax.Lit)
			if !ok || strings.ContainsAny(l.Value, "\\*?[~'\"$`") {
				return false
			}
			text += l.Value
		}
	}
	return w.positionalValue(word{s: text}, cur, quoted)
}

// indexLit is the literal text of an array subscript.
func indexLit(x syntax.ArithmExpr) (string, bool) {
	wd, ok := x.(*syntax.Word)
	if !ok {
		return "", false
	}
	lit := wd.Lit()
	return lit, lit != ""
}

// bashSourceAssigned reports a command in which BASH_SOURCE may not be
// empty though bash ignores every assignment to it: zsh (a host's shell
// for a user whose shell it is) has it as an ordinary variable, so any
// mention of it but a read ($BASH_SOURCE, ${BASH_SOURCE}, ${BASH_SOURCE[0]})
// counts, and so does an environment that sets it.
func bashSourceAssigned(f *syntax.File, command string) bool {
	if _, ok := os.LookupEnv("BASH_SOURCE"); ok {
		return true
	}
	mentions := strings.Count(command, "BASH_SOURCE")
	if mentions == 0 {
		return false
	}
	reads := 0
	syntax.Walk(f, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && p.Param.Value == "BASH_SOURCE" {
			bare := *p
			if lit, ok := indexLit(p.Index); ok && lit == "0" {
				bare.Index = nil
			}
			if isPlainParam(&bare, "BASH_SOURCE") {
				reads++
			}
		}
		return true
	})
	return reads != mentions
}

// unescapedText is a word's text with quotes and every backslash removed
// (s\et is set to bash), or false when a part of it is expanded.
func unescapedText(wd *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range wd.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(strings.ReplaceAll(p.Value, "\\", ""))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(strings.ReplaceAll(l.Value, "\\", ""))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
