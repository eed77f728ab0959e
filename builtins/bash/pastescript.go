package bash

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A sh -c script that find -exec/-execdir or xargs -I completes by pasting
// a path into its text (find . -exec sh -c 'file -b {} | grep -q x' \;,
// find . | xargs -I{} sh -c 'echo {}; ls {}'): the names become shell
// code, so a file named '$(rm -rf ~)' or 'a;curl x|sh' would run
// (docs/shell.md, "Values and where they come from"). It is judged as the
// script with each pasted path a word that is one path under find's roots
// when (1) every name that can be pasted is known at decision time and is
// made of shellInertByte bytes (checked by the supplier: frame.pasteNames),
// and (2) every place find or xargs pastes into (each occurrence of the
// placeholder in the text, left to right, as both replace it) is literal
// text of an argument of a simple command, where such bytes stay plain
// text in bash's and dash's grammar (pastedScript). The script is then
// walked once with pasteMark at those places, which the leaves judge as
// pathMark (leaf.go), never once per name.

// pasteMark stands, in the script walked, for each place a path is pasted
// into: a byte no script holds (pastedScript refuses one that does) and
// that quote removal cannot make, so the leaves replace exactly the places
// find or xargs paste into (a "{}" made by quote removal, {"}"}, is no
// such place: neither replaces it).
const pasteMark = "\x02"

// shellInertByte reports whether a byte is plain text wherever
// pastedScript lets a path be pasted: letters, digits and ". _ / - + , @
// %". Not a blank or newline (word and command separators), not
// "; & | < > ( )" (operators), quotes, "\", "$", "`" (expansions), "* ? ["
// (globs), "{ }" (brace expansion, with ","), "~" (a tilde prefix: ~root),
// "=" and ":" (assignments and their tildes; HOST:FILE for tar), "#" (a
// comment at a word's start), "!" (negation, history) nor any byte beyond
// ASCII. A leading "-" cannot reach a word's start: every pasted path
// starts with a starting point that cannot start with "-" or with "./".
func shellInertByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._/-+,@%", c) >= 0
}

// shellInertText reports whether every byte of s is shellInertByte.
func shellInertText(s string) bool {
	for i := 0; i < len(s); i++ {
		if !shellInertByte(s[i]) {
			return false
		}
	}
	return s != ""
}

// pasteCommandsRefused are programs in whose words pastedScript pastes no
// path although the vocabulary judges them: the walker reads their words
// itself (as names, arithmetic, directories, scripts or code: the wrapper
// table and the shells are refused separately) before the leaf replaces
// the pasted place.
var pasteCommandsRefused = map[string]bool{
	"let": true, "read": true, "printf": true, "wait": true, "unset": true, "mapfile": true, "readarray": true,
	"compgen": true, "complete": true, "declare": true, "typeset": true, "local": true, "export": true,
	"readonly": true, "getopts": true, "kill": true, "fg": true, "bg": true, "disown": true, "jobs": true,
	"shift": true, "return": true, "exit": true, "break": true, "continue": true, "ulimit": true, "umask": true,
	"bind": true, "fc": true, "history": true, "type": true,
}

// scriptMovesShell are commands that change the directory or the commands
// of the shell running the script, after which a pasted relative path
// (./a, found under the directory the script starts in) names another
// file, or a later command another program.
var scriptMovesShell = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "source": true, ".": true, "eval": true, "exec": true, "trap": true,
	"alias": true, "unalias": true, "enable": true, "builtin": true, "command": true, "shopt": true, "set": true,
	"hash": true,
}

// pastedScript returns src with each place find -exec or xargs -I pastes
// into (each occurrence of ph, left to right, not overlapping) replaced by
// pasteMark, or why a path pasted there may not stay one word of plain
// text (or the script may change what a relative path names).
func (w *walker) pastedScript(src, ph string) (string, string) {
	if ph == "" || strings.Contains(src, pasteMark) || strings.Contains(src, dyn) {
		return "", "the script holds a control character"
	}
	f, err := w.parseScript(src)
	if err != nil || f == nil {
		return "", "the script does not parse"
	}
	// sites are the byte ranges of src where a pasted path stays literal
	// text of one argument word (start, end).
	var sites [][2]int
	why := ""
	refuse := func(r string) bool {
		why = firstNonEmpty(why, r)
		return false
	}
	whole := walkAST(f, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.FuncDecl:
			return refuse("the script defines a function")
		case *syntax.SglQuoted:
			if n.Dollar {
				return refuse("the script holds $'…', whose escapes make any byte")
			}
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			name, ok := literalText(n.Args[0])
			if !ok {
				return refuse("the script runs a command whose name is only known at run time")
			}
			base := path.Base(name)
			if scriptMovesShell[base] {
				return refuse("the script runs " + base + ", after which a pasted path may name another file")
			}
			// find in the script: no -exec of its own, whose {} the
			// pasted text also fills.
			if base == "find" {
				for _, a := range n.Args[1:] {
					v, ok := looseLiteral(a)
					if !ok || strings.HasPrefix(v, "-exec") || strings.HasPrefix(v, "-ok") {
						return refuse("a find in the script may run commands")
					}
				}
			} else if wrappers[base] != nil || shells[base] || pasteCommandsRefused[base] || scriptReaders[base] != nil {
				// Their words are not pasted into below: a place there
				// is then no site, and the script is refused.
				return true
			}
			for _, a := range n.Args[1:] {
				sites = append(sites, pasteSitesOf(src, a)...)
			}
		}
		return true
	})
	if !whole {
		why = firstNonEmpty(why, "the script is nested too deep to read every command")
	}
	if why != "" {
		return "", why
	}
	var b strings.Builder
	at := 0
	for {
		i := strings.Index(src[at:], ph)
		if i < 0 {
			break
		}
		start, end := at+i, at+i+len(ph)
		inSite := false
		for _, s := range sites {
			if s[0] <= start && end <= s[1] {
				inSite = true
				break
			}
		}
		if !inSite {
			return "", "the script holds " + strconv.Quote(ph) + " where a pasted path would not be one word of plain text (offset " + strconv.Itoa(start) + ")"
		}
		if end < len(src) && strings.IndexByte("(<>", src[end]) >= 0 {
			// a@(x): an extended glob; 2>x: a descriptor.
			return "", "the script holds " + strconv.Quote(ph) + " before " + strconv.Quote(src[end:end+1])
		}
		if start > 0 && src[start-1] == '$' {
			// a$% with -I%: $b/x once pasted, a parameter.
			return "", "the script holds " + strconv.Quote(ph) + " after \"$\""
		}
		b.WriteString(src[at:start])
		b.WriteString(pasteMark)
		at = end
	}
	b.WriteString(src[at:])
	return b.String(), ""
}

