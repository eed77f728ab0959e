package bash

import (
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bounded work (doc.go, "Limits"). mvdan.cc/sh parses nested
// constructs by recursion and in time that grows faster than the input
// (30 KB of "$(" took seconds, 400 KB of "((" overflows the goroutine
// stack, which no recover catches). So before anything is parsed, scanLimits
// reads the string once, without allocating, and refuses input beyond the
// hard limits; the parser then reads through guardedReader, which stops it
// when its call stack grows past maxParseFrames whatever the pre-scan
// thought; and the walk counts its own nesting, fields and bytes.

// maxParseFrames bounds the parser's call stack (about 100 levels of
// arithmetic parentheses, 400 of command substitutions).
const maxParseFrames = 3000

// maxPending caps the here-documents waiting for their bodies on one line.
const maxPending = 64

// limit stops the analysis: code is one of the Limit* codes.
func (w *walker) limit(code, detail string) {
	if w.res.LimitExceeded == "" {
		w.res.LimitExceeded = code
	}
	w.res.Truncated = true
	w.stop = true
	w.unanalysable("limit exceeded: " + detail)
}

// maxASTDepth bounds the tree walks over a parsed script. Within the
// other limits a tree is at most about 2*MaxCommands deep (a list nests
// one level per command, arithmetic one per operator); deeper means the
// pre-scan misread the input.
const maxASTDepth = 2*MaxCommands + 8*MaxNesting

// walkAST is syntax.Walk that does not descend deeper than maxASTDepth;
// false when it stopped there.
func walkAST(n syntax.Node, f func(syntax.Node) bool) bool {
	depth, whole := 0, true
	syntax.Walk(n, func(node syntax.Node) bool {
		if node == nil {
			depth--
			return true
		}
		if depth >= maxASTDepth {
			whole = false
			return false
		}
		if !f(node) {
			return false
		}
		depth++
		return true
	})
	return whole
}

// walkAST is walkAST that records the limit when the tree is too deep.
func (w *walker) walkAST(n syntax.Node, f func(syntax.Node) bool) {
	if !walkAST(n, func(node syntax.Node) bool { return !w.stop && f(node) }) {
		w.limit(LimitNesting, limitDetail(LimitNesting))
	}
}

// limitDetail says what a limit code means, for reasons and messages.
func limitDetail(code string) string {
	switch code {
	case LimitLength:
		return "more than " + strconv.Itoa(HardMaxLength) + " bytes to parse"
	case LimitNesting:
		return "more than " + strconv.Itoa(MaxNesting) + " levels of nesting"
	case LimitWords:
		return "more than " + strconv.Itoa(MaxWords) + " words"
	case LimitCommands:
		return "more than " + strconv.Itoa(MaxCommands) + " commands"
	}
	return code
}

// budget charges n bytes of source about to be parsed (the command, nested
// scripts, strings bash evaluates); false when the total passes the limit.
func (w *walker) budget(n int) bool {
	w.parsed += n
	if w.parsed > 2*HardMaxLength {
		w.limit(LimitLength, limitDetail(LimitLength)+" (nested scripts and evaluated strings included)")
		return false
	}
	return true
}

// guardedReader feeds the parser at most one buffer at a time and stops it
// (as a read error) once the parser's call stack is deeper than
// maxParseFrames: between two reads it can only descend by what one buffer
// holds.
type guardedReader struct {
	s       string
	off     int
	tooDeep bool
}

type tooDeepError struct{}

func (tooDeepError) Error() string { return "nesting too deep to parse" }

func (r *guardedReader) Read(p []byte) (int, error) {
	if r.tooDeep {
		return 0, tooDeepError{}
	}
	if r.off >= len(r.s) {
		return 0, io.EOF
	}
	var pc [1]uintptr
	if runtime.Callers(maxParseFrames, pc[:]) > 0 {
		r.tooDeep = true
		return 0, tooDeepError{}
	}
	n := copy(p, r.s[r.off:])
	r.off += n
	return n, nil
}

// guardFrom is the input length from which a parse runs under the guard.
// Shorter input cannot nest deep enough to matter (1 KB of "((" parses in
// about a millisecond), and most commands are shorter: they skip the cost
// of the goroutine the guard needs.
const guardFrom = 1024

// parseWith runs one parse through the pool. From guardFrom bytes it runs
// on a goroutine of its own, so that guardedReader counts the parser's
// frames and not the caller's (OPA's evaluator is thousands of frames
// deep); a parser stopped by the guard is not returned to the pool.
//
// A carriage return is an ordinary character of a word to bash (only
// space, tab and newline separate words, and "\r\n" is not a newline), while
// mvdan.cc/sh reads it as a blank and drops it before "\n": "git
// status\rrm -rf x" is the two words git and "status\rrm" to bash. The
// parser therefore reads each "\r" as crMark, an ordinary character to it,
// and the words it returns get their "\r" back (restoreCR). Positions in the
// tree are offsets in that text (parsedText).
func parseWith[T any](src string, run func(*syntax.Parser, io.Reader) (T, error)) (v T, err error, deep bool) {
	cr := strings.Contains(src, "\r")
	if cr {
		if strings.Contains(src, crMark) {
			return v, errCRMark, false
		}
		src = parsedText(src)
	}
	if _, script := any(v).(*syntax.File); script && strings.Contains(src, "\\\n") && strings.Contains(src, "#") {
		if src, err = endCommentsAtNewline(src); err != nil {
			return v, err, false
		}
	}
	v, err, deep = parseOnce(src, run)
	if cr && err == nil && !deep {
		restoreCR(any(v))
	}
	return v, err, deep
}

// parseOnce is one parse of src, on a goroutine of its own from guardFrom bytes.
func parseOnce[T any](src string, run func(*syntax.Parser, io.Reader) (T, error)) (v T, err error, deep bool) {
	if len(src) >= guardFrom {
		return parseGuarded(src, run)
	}
	p := parsers.Get().(*syntax.Parser)
	v, err = run(p, strings.NewReader(src))
	parsers.Put(p)
	return v, err, false
}

// endCommentsAtNewline makes every comment of a script end at its line's
// end, as in bash: mvdan.cc/sh reads a backslash-newline inside a comment
// as a line continuation, so that "echo #c\<newline>rm -rf x" would be one
// command "echo rm -rf x" to it while bash runs rm. The backslash that ends
// a comment is blanked (the text keeps its length, so positions stay those
// of src); a comment that ended there may hide another, so this repeats, a
// bounded number of times (more fails the parse).
func endCommentsAtNewline(src string) (string, error) {
	keep := func(p *syntax.Parser, r io.Reader) (*syntax.File, error) {
		syntax.KeepComments(true)(p)
		defer syntax.KeepComments(false)(p)
		return p.Parse(r, "")
	}
	for range maxCommentPasses {
		f, err, deep := parseOnce(src, keep)
		if err != nil || deep {
			return src, nil // the parse proper reports it
		}
		var b []byte
		walkAST(f, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.Comment); ok {
				// The comment's text then holds the backslash-newline.
				if end := int(c.End().Offset()); strings.HasSuffix(c.Text, "\\\n") && end >= 2 && end <= len(src) && src[end-2] == '\\' {
					if b == nil {
						b = []byte(src)
					}
					b[end-2] = ' '
				}
			}
			return true
		})
		if b == nil {
			return src, nil
		}
		src = string(b)
	}
	return "", errCommentPasses
}

