package flagspec

import "strings"

// Perl one-liners that only filter text (issue 26; README.md, "Perl
// one-liners"): perl is an interpreter and never read-only, except a
// command line whose code lies in a small closed subset of Perl that
// cannot run a program, open, write or remove a file, load a module,
// evaluate a string, read the environment or change @ARGV (which -n and
// -p open with the two-argument open, where "|cmd" runs cmd). The check is
// token by token, against an allow-list, and refuses everything else:
//
//   - switches: -n -p -a -w -l[octal] -0[octal] -F<pattern> -e/-E CODE, at
//     least one -e or -E; no -i, -M, -m, -I, -d, -x, -s, -c (which runs
//     BEGIN blocks), -C, -t, -T, -u, -U, -V, -W, -X; -F's pattern neither
//     starts with / ' " (perl then pastes it into the code) nor ends with
//     a backslash, and holds no blank (perl ends it there and reads the
//     rest of the word as switches: "-F, -i") and no "{" (it is compiled
//     at run time, where \N{...} loads a module); the -e pieces are
//     checked as the one program perl joins them into, with newlines;
//   - operands (the files -n and -p read): static names of letters,
//     digits and "_./,:@%+=-" starting with a letter, a digit, "_", "."
//     or "/" ("-" alone is stdin);
//   - code: names of a fixed list of built-ins and keywords (print, say,
//     split, join, length, if, ...); variables $name and @name but not
//     ENV, ARGV, INC, SIG, the standard handles or a package-qualified name
//     (:: or '), and of the punctuation ones only $_, $. and $1..$9; no
//     braces (no block, hash or subscript {}: "}" ends a block, after
//     which perl reads a term, or a subscript, after which an operator),
//     no %name, no dereference ($$x, @{...}, ->), no & call, no typeglob,
//     no heredoc, no <FH> or <*>, no comment, no filetest (-e, -s), no
//     line starting with "=" (POD, which perl skips), no smartmatch, no
//     number ending in "." ("1." is a number to perl); a variable
//     followed by ' or : is refused ($_'x is $_::x); sort takes an array
//     or a built-in, not a sub name ("sort($s 1, 2)" with $s
//     "CORE::mkdir" makes directories); my and our take no attribute (my
//     $x : lc loads attributes.pm);
//   - patterns: m/.../, s/.../.../ (no e flag) and /.../ where perl reads
//     a term, with no variable in them; =~ and !~ only before a pattern
//     literal, split's first argument a pattern or a string literal
//     without { $ @: a pattern compiled at run time from a value loads
//     _charnames.pm for \N{...};
//   - strings "..." and '...' interpolating plain variables only ("$x",
//     "@F"; never a subscript "$x[1][system(1)]", "@{[ ]}", "${\ }",
//     "\N{...}", (?{ }), \p{...}, nor @1, @'x, @- or @+, which perl
//     interpolates with their subscripts).
//
// m, s and / start a pattern only where perl reads a term (after an
// operator other than a postfix ++ or --, an opening bracket, a comma,
// the start or a list operator);
// / * < % & ? are taken as binary operators only after a term, and "/"
// only when a blank or "=" follows (print $fh /.../ is a pattern). So no
// text perl reads as code is skipped as a pattern or a string; where the
// two readings could differ otherwise, perl fails to compile the program
// and runs nothing of it (no BEGIN block or use is allowed). Two holes a
// wider subset had ($h{a} %system "x" is a modulus and a call of system;
// "$x[1][system(1)]" runs the second subscript) are in TestPerlOneLiners,
// the holes an independent review found in perlReviewBites
// (TestPerlReviewBitesAgainstRealPerl runs each with the real perl).