// pasteSitesOf returns the byte ranges of src within an argument word
// where pasted shellInertByte text stays literal text of that one word: a
// literal part (unquoted, or in "…" or '…') with no backslash, in a word
// that holds no unquoted "~" (a tilde prefix), brace or glob character
// (brace expansion, a glob the pasted text would join; the "{}" pairs
// find and xargs replace are no braces once replaced) and is not a
// parameter expansion's neighbour on its left ($x{} would read $x./a as
// one name when the path starts with a letter) nor right before a
// redirection ({}2>x: 52>x, a descriptor). $"…" (a translation, expanded
// again) holds no site.
func pasteSitesOf(src string, wd *syntax.Word) [][2]int {
	if e := int(wd.End().Offset()); e < len(src) && (src[e] == '<' || src[e] == '>') {
		// {}2>x: 52>x once pasted, a descriptor.
		return nil
	}
	for _, p := range wd.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if !onlyPlaceholders(p.Value) {
				return nil
			}
		case *syntax.ExtGlob:
			return nil
		}
	}
	var sites [][2]int
	lit := func(l *syntax.Lit, prev syntax.WordPart) {
		if strings.ContainsRune(l.Value, '\\') {
			return
		}
		if pe, ok := prev.(*syntax.ParamExp); ok && pe.Short {
			return
		}
		s, e := int(l.Pos().Offset()), int(l.End().Offset())
		if s < 0 || e > len(src) || s > e || src[s:e] != l.Value {
			return
		}
		sites = append(sites, [2]int{s, e})
	}
	var prev syntax.WordPart
	for _, p := range wd.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			lit(p, prev)
		case *syntax.SglQuoted:
			if !p.Dollar {
				s, e := int(p.Pos().Offset())+1, int(p.End().Offset())-1
				if s >= 0 && e <= len(src) && s <= e && src[s:e] == p.Value {
					sites = append(sites, [2]int{s, e})
				}
			}
		case *syntax.DblQuoted:
			if !p.Dollar {
				var q syntax.WordPart
				for _, dp := range p.Parts {
					if l, ok := dp.(*syntax.Lit); ok {
						lit(l, q)
					}
					q = dp
				}
			}
		}
		prev = p
	}
	return sites
}

// onlyPlaceholders reports whether the only "~ { } * ? [" bytes of an
// unquoted literal are the "{}" pairs find and xargs replace by default.
func onlyPlaceholders(v string) bool {
	return !strings.ContainsAny(strings.ReplaceAll(v, "{}", ""), "~{}*?[")
}

// findNamesInert checks, at decision time, that every path find can hand
// on below its starting points is plain shell text (shellInertText) when
// pasted into a script: each starting point as written, and each name on
// the way to each path the selection sel keeps (findselect.go), down to
// find's -maxdepth (depth is findDepth's), none a FIFO, socket or device.
// The walk and its bounds are plain xargs' (findNamesPlainFor), and so is
// the caveat for names the command itself creates (namesnow.go,
// listedText). "" when they are, else why.
func (w *walker) findNamesInert(words, roots []string, depth int, sel *pathSelection) string {
	for _, r := range words {
		if !shellInertText(r) || strings.HasPrefix(r, "-") {
			return "the starting point " + strconv.Quote(r) + " holds a byte that is shell syntax"
		}
	}
	if depth == 1 {
		return "" // -maxdepth 0: find hands on its starting points only
	}
	if !w.namesNow(listedText) {
		return namesMayChangeWhy
	}
	return w.namesBelowSelected(roots, depth, sel, func(name string) string {
		if !shellInertText(name) {
			return "holds a byte that is shell syntax where find pastes it into a script"
		}
		return ""
	})
}

// sameState reports whether two states name the same directories.
func sameState(a, b state) bool {
	return a.unknown == b.unknown && slices.Equal(a.dirs, b.dirs)
}

// looseLiteral is a word's value after quote removal, backslashes
// included; ok is false when a part is not literal.
func looseLiteral(wd *syntax.Word) (string, bool) {
	var b strings.Builder
	unescape := func(v string, special string) {
		for i := 0; i < len(v); i++ {
			if v[i] == '\\' && i+1 < len(v) && (special == "" || strings.IndexByte(special, v[i+1]) >= 0) {
				i++
			}
			b.WriteByte(v[i])
		}
	}
	for _, p := range wd.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			unescape(p.Value, "")
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				unescape(l.Value, "$`\"\\\n")
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