// maxCommentPasses bounds endCommentsAtNewline's parses.
const maxCommentPasses = 8

var errCommentPasses = errors.New("comments ending in a backslash hide too many lines")

// crMark stands for a carriage return while mvdan.cc/sh parses (parseWith):
// a noncharacter, which no command has a reason to hold.
const crMark = "\uFDD0"

// errCRMark refuses text holding both a carriage return and crMark (the
// words could not be told apart): the command is a parse error.
var errCRMark = errors.New("the text holds a carriage return and U+FDD0, which permopa reserves for it")

// parsedText is src as the parser reads it: each "\r" as crMark.
func parsedText(src string) string {
	if !strings.Contains(src, "\r") {
		return src
	}
	return strings.ReplaceAll(src, "\r", crMark)
}

// restoreCR gives the words of a parsed tree their carriage returns back.
func restoreCR(n any) {
	node, ok := n.(syntax.Node)
	if !ok || node == nil {
		return
	}
	back := func(s string) string { return strings.ReplaceAll(s, crMark, "\r") }
	walkAST(node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Lit:
			x.Value = back(x.Value)
		case *syntax.SglQuoted:
			x.Value = back(x.Value)
		case *syntax.Comment:
			x.Text = back(x.Text)
		}
		return true
	})
}

// parseGuarded is parseWith for long input, on a goroutine of its own.
func parseGuarded[T any](src string, run func(*syntax.Parser, io.Reader) (T, error)) (v T, err error, deep bool) {
	p := parsers.Get().(*syntax.Parser)
	r := &guardedReader{s: src}
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		v, err = run(p, r)
	}()
	if pv := <-done; pv != nil {
		panic(pv) // analyze's recover reports it as an internal error
	}
	if r.tooDeep {
		var zero T
		return zero, tooDeepError{}, true
	}
	parsers.Put(p)
	return v, err, false
}

