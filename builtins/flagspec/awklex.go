package flagspec

// awkOutputRedirect reports whether an awk program may redirect output
// (print > file, print >> file, printf(...) > file), following the POSIX
// grammar that gawk and mawk implement: a ">" is a redirection only in a
// print or printf statement, outside any parentheses opened in it (print
// (a > b) prints a comparison, print (a) > b writes b); everywhere else it
// is a comparison ($4 >= 1000, if ($1 > 3)). Strings, regular expressions
// and comments are skipped. It fails closed (true, with why) where the
// reading is not certain: a "/" that may be a division or a regular
// expression (after ++, --, or a built-in named without parentheses), a
// "/" inside a bracket expression of a regular expression, a string or
// regular expression that does not end on its line. A ">" inside brackets
// in a print statement (print a[x > y], a syntax error to gawk and mawk)
// also counts.
func awkOutputRedirect(prog string) (bool, string) {
	why, _ := awkScan(prog)
	return why != "", why
}

// awkPipes reports whether an awk program has a pipe to or from a command
// (print | "cmd", "cmd" | getline, gawk's |&): a "|" token that is not
// half of "||". A "|" inside a string, a regular expression literal
// (/a|b/ after ~, !~, (, ",", &&, ||, !, or at the start of a pattern) or a
// comment is text. It fails closed (true, with why) where awkOutputRedirect
// does: where the lexing is not certain, a "/" may hide a "|".
func awkPipes(prog string) (bool, string) {
	_, why := awkScan(prog)
	return why != "", why
}

// awkScan lexes an awk program as gawk and mawk do (strings, regular
// expression literals, comments, the division/regular-expression
// ambiguity decided by the token before the "/") and reports whether it
// has an output redirection and a pipe: why each is there, "" when it is
// not. Where the lexing is not certain, both are, with the same why.
func awkScan(prog string) (redirect, pipe string) {
	uncertain := func(why string) (string, string) { return why, why }
	const (
		tOther   = iota // an operator or punctuation: an operand may follow
		tOperand        // a name, number, string, ")" or "]": an operator follows
		tAmbig          // ++, --, or a built-in that may go without parentheses
	)
	prev := tOther
	depth := 0
	// conds marks, per open parenthesis, one that holds the condition of
	// if, while or for: after it a "/" may start a regular expression
	// (if (x) /re/) as well as a division.
	var conds []bool
	lastKeyword := ""
	inPrint, printDepth := false, 0
	for i := 0; i < len(prog); {
		c := prog[i]
		switch {
		case c == '\\' && i+1 < len(prog) && prog[i+1] == '\n':
			i += 2 // a continued line
			continue
		case c == '\\' && i+2 < len(prog) && prog[i+1] == '\r' && prog[i+2] == '\n':
			i += 3
			continue
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '#':
			for i < len(prog) && prog[i] != '\n' {
				i++
			}
			continue
		case c == '\n':
			// A newline ends a print statement once an operand ended
			// it (print a\n); after "," or an operator the list goes on.
			if inPrint && depth == printDepth && prev == tOperand {
				inPrint = false
			}
			i++
			prev = tOther
			continue
		case c == '"':
			j := i + 1
			for ; j < len(prog) && prog[j] != '"'; j++ {
				if prog[j] == '\\' {
					j++
				} else if prog[j] == '\n' {
					return uncertain("a string that does not end on its line")
				}
			}
			if j >= len(prog) {
				return uncertain("a string that does not end")
			}
			i = j + 1
			prev = tOperand
			continue
		case c == '/' && prev != tOperand:
			if prev == tAmbig {
				return uncertain("a \"/\" that may be a division or a regular expression")
			}
			j := i + 1
			inBracket := false
			for ; j < len(prog); j++ {
				d := prog[j]
				if d == '\n' {
					return uncertain("a regular expression that does not end on its line")
				}
				if d == '\\' {
					j++
					continue
				}
				if inBracket {
					if d == ']' {
						inBracket = false
					} else if d == '/' {
						return uncertain("a \"/\" inside a bracket expression")
					}
					continue
				}
				if d == '[' {
					inBracket = true
					// A "]" right after "[" or "[^" is a literal.
					if j+1 < len(prog) && prog[j+1] == '^' {
						j++
					}
					if j+1 < len(prog) && prog[j+1] == ']' {
						j++
					}
					continue
				}
				if d == '/' {
					break
				}
			}
			if j >= len(prog) {
				return uncertain("a regular expression that does not end")
			}
			i = j + 1
			prev = tOperand
			continue
		case isIdentStart(c):
			j := i
			for j < len(prog) && (isIdentStart(prog[j]) || prog[j] >= '0' && prog[j] <= '9') {
				j++
			}
			name := prog[i:j]
			i = j
			lastKeyword = name
			switch name {
			case "print", "printf":
				if !inPrint {
					inPrint, printDepth = true, depth
				}
				prev = tOther
			case "length", "getline":
				prev = tAmbig
			case "in", "return", "case", "if", "while", "for", "do", "else", "delete", "exit", "next", "nextfile":
				prev = tOther
			default:
				prev = tOperand
			}
			continue
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(prog) && prog[i+1] >= '0' && prog[i+1] <= '9':
			j := i
			for j < len(prog) && (isIdentStart(prog[j]) || prog[j] >= '0' && prog[j] <= '9' || prog[j] == '.') {
				j++
			}
			i = j
			prev = tOperand
			continue
		}
		// Punctuation and operators.
		switch c {
		case '(':
			depth++
			conds = append(conds, prev == tOther && (lastKeyword == "if" || lastKeyword == "while" || lastKeyword == "for"))
			prev = tOther
		case ')':
			depth--
			prev = tOperand
			if n := len(conds); n > 0 {
				if conds[n-1] {
					prev = tAmbig
				}
				conds = conds[:n-1]
			}
		case ']':
			prev = tOperand
		case ';', '}', '{':
			if depth <= printDepth {
				inPrint = false
			}
			prev = tOther
		case '>':
			if inPrint && depth <= printDepth {
				redirect = "print > writes a file"
			}
			prev = tOther
		case '|':
			if i+1 < len(prog) && prog[i+1] == '|' {
				i += 2 // a logical or
				prev = tOther
				continue
			}
			// print | "cmd", "cmd" | getline, gawk's |&.
			pipe = "a pipe runs a command"
			prev = tOther
		case '+', '-':
			if i+1 < len(prog) && prog[i+1] == c {
				i += 2
				prev = tAmbig
				continue
			}
			prev = tOther
		case '$':
			prev = tOther
		default:
			prev = tOther
		}
		i++
	}
	return redirect, pipe
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
