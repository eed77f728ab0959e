package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Numbers from producers the analysis knows, beyond date and wc
// (substvalues.go, numberProducer; docs/shell.md, "Values and where they
// come from"):
//   - echo of the shell's own numbers ($$, $#, $?) and literal digits:
//     `echo $$` prints decimal digits, one word per argument;
//   - in arithmetic only, date -d 'LITERAL' +FORMAT: the literal date
//     may lie before 1970 (%s then has a sign) or be refused (date prints
//     nothing), which arithmetic reads as a sign or a syntax error, never
//     as a name it would evaluate; as a word it could be an option.

// echoedNumbers reports whether a statement is echo whose every argument
// is $$, $# or $? (plain, quoted or not) or literal decimal digits, with
// no redirection of its stdout: it prints only digits, one word per
// argument (words). The shell sets those three parameters itself, in
// every shell, and no assignment changes them.
func echoedNumbers(s *syntax.Stmt) (ok bool, words int) {
	c, isCall := s.Cmd.(*syntax.CallExpr)
	if !isCall || len(c.Assigns) > 0 || len(c.Args) < 2 || c.Args[0].Lit() != "echo" ||
		s.Negated || s.Background || s.Coprocess || !onlyStderrOrInput(s) {
		return false, 0
	}
	for _, a := range c.Args[1:] {
		if !numberWord(a) {
			return false, 0
		}
	}
	return true, len(c.Args) - 1
}

// numberWord reports whether a word is literal decimal digits, or $$, $#
// or $? alone (also ${$}, "$$").
func numberWord(wd *syntax.Word) bool {
	if t, ok := literalText(wd); ok {
		return t != "" && strings.Trim(t, "0123456789") == ""
	}
	if len(wd.Parts) != 1 {
		return false
	}
	p := wd.Parts[0]
	if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		p = dq.Parts[0]
	}
	pe, ok := p.(*syntax.ParamExp)
	return ok && (isPlainParam(pe, "$") || isPlainParam(pe, "#") || isPlainParam(pe, "?"))
}

// dateOperandText reports whether s is a date for date -d that GNU's
// parser reads without opening a file: letters, digits, blanks and
// ":./,+-@" only (no TZ="FILE", which names a time zone file to open).
func dateOperandText(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte(" :./,+-@", c) >= 0) {
			return false
		}
	}
	return true
}

// dateGivenDate reports how many of date's words from args[i] are a -d
// option with a literal date (dateOperandText): -d DATE, -ud DATE,
// --date DATE, --date=DATE, -dDATE; 0 when args[i] is none.
func dateGivenDate(args []string, i int) int {
	a := args[i]
	switch {
	case a == "-d" || a == "-ud" || a == "--date":
		if i+1 < len(args) && dateOperandText(args[i+1]) {
			return 2
		}
	case strings.HasPrefix(a, "--date="):
		if dateOperandText(a[len("--date="):]) {
			return 1
		}
	case strings.HasPrefix(a, "-d") && len(a) > 2:
		if dateOperandText(a[2:]) {
			return 1
		}
	}
	return 0
}

// procShellPath rewrites a word that is /proc/$$ or /proc/$$/PATH ($$
// added at offset at) to /proc/self…: the shell's own process directory
// is judged as the program's own would be (the path rules and the
// credential list read /proc/self/environ, /proc/self/mem, /proc/self/fd
// as they read /proc/PID/…: a process of the same user, the same
// environment). Not when PATH goes through cwd or root (the shell's
// working directory or root may differ from the program's: a subshell's
// cd, a wrapper's chroot), holds "." or "..", or another run-time part.
func procShellPath(wd word, at int) word {
	const proc = "/proc/"
	s := wd.s
	if at != len(proc) || !strings.HasPrefix(s, proc+numberMark) {
		return wd
	}
	rest := s[len(proc)+len(numberMark):]
	if rest != "" && rest[0] != '/' || strings.Contains(rest, dyn) {
		return wd
	}
	for _, c := range strings.Split(rest, "/") {
		switch c {
		case "cwd", "root", ".", "..":
			return wd
		}
	}
	wd.s = proc + "self" + rest
	wd.dynamic = false
	return wd
}