// perlWords are the built-ins and keywords the code may use (m and s
// only as m/.../ and s/.../.../).
var perlWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`print printf say if unless else elsif while until for foreach my our local
		and or not xor eq ne lt gt le ge cmp x length join split lc uc lcfirst ucfirst chomp chop chr ord substr
		index rindex sprintf abs int sqrt hex oct defined eof scalar reverse sort keys values each exists delete
		push pop shift unshift next last exit die warn m s map grep quotemeta`) {
		perlWords[w] = true
	}
}

// perlDeniedNames are variables the code may not name: the environment,
// the files -n and -p open, the module paths, signal handlers and the
// standard handles.
var perlDeniedNames = map[string]bool{"ENV": true, "ARGV": true, "ARGVOUT": true, "INC": true, "SIG": true,
	"STDIN": true, "STDOUT": true, "STDERR": true, "DATA": true}

// perlTermBefore are the barewords after which perl reads a term, so that
// m/, s/ and, after split, / start a pattern.
var perlTermBefore = map[string]bool{"print": true, "say": true, "printf": true, "if": true, "unless": true,
	"while": true, "until": true, "and": true, "or": true, "not": true, "xor": true, "split": true, "join": true,
	"push": true, "unshift": true, "grep": true, "map": true, "defined": true}