func parseFile(p *syntax.Parser, r io.Reader) (*syntax.File, error) { return p.Parse(r, "") }

func parseArithm(p *syntax.Parser, r io.Reader) (syntax.ArithmExpr, error) { return p.Arithmetic(r) }

func parseDocument(p *syntax.Parser, r io.Reader) (*syntax.Word, error) { return p.Document(r) }

// parseScript pre-scans and parses a script (the command, bash -c, eval,
// trap, ...); nil with the limit recorded, or nil with a parse error.
func (w *walker) parseScript(src string) (*syntax.File, error) {
	return parseBounded(w, src, scanScript, parseFile)
}

// parseArithText parses text as bash evaluates it as an arithmetic expression.
func (w *walker) parseArithText(src string) (syntax.ArithmExpr, error) {
	return parseBounded(w, src, scanArith, parseArithm)
}

// parseDocText parses text as bash expands a here-document body or a
// double-quoted string (quotes are not special, expansions are).
func (w *walker) parseDocText(src string) (*syntax.Word, error) {
	return parseBounded(w, src, scanDocument, parseDocument)
}

// parseBounded is every parse of text the walker meets: within the
// command's budget, pre-scanned in its lexing mode, and parsed with the
// stack guard; the zero value with the limit recorded, or with a parse
// error.
func parseBounded[T any](w *walker, src string, mode int, run func(*syntax.Parser, io.Reader) (T, error)) (T, error) {
	var zero T
	if !w.budget(len(src)) {
		return zero, nil
	}
	if code := scanLimits(src, mode); code != "" {
		w.limit(code, limitDetail(code))
		return zero, nil
	}
	x, err, deep := parseWith(src, run)
	if deep {
		w.limit(LimitNesting, limitDetail(LimitNesting))
		return zero, nil
	}
	return x, err
}

// Pre-scan contexts. The pre-scan follows mvdan.cc/sh's lexing closely
// enough that nesting, words and commands are not hidden from it by quotes
// it misreads; where it cannot tell, it takes the reading that counts more.
// Whatever it misses is still bounded by the length limit and the parse guard.
type scanCtx uint8

const (
	cTop      scanCtx = iota
	cParen            // ( subshell, $( <( >( command substitution, array (...)
	cArith            // (( and $(( and a parenthesis inside them
	cParam            // ${ ... }
	cBracket          // $[ ... ] and [ ] inside it
	cBacktick         // ` ... `
	cDQ               // " ... "
	cHdoc             // here-document body with expansions
	cCase             // case ... esac: ) ends a pattern
	cBlock            // { ... }
	cTest             // [[ ... ]]
	cKeyword          // if/while/until/for/select ... fi/done
)

// Starting modes of a pre-scan.
const (
	scanScript   = iota // a shell script
	scanArith           // an arithmetic expression
	scanDocument        // a here-document body
)

type hdocSpec struct {
	delim  string
	dash   bool
	quoted bool
}

type scanner struct {
	src   string
	i     int
	stack [MaxNesting + 1]scanCtx
	n     int // stack depth
	words int
	cmds  int
	// cmdPos: the next word is in command position (keywords count).
	cmdPos bool
	// sep: the last token was a command separator (counts commands once per run).
	sep bool
	// boundary: the previous character ended a word.
	boundary bool
	pending  []hdocSpec
	hdocs    []hdocSpec // bodies being read (cHdoc contexts), innermost last
	code     string
	// letArgs: the words of a let command, arithmetic where << is a shift.
	letArgs bool
	// subscript counts the open [ of the current word (a[1<<2]=x).
	subscript int
}