// numberWords reports whether a word is a command substitution of a
// number producer (numberProducer, provNumber) and nothing else: whatever
// it splits into is digits (and date's "-:/.," after a digit), never an
// option such as test's -v, nor a name.
func numberWords(a word) bool {
	return a.prov != nil && a.prov.kind == provNumber && a.taint == "" && !a.glob
}

// printfFormatFirst reports a call of printf whose first argument starts
// with a literal character other than "-" (and a backslash, which may
// quote one): the format, so no -v NAME follows (bash's printf takes
// options before the format only).
func printfFormatFirst(c *syntax.CallExpr) bool {
	if len(c.Args) < 2 || c.Args[0].Lit() != "printf" || len(c.Args[1].Parts) == 0 {
		return false
	}
	lead := ""
	switch p := c.Args[1].Parts[0].(type) {
	case *syntax.Lit:
		lead = p.Value
	case *syntax.SglQuoted:
		if !p.Dollar {
			lead = p.Value
		}
	case *syntax.DblQuoted:
		if len(p.Parts) > 0 {
			if l, ok := p.Parts[0].(*syntax.Lit); ok {
				lead = l.Value
			}
		}
	}
	return lead != "" && lead[0] != '-' && lead[0] != '\\'
}

// Variables that hold numbers. Bash evaluates a variable named in
// arithmetic as an expression in turn (n='a[$(rm x)]'; let n-- runs rm),
// so arithmetic on a variable is only read-only where the variable is
// known to hold a number: where the statement runs after, in the same
// list or an enclosing one, a bare assignment n=NUMBER (literal digits,
// or a substitution of a number producer: $(… | wc -l), $(date +%s)),
// and every assignment of n anywhere in the command gives a number (those
// assignments, arithmetic, which stores integers) and nothing else may
// change it (numberOnly). A variable of the environment, or one assigned
// later, is not one.

// numVars are the variables that hold a number where a statement runs,
// for the script whose text is src (a nested script, sh -c's or eval's,
// has its own); only caches numberOnly for the command's own text.
type numVars struct {
	src   string
	names map[string]bool
	only  map[string]bool
}

// numbersEnter starts a statement list: its statements see the
// enclosing list's numbers (the same script only). It returns what
// restores them when the list ends.
func (w *walker) numbersEnter() func() {
	saved, savedSrc := w.nums.names, w.nums.src
	if w.nums.src != w.src {
		w.nums.names, w.nums.src = nil, w.src
	}
	return func() { w.nums.names, w.nums.src = saved, savedSrc }
}

// numbersAfter adds, for the statements after s in its list, the
// variable s sets to a number (numberAssignment).
func (w *walker) numbersAfter(s *syntax.Stmt) {
	name := w.numberAssignment(s)
	if name == "" || w.nums.names[name] {
		return
	}
	names := make(map[string]bool, len(w.nums.names)+1)
	for k := range w.nums.names {
		names[k] = true
	}
	names[name] = true
	w.nums.names = names
}

// numberAssignment returns the variable a statement sets to a number
// when it is a bare assignment of one (name=NUMBER, nothing else, not in
// the background) and the variable only ever holds numbers (numberOnly).
func (w *walker) numberAssignment(s *syntax.Stmt) string {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) > 0 || len(c.Assigns) != 1 || len(s.Redirs) > 0 || s.Background || s.Coprocess || s.Negated {
		return ""
	}
	a := c.Assigns[0]
	if a.Name == nil || !w.numberValue(a) || !w.numberOnly(a.Name.Value) {
		return ""
	}
	return a.Name.Value
}

