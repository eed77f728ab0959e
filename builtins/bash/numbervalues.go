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