// scanLimits returns "" when src is within the limits, else the Limit* code.
func scanLimits(src string, mode int) string {
	if len(src) > HardMaxLength {
		return LimitLength
	}
	s := scanner{src: src, cmdPos: true, sep: true, boundary: true}
	switch mode {
	case scanArith:
		s.push(cArith)
	case scanDocument:
		s.hdocs = append(s.hdocs, hdocSpec{delim: "\x00"})
		s.push(cHdoc)
	}
	s.run()
	return s.code
}

func (s *scanner) push(c scanCtx) {
	if s.n >= MaxNesting {
		s.code = LimitNesting
		return
	}
	s.stack[s.n] = c
	s.n++
}

func (s *scanner) top() scanCtx {
	if s.n == 0 {
		return cTop
	}
	return s.stack[s.n-1]
}

func (s *scanner) pop() {
	if s.n > 0 {
		if s.stack[s.n-1] == cHdoc && len(s.hdocs) > 0 {
			s.hdocs = s.hdocs[:len(s.hdocs)-1]
		}
		s.n--
	}
}

// popTo pops down to and including the nearest context of one of kinds,
// if there is one (a closer that ends constructs left open).
func (s *scanner) popTo(kinds ...scanCtx) bool {
	for j := s.n - 1; j >= 0; j-- {
		for _, k := range kinds {
			if s.stack[j] == k {
				for s.n > j {
					s.pop()
				}
				return true
			}
		}
		if s.stack[j] == cDQ || s.stack[j] == cHdoc || s.stack[j] == cBacktick || s.stack[j] == cParam {
			return false
		}
	}
	return false
}

func (s *scanner) word() {
	s.words++
	if s.words > MaxWords {
		s.code = LimitWords
	}
}

func (s *scanner) separator() {
	if !s.sep {
		s.cmds++
		if s.cmds > MaxCommands {
			s.code = LimitCommands
		}
	}
	s.sep = true
	s.cmdPos = true
	s.boundary = true
	s.letArgs = false
	s.subscript = 0
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// delimits reports characters that end an unquoted word.
func delimits(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ';', '&', '|', '(', ')', '<', '>':
		return true
	}
	return false
}

func (s *scanner) run() {
	for s.i < len(s.src) && s.code == "" {
		switch s.top() {
		case cDQ:
			s.quoted('"')
		case cHdoc:
			s.hdocBody()
		case cParam:
			s.param()
		case cBracket:
			s.bracket()
		default:
			s.unquoted()
		}
	}
}

// dollar handles $ at s.i in any context.
func (s *scanner) dollar() {
	if s.i+1 >= len(s.src) {
		s.i++
		return
	}
	switch s.src[s.i+1] {
	case '(':
		if s.i+2 < len(s.src) && s.src[s.i+2] == '(' {
			s.push(cArith)
			s.push(cArith)
			s.i += 3
			return
		}
		s.push(cParen)
		s.cmdPos, s.sep, s.boundary = true, true, true
		s.i += 2
		return
	case '{':
		s.push(cParam)
		s.i += 2
		return
	case '[':
		s.push(cBracket)
		s.i += 2
		return
	case '\'':
		if t := s.top(); t == cDQ || t == cHdoc {
			s.i++
			return
		}
		s.ansiC()
		return
	}
	s.i++
}

// ansiC skips a $'...' string.
func (s *scanner) ansiC() {
	i := s.i + 2
	for i < len(s.src) && s.src[i] != '\'' {
		if s.src[i] == '\\' {
			i++
		}
		i++
	}
	s.i = i + 1
}

// single skips a '...' string.
func (s *scanner) single() {
	j := strings.IndexByte(s.src[s.i+1:], '\'')
	if j < 0 {
		s.i = len(s.src)
		return
	}
	s.i += j + 2
}

// quoted scans inside double quotes (end '"'), or the part other
// quote-like contexts share with them (end -1).
func (s *scanner) quoted(end int) {
	c := s.src[s.i]
	switch c {
	case '\\':
		s.i += 2
	case '$':
		s.dollar()
	case '`':
		s.push(cBacktick)
		s.cmdPos, s.sep, s.boundary = true, true, true
		s.i++
	default:
		if int(c) == end {
			s.pop()
		}
		s.i++
	}
}

