package paths

import (
	"fmt"
	"github.com/permopa/permopa/builtins/claudepattern"
	"strings"
	"unicode/utf8"
)

// FnmatchPrefix marks a file-rule pattern that matches the way AgentScope
// matches Read, Write and Edit rules (Python's fnmatch on POSIX): "*"
// matches any run of characters, "/" included, "?" one character, "[...]"
// a class ("[!...]" its complement, "]" first is literal); nothing else is
// special, there is no escape character, and the match is case-sensitive
// and anchored at both ends. The engine gives rules that arrive as
// AgentScope objects this prefix; docs/rules.md has the table.
const FnmatchPrefix = "fnmatch:"

// fnmatch is a compiled fnmatch pattern.
type fnmatch struct {
	toks []fnTok
	// lit is set when the pattern has no wildcard: it matches itself only.
	lit    string
	isLit  bool
	folded bool
}

type fnKind uint8

const (
	fnChar  fnKind = iota // one literal rune
	fnAny                 // ?
	fnStar                // *
	fnClass               // [...]
)

type fnTok struct {
	kind   fnKind
	r      rune
	neg    bool
	ranges []rune // pairs lo, hi
}

// compileFnmatch compiles p as Python's fnmatch.translate reads it. A "["
// without its "]" is a literal "[", as in Python. fold lower-cases the
// pattern (the subject must then be lower-cased too).
func compileFnmatch(p string, fold bool) (*fnmatch, error) {
	if !utf8.ValidString(p) {
		return nil, fmt.Errorf("pattern %q: not valid UTF-8", p)
	}
	if fold {
		p = strings.ToLower(p)
	}
	f := &fnmatch{folded: fold}
	if !strings.ContainsAny(p, "*?[") {
		f.lit, f.isLit = p, true
		return f, nil
	}
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			// Consecutive stars are one star.
			if n := len(f.toks); n > 0 && f.toks[n-1].kind == fnStar {
				continue
			}
			f.toks = append(f.toks, fnTok{kind: fnStar})
		case '?':
			f.toks = append(f.toks, fnTok{kind: fnAny})
		case '[':
			j := i + 1
			if j < len(rs) && rs[j] == '!' {
				j++
			}
			if j < len(rs) && rs[j] == ']' {
				j++
			}
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) {
				f.toks = append(f.toks, fnTok{kind: fnChar, r: '['})
				continue
			}
			body := rs[i+1 : j]
			t := fnTok{kind: fnClass}
			if len(body) > 0 && body[0] == '!' {
				t.neg, body = true, body[1:]
			}
			for k := 0; k < len(body); k++ {
				lo, hi := body[k], body[k]
				if k+2 < len(body) && body[k+1] == '-' {
					hi = body[k+2]
					k += 2
				}
				if lo <= hi { // Python drops reversed ranges
					t.ranges = append(t.ranges, lo, hi)
				}
			}
			f.toks = append(f.toks, t)
			i = j
		default:
			f.toks = append(f.toks, fnTok{kind: fnChar, r: c})
		}
	}
	return f, nil
}

func (t *fnTok) class(r rune) bool {
	in := false
	for k := 0; k < len(t.ranges); k += 2 {
		if t.ranges[k] <= r && r <= t.ranges[k+1] {
			in = true
			break
		}
	}
	return in != t.neg
}

// match reports whether s matches the whole pattern. The star search keeps
// one backtracking point (the last star), so it is linear in practice and
// never exponential.
func (f *fnmatch) match(s string) bool {
	if f.folded {
		s = strings.ToLower(s)
	}
	if f.isLit {
		return s == f.lit
	}
	rs := []rune(s)
	ti, si := 0, 0
	star, mark := -1, 0
	for si < len(rs) {
		if ti < len(f.toks) {
			t := &f.toks[ti]
			switch {
			case t.kind == fnStar:
				star, mark = ti, si
				ti++
				continue
			case t.kind == fnAny,
				t.kind == fnChar && t.r == rs[si],
				t.kind == fnClass && t.class(rs[si]):
				ti++
				si++
				continue
			}
		}
		if star < 0 {
			return false
		}
		mark++
		ti, si = star+1, mark
	}
	for ti < len(f.toks) && f.toks[ti].kind == fnStar {
		ti++
	}
	return ti == len(f.toks)
}

// FnmatchToClaude rewrites an fnmatch pattern as the Claude Code path-rule
// pattern that covers the same files, when there is one
// (claudepattern.FromFnmatch, a package of its own so that the hook client
// links no user database lookup).
func FnmatchToClaude(p string) (string, bool) { return claudepattern.FromFnmatch(p) }