// perlOneLiner judges perl's argv when it is a one-liner of the subset
// above: read-only, reading its file operands. ok is false otherwise.
func perlOneLiner(argv []string) (Verdict, bool) {
	var code []string
	features := false // -E: say is a keyword
	i := 1
	for ; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		for j := 1; j < len(a); j++ {
			switch c := a[j]; c {
			case 'n', 'p', 'a', 'w':
			case 'l', '0':
				for j+1 < len(a) && a[j+1] >= '0' && a[j+1] <= '7' {
					j++
				}
			case 'F':
				f := a[j+1:]
				// perl ends the pattern at a blank and reads the rest of the
				// word as more switches ("-F, -i", "-F, -esystem(...)"); the
				// pattern is compiled at run time, where \N{...} loads a
				// module and \p{...} may call a sub.
				if f == "" || strings.ContainsAny(f[:1], `/'"`) || strings.HasSuffix(f, `\`) || !perlPlain(f) ||
					strings.ContainsAny(f, " \t\n{") {
					return Verdict{}, false
				}
				j = len(a)
			case 'e', 'E':
				features = features || c == 'E'
				c := a[j+1:]
				if c == "" {
					if i+1 >= len(argv) {
						return Verdict{}, false
					}
					i++
					c = argv[i]
				}
				code = append(code, c)
				j = len(a)
			default:
				return Verdict{}, false
			}
		}
	}
	if len(code) == 0 {
		return Verdict{}, false
	}
	// perl joins the pieces with newlines into one program: a piece
	// alone may read otherwise ("print 1" -e "/ 2; system 1; 3 / 1").
	if !perlSafeCode(strings.Join(code, "\n"), features) {
		return Verdict{}, false
	}
	v := Verdict{Known: true, ReadOnly: true}
	for _, f := range argv[i:] {
		if f == "-" {
			continue
		}
		if f == "" || !perlIdentByte(f[0]) && f[0] != '.' && f[0] != '/' || !perlFileName(f) {
			// The two-argument open reads a leading - + < > | & or blank
			// as a mode.
			return Verdict{}, false
		}
		v.Reads = append(v.Reads, f)
	}
	return v, true
}

// perlPlain: printable ASCII without NUL or the dynamic marker.
func perlPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' && s[i] != '\t' && s[i] != '\n' || s[i] > '~' {
			return false
		}
	}
	return true
}

func perlFileName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./,:@%+=-", c) >= 0) {
			return false
		}
	}
	return true
}

func perlIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func perlIdentByte(c byte) bool  { return perlIdentStart(c) || c >= '0' && c <= '9' }

// perlSafeCode reports whether code lies in the subset; say only with
// features (-E): without them it is no keyword, and "say $x ..." is an
// indirect method call ($x->say).
func perlSafeCode(code string, features bool) bool {
	if !perlPlain(code) || strings.HasPrefix(code, "=") || strings.Contains(code, "\n=") {
		// A line starting with "=" where perl reads a statement starts POD,
		// which perl skips to a "=cut" line: text the check reads as the
		// start of a string would be code after it.
		return false
	}
	// prev is the kind of the last token: 't' a term (variable, number,
	// string, pattern, ")" or "]"), 'w' a bareword (its text in word), 'o'
	// an operator, an opening bracket or the start: perl reads a term next.
	prev, word := byte('o'), ""
	n := len(code)
	for i := 0; i < n; {
		c := code[i]
		rest := code[i:]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
			continue
		case c == '$' || c == '@':
			j, ok := perlVariable(code, i)
			if !ok {
				return false
			}
			i, prev = j, 't'
			continue
		case c >= '0' && c <= '9':
			j := i
			for j < n && (code[j] >= '0' && code[j] <= '9' || code[j] == '_') {
				j++
			}
			if j+1 < n && code[j] == '.' && code[j+1] >= '0' && code[j+1] <= '9' {
				j++
				for j < n && code[j] >= '0' && code[j] <= '9' {
					j++
				}
			}
			if j < n && (perlIdentByte(code[j]) || code[j] == '\'') {
				return false // 0x1f, 1e3: not in the subset
			}
			if j+1 < n && code[j] == '.' && code[j+1] != '.' {
				return false // 1. is a number to perl: "1./ 2; system 1; 3 / 1" divides
			}
			i, prev = j, 't'
			continue
		case perlIdentStart(c):
			j := i
			for j < n && perlIdentByte(code[j]) {
				j++
			}
			w := code[i:j]
			if !perlWords[w] || w == "say" && !features || j < n && code[j] == '\'' || strings.HasPrefix(code[j:], "::") {
				return false // a name not in the list, or package-qualified (CORE'system, CORE::system)
			}
			if w == "m" || w == "s" {
				if j >= n || code[j] != '/' || !(prev == 'o' || prev == 'w' && perlTermBefore[word]) {
					return false
				}
				k, ok := perlQuoted(code, j, w == "s")
				if !ok {
					return false
				}
				i, prev = k, 't'
				continue
			}
			if !perlWordArguments(w, code[j:]) {
				return false
			}
			i, prev, word = j, 'w', w
			continue
		case c == '"' || c == '\'':
			j := i + 1
			for j < n && code[j] != c {
				if code[j] == '\\' {
					j++
				}
				j++
			}
			if j >= n || c == '"' && !perlInterpolation(code[i+1:j], false) {
				return false
			}
			i, prev = j+1, 't'
			continue
		case c == '/' && (prev == 'o' || prev == 'w' && perlTermBefore[word]):
			// Where perl reads a term, "/" starts a pattern.
			k, ok := perlQuoted(code, i, false)
			if !ok {
				return false
			}
			i, prev = k, 't'
			continue
		case strings.HasPrefix(rest, "->"), strings.HasPrefix(rest, "=>"), strings.HasPrefix(rest, "<<"),
			strings.HasPrefix(rest, "::"), strings.HasPrefix(rest, "~~"):
			return false
		case strings.HasPrefix(rest, "++"), strings.HasPrefix(rest, "--"):
			// $x++ / 2: after a postfix ++ perl reads an operator, so "/"
			// divides; as a term it only makes the check stricter.
			i, prev = i+2, 't'
			continue
		case strings.HasPrefix(rest, "=~"), strings.HasPrefix(rest, "!~"):
			// Only against a pattern literal: any other right side is a
			// pattern compiled at run time ($_ =~ '\N{SPACE}' loads a module).
			r := strings.TrimLeft(rest[2:], " \t\n")
			if !strings.HasPrefix(r, "/") && !strings.HasPrefix(r, "m/") && !strings.HasPrefix(r, "s/") {
				return false
			}
			i, prev = i+2, 'o'
			continue
		case c == '/' || c == '*' || c == '<' || c == '%' || c == '&' || c == '?':
			// Binary only, after a term: where perl reads a term they
			// start a pattern, a typeglob, <FH> or <*>, a hash, a sub call.
			// A "/" must be followed by a blank or "=": print $fh /.../
			// takes $fh for a file handle and /.../ for a pattern.
			if prev != 't' || len(rest) < 2 {
				return false
			}
			switch d := rest[1]; c {
			case '%':
				if d != ' ' && d != '\t' && d != '=' {
					return false // %name: a hash, not in the subset
				}
			case '/':
				if d != ' ' && d != '\t' && d != '=' {
					return false
				}
			case '*':
				if perlIdentStart(d) || d == '{' {
					return false
				}
			case '<':
				if d != ' ' && d != '\t' && d != '=' {
					return false
				}
				if strings.HasPrefix(rest, "<=>") {
					i += 2
				}
			case '&':
				if d != '&' && d != '=' {
					return false
				}
				i++
			}
		case c == '-':
			if len(rest) > 1 && perlIdentStart(rest[1]) {
				return false // a filetest (-e, -s) or -bareword
			}
		case c == '\\':
			if len(rest) > 1 && (rest[1] == '&' || rest[1] == '*') {
				return false
			}
		case c == '{' || c == '}':
			return false // no blocks or hashes: "}" ends a block (a term follows) or a subscript (an operator)
		case strings.IndexByte("+.=!>|^~:,;()[]", c) >= 0:
		default:
			return false // #, backquote, anything else
		}
		i++
		switch c {
		case ')', ']':
			prev = 't'
		default:
			prev = 'o'
		}
	}
	return true
}

// perlVariable reads a variable at code[i] ($x, @x, %x, $_, $., $1, $F[1]
// is $F then [1]); it returns the index after it.
func perlVariable(code string, i int) (int, bool) {
	n := len(code)
	j := i + 1
	if j >= n {
		return 0, false
	}
	k := 0
	switch c := code[j]; {
	case c == '_' && (j+1 >= n || !perlIdentByte(code[j+1])):
		k = j + 1
	case c == '.' && code[i] == '$':
		k = j + 1
	case c >= '1' && c <= '9' && code[i] == '$':
		for k = j; k < n && code[k] >= '0' && code[k] <= '9'; k++ {
		}
	case perlIdentStart(c):
		for k = j; k < n && perlIdentByte(code[k]); k++ {
		}
		if perlDeniedNames[code[j:k]] {
			return 0, false
		}
	default:
		return 0, false
	}
	if k < n && (code[k] == '\'' || code[k] == ':') {
		return 0, false // $_'x and $_::x are $_::x, "$_'x[1][system 1]" a subscript
	}
	return k, true
}

// perlWordArguments checks what follows a word whose arguments perl
// reads in its own way: sort takes a sub name ("sort $s @F", "sort($s
// @F)" call the sub $s names: CORE::mkdir makes a directory per line),
// so only an array or a built-in returning a list may follow; split's
// first argument is a pattern compiled at run time unless it is a
// literal; my and our take attributes (my $x : lc loads attributes.pm).
func perlWordArguments(w, rest string) bool {
	r := strings.TrimLeft(rest, " \t\n")
	switch w {
	case "sort", "split":
		if strings.HasPrefix(r, "(") {
			r = strings.TrimLeft(r[1:], " \t\n")
		}
		if w == "sort" {
			if strings.HasPrefix(r, "@") {
				return true
			}
			k := 0
			for k < len(r) && perlIdentByte(r[k]) {
				k++
			}
			switch r[:k] {
			case "keys", "values", "map", "grep", "split", "reverse":
				return true // a built-in that returns a list, never a sub name
			}
			return false // "sort x @F" calls the sub main::x
		}
		switch {
		case r == "" || r[0] == ';' || r[0] == ')' || r[0] == '/' || strings.HasPrefix(r, "m/"):
			return true
		case r[0] == '\'' || r[0] == '"':
			// A string literal: no interpolation, no \N{...}, \p{...} or
			// (?{...}) in it.
			for k := 1; k < len(r); k++ {
				switch r[k] {
				case '\\':
					k++
				case r[0]:
					return true
				case '{', '$', '@':
					return false
				}
			}
		}
		return false
	case "my", "our":
		switch {
		case strings.HasPrefix(r, "("):
			k := strings.IndexByte(r, ')')
			if k < 0 || strings.IndexByte(r[1:k], '(') >= 0 {
				return false
			}
			r = r[k+1:]
		case strings.HasPrefix(r, "$") || strings.HasPrefix(r, "@"):
			k, ok := perlVariable(r, 0)
			if !ok {
				return false
			}
			r = r[k:]
		default:
			return false
		}
		return !strings.HasPrefix(strings.TrimLeft(r, " \t\n"), ":")
	}
	return true
}

// perlQuoted reads m/.../flags, s/.../.../flags (from the first "/" at
// code[j]) or /.../ and returns the index after it.
func perlQuoted(code string, j int, subst bool) (int, bool) {
	parts := 1
	if subst {
		parts = 2
	}
	k := j + 1
	for p := 0; p < parts; p++ {
		start := k
		for k < len(code) && code[k] != '/' {
			if code[k] == '\\' {
				k++
			}
			k++
		}
		if k >= len(code) {
			return 0, false
		}
		if !perlInterpolation(code[start:k], p == 0) {
			return 0, false
		}
		k++
	}
	for k < len(code) && strings.IndexByte("msixpgcnr", code[k]) >= 0 {
		k++
	}
	if k < len(code) && perlIdentByte(code[k]) {
		return 0, false // the e flag, or any other
	}
	return k, true
}

// perlInterpolation checks the body of a string or pattern: variables are
// plain ($x, @x, $F[1]), no code is interpolated, no named character or
// property is looked up, and a pattern holds no code block.
func perlInterpolation(body string, pattern bool) bool {
	n := len(body)
	for i := 0; i < n; i++ {
		c := body[i]
		switch c {
		case '\\':
			if i+1 < n && strings.IndexByte("NpPgkx", body[i+1]) >= 0 && i+2 < n && body[i+2] == '{' {
				return false
			}
			if i+1 < n && (body[i+1] == 'p' || body[i+1] == 'P') {
				return false
			}
			i++
		case '(':
			if pattern && i+1 < n && (body[i+1] == '?' || body[i+1] == '*') {
				r := body[i+1:]
				if !strings.HasPrefix(r, "?:") && !strings.HasPrefix(r, "?=") && !strings.HasPrefix(r, "?!") &&
					!strings.HasPrefix(r, "?<=") && !strings.HasPrefix(r, "?<!") {
					return false
				}
			}
		case '$', '@':
			if i+1 >= n {
				continue // a literal $ or @ at the end
			}
			d := body[i+1]
			if pattern && c == '$' && (d == ')' || d == '|') {
				continue // an anchor
			}
			if c == '@' && !perlIdentByte(d) && strings.IndexByte("{$:'+-", d) < 0 {
				continue // a literal @ (@{, @$, @::, @'x, @1, @- and @+ interpolate)
			}
			if pattern {
				// A variable makes the pattern one compiled at run time from
				// its value, where \N{...} loads a module.
				return false
			}
			j, ok := perlVariable(body, i)
			if !ok {
				return false
			}
			if j < n && (body[j] == '[' || body[j] == '{' || body[j] == '-' && j+1 < n && body[j+1] == '>') {
				return false // a subscript or a dereference interpolates code ("$x[1][system(1)]")
			}
			i = j - 1
		}
	}
	return true
}