func (s *scanner) param() {
	switch s.src[s.i] {
	case '}':
		s.pop()
		s.i++
	case '\'':
		s.single()
	case '"':
		s.push(cDQ)
		s.i++
	default:
		s.quoted(-1)
	}
}

func (s *scanner) bracket() {
	s.arithOperator(s.src[s.i])
	switch s.src[s.i] {
	case ']':
		s.pop()
		s.i++
	case '[':
		s.push(cBracket)
		s.i++
	case '\'':
		s.single()
	case '"':
		s.push(cDQ)
		s.i++
	default:
		s.quoted(-1)
	}
}

// hdocBody scans a here-document body with expansions, line by line.
func (s *scanner) hdocBody() {
	h := s.hdocs[len(s.hdocs)-1]
	if s.i == 0 || s.src[s.i-1] == '\n' {
		if s.delimLine(h) {
			s.pop()
			s.startBodies()
			return
		}
	}
	s.quoted(-1)
}

// delimLine reports whether the line at s.i is h's delimiter, and skips it if so.
func (s *scanner) delimLine(h hdocSpec) bool {
	end := strings.IndexByte(s.src[s.i:], '\n')
	line := s.src[s.i:]
	if end >= 0 {
		line = line[:end]
	}
	if h.dash {
		line = strings.TrimLeft(line, "\t")
	}
	if line != h.delim {
		return false
	}
	if end < 0 {
		s.i = len(s.src)
	} else {
		s.i += end + 1
	}
	return true
}

// startBodies begins the bodies of the here-documents pending at a newline.
func (s *scanner) startBodies() {
	for len(s.pending) > 0 && s.code == "" {
		h := s.pending[0]
		s.pending = s.pending[1:]
		if !h.quoted {
			s.hdocs = append(s.hdocs, h)
			s.push(cHdoc)
			return
		}
		for s.i < len(s.src) && !s.delimLine(h) {
			j := strings.IndexByte(s.src[s.i:], '\n')
			if j < 0 {
				s.i = len(s.src)
				return
			}
			s.i += j + 1
		}
	}
}

// heredoc reads the delimiter after << (s.i is past the operator).
func (s *scanner) heredoc() {
	h := hdocSpec{}
	if s.i < len(s.src) && s.src[s.i] == '-' {
		h.dash = true
		s.i++
	}
	for s.i < len(s.src) && isBlank(s.src[s.i]) {
		s.i++
	}
	var b strings.Builder
	for s.i < len(s.src) {
		c := s.src[s.i]
		if delimits(c) {
			break
		}
		switch c {
		case '\'', '"':
			h.quoted = true
			j := strings.IndexByte(s.src[s.i+1:], c)
			if j < 0 {
				b.WriteString(s.src[s.i+1:])
				s.i = len(s.src)
				continue
			}
			b.WriteString(s.src[s.i+1 : s.i+1+j])
			s.i += j + 2
		case '\\':
			h.quoted = true
			if s.i+1 < len(s.src) {
				b.WriteByte(s.src[s.i+1])
			}
			s.i += 2
		case '$':
			if s.i+1 < len(s.src) && (s.src[s.i+1] == '\'' || s.src[s.i+1] == '"') {
				s.i++ // $'..' and $".." delimiters: quoted
				continue
			}
			b.WriteByte(c)
			s.i++
		default:
			b.WriteByte(c)
			s.i++
		}
	}
	h.delim = b.String()
	s.word()
	if len(s.pending) < maxPending {
		s.pending = append(s.pending, h)
	}
}