// numberValue reports whether an assignment stores a number: name=DIGITS,
// name=$(…) or "$(…)" of a number producer (numericSubst), or
// name=$((…)) (an integer, or an error).
func (w *walker) numberValue(a *syntax.Assign) bool {
	if a.Append || a.Naked || a.Index != nil || a.Array != nil || a.Value == nil {
		return false
	}
	if t, ok := literalText(a.Value); ok {
		return t != "" && strings.Trim(t, "0123456789") == ""
	}
	if len(a.Value.Parts) != 1 {
		return false
	}
	p := a.Value.Parts[0]
	if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		p = dq.Parts[0]
	}
	if _, ok := p.(*syntax.ArithmExp); ok {
		return true
	}
	return w.numericSubst(p)
}

// numberOnly reports whether every assignment of name in the command
// stores a number: bare or prefix assignments of numberValue, and
// arithmetic; and nothing else can assign it: no loop over it, read,
// printf -v, mapfile, getopts, unset, ${name:=…}, {name}> and no
// declare, local, typeset, export, readonly (attributes, namerefs), eval,
// source, trap or alias anywhere (they may assign anything). name is
// shell-local (localName).
func (w *walker) numberOnly(name string) bool {
	if v, ok := w.nums.only[name]; ok {
		return v
	}
	ok := localName(name) && validName(name)
	if ok && len(w.roots) > 0 {
		root := w.roots[0].f
		if w.src != w.roots[0].src {
			ok = false // a nested script: its own variables are not followed
		}
		w.walkAST(root, func(node syntax.Node) bool {
			switch x := node.(type) {
			case *syntax.Assign:
				if x.Name != nil && x.Name.Value == name && !w.numberValue(x) {
					ok = false
				}
			case *syntax.WordIter:
				if x.Name != nil && x.Name.Value == name {
					ok = false
				}
			case *syntax.ParamExp:
				if x.Exp != nil && (x.Param != nil && x.Param.Value == name || x.Excl) &&
					(x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
					ok = false
				}
			case *syntax.DeclClause, *syntax.CoprocClause:
				ok = false
			case *syntax.CallExpr:
				if len(x.Args) == 0 {
					break
				}
				cmd, _ := literalText(x.Args[0])
				switch cmd {
				case "eval", "source", ".", "trap", "alias", "builtin", "command", "enable":
					ok = false
				}
				if nameAssigners[cmd] && !printfFormatFirst(x) {
					for _, a := range x.Args[1:] {
						t, lit := literalText(a)
						if !lit || containsIdent(t, name) {
							ok = false
						}
					}
				}
				for _, a := range x.Args {
					if t, lit := literalText(a); lit && strings.HasPrefix(t, "{") && containsIdent(t, name) {
						ok = false
					}
				}
			}
			return ok
		})
	}
	if len(w.roots) > 0 && w.src == w.roots[0].src {
		if w.nums.only == nil {
			w.nums.only = map[string]bool{}
		}
		w.nums.only[name] = ok
	}
	return ok
}

// numberHere reports whether an arithmetic operand is a variable that
// holds a number where it is evaluated (n or $n, plain).
func (w *walker) numberHere(x syntax.ArithmExpr) bool {
	if len(w.nums.names) == 0 || w.nums.src != w.src {
		return false
	}
	wd, ok := x.(*syntax.Word)
	if !ok || len(wd.Parts) != 1 {
		return false
	}
	switch p := wd.Parts[0].(type) {
	case *syntax.Lit:
		return w.nums.names[p.Value]
	case *syntax.ParamExp:
		return p.Param != nil && isPlainParam(p, p.Param.Value) && w.nums.names[p.Param.Value]
	}
	return false
}

// letWordsPlain reports whether let's words (as written) are ones bash
// passes as they are: no glob character (let n*=2 would match a file
// named n[$(rm x)]=2 and evaluate it), quote, expansion or blank.
func letWordsPlain(words []string) bool {
	for _, s := range words {
		if s == "" || strings.ContainsAny(s, "*?[]\"'$`\\ \t\n{}~") {
			return false
		}
	}
	return true
}