// keywords that open, continue or close compound commands.
func (s *scanner) keyword() {
	j := s.i
	for j < len(s.src) && j-s.i < 9 && !delimits(s.src[j]) {
		j++
	}
	kw := ""
	if j == len(s.src) || delimits(s.src[j]) {
		kw = s.src[s.i:j]
	}
	if s.top() == cCase && kw != "esac" {
		kw = "" // a pattern, or a command of a case item
	}
	switch kw {
	case "if", "while", "until":
		s.push(cKeyword)
		s.cmdPos = true
	case "for", "select":
		s.push(cKeyword)
		s.cmdPos = false
	case "case":
		s.push(cCase)
		s.cmdPos = false
	case "{":
		s.push(cBlock)
		s.cmdPos = true
	case "[[":
		s.push(cTest)
		s.cmdPos = false
	case "then", "do", "else", "elif", "!", "time", "coproc":
		s.cmdPos = true
	case "let":
		s.letArgs = true
		s.cmdPos = false
	case "fi", "done":
		if s.top() == cKeyword {
			s.pop()
		}
		s.cmdPos = false
	case "esac":
		if s.top() == cCase {
			s.pop()
		}
		s.cmdPos = false
	case "}":
		if s.top() == cBlock {
			s.pop()
		}
		s.cmdPos = false
	default:
		// Not a keyword: the word is scanned character by character.
		s.cmdPos = false
		return
	}
	s.i = j
}

// unquoted scans shell syntax outside quotes.
func (s *scanner) unquoted() {
	c := s.src[s.i]
	t := s.top()
	if s.boundary && !delimits(c) && c != '#' {
		s.word()
		s.sep = false
		s.boundary = false
		s.subscript = 0
		if s.cmdPos && t != cArith {
			if c >= 'a' && c <= 'z' || c == '{' || c == '}' || c == '[' || c == '!' {
				s.keyword()
				return
			}
			s.cmdPos = false
		}
		if t == cTest && c == ']' && strings.HasPrefix(s.src[s.i:], "]]") {
			s.pop()
			s.i += 2
			return
		}
	}
	switch c {
	case ' ', '\t', '\r':
		s.boundary = true
		s.subscript = 0
		s.i++
	case '\n':
		s.separator()
		s.i++
		if len(s.pending) > 0 {
			s.startBodies()
		}
	case ';', '&', '|':
		s.separator()
		s.i++
	case '<', '>':
		s.boundary = true
		s.i++
		if c == '<' && t != cArith && t != cTest && !s.letArgs && s.subscript == 0 && s.i < len(s.src) && s.src[s.i] == '<' {
			if s.i+1 < len(s.src) && s.src[s.i+1] == '<' {
				s.i += 2 // here-string
				return
			}
			s.i++
			s.heredoc()
		}
	case '(':
		if t == cArith {
			s.push(cArith)
		} else if s.i+1 < len(s.src) && s.src[s.i+1] == '(' {
			s.push(cArith)
			s.push(cArith)
			s.i++
		} else {
			s.push(cParen)
		}
		s.cmdPos, s.sep, s.boundary = true, true, true
		s.i++
	case ')':
		switch t {
		case cParen, cArith:
			s.pop()
		case cCase:
			s.separator()
		default:
			s.popTo(cParen, cArith)
		}
		s.boundary = true
		s.cmdPos = true
		s.i++
	case '#':
		if s.boundary && t != cArith {
			j := strings.IndexByte(s.src[s.i:], '\n')
			if j < 0 {
				s.i = len(s.src)
			} else {
				s.i += j
			}
			return
		}
		s.i++
	case '\\':
		if s.i+1 < len(s.src) && s.src[s.i+1] == '\n' {
			s.i += 2
			return
		}
		s.i += 2
	case '\'':
		s.single()
	case '"':
		s.push(cDQ)
		s.i++
	case '`':
		if t == cBacktick {
			s.pop()
			s.boundary = false
		} else {
			s.push(cBacktick)
			s.cmdPos, s.sep, s.boundary = true, true, true
		}
		s.i++
	case '$':
		s.dollar()
	case '[':
		s.subscript++
		s.i++
	case ']':
		if s.subscript > 0 {
			s.subscript--
		}
		s.i++
	default:
		if t == cArith || s.letArgs || s.subscript > 0 {
			s.arithOperator(c)
		}
		s.i++
	}
}

// arithOperator counts an operator of an arithmetic expression like a
// command: mvdan.cc/sh nests "1+1+1..." one level per operator, as it
// nests a list one level per command.
func (s *scanner) arithOperator(c byte) {
	switch c {
	case '+', '-', '*', '/', '%', '=', '!', '~', '^', ',', '?', ':':
		s.cmds++
		if s.cmds > MaxCommands {
			s.code = LimitCommands
		}
	}
}
