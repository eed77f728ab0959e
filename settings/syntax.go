package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	toml "github.com/pelletier/go-toml/v2"
	yaml2 "go.yaml.in/yaml/v2"
	yaml "go.yaml.in/yaml/v3"
)

// syntax.go: a settings file that does not parse, named by file, line and
// column, the way compilers do: "settings FILE:LINE:COL: not valid yaml:
// what (found TOKEN)" (docs/usage.md "Rules").

// syntaxError turns a decoder's error for data, the contents of file in
// format ("json", "toml", else YAML), into one that names the place. Like
// parseError, it quotes nothing of the file: a file that is not settings (a
// key behind a renamed path) must not leak into messages.
func syntaxError(file, format string, data []byte, err error) error {
	line, col, msg, found := 0, 0, err.Error(), ""
	switch format {
	case "json":
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line, col = lineCol(data, se.Offset)
			msg = "json: " + se.Error()
		case errors.As(err, &te):
			line, col = lineCol(data, te.Offset)
			msg = "json: the settings must be one object, not a JSON " + te.Value
		case errors.Is(err, io.ErrUnexpectedEOF):
			line, col = endOf(data)
			msg = "json: the file ends inside a value"
		}
	case "toml":
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col = de.Position()
			msg = "toml: " + strings.TrimPrefix(de.Error(), "toml: ")
		}
	default:
		if off, ok := yamlErrorOffset(data, err); ok {
			msg = "yaml: " + yamlProblem(err)
			tok := tokenAt(data, off)
			switch {
			case strings.Contains(msg, "end of stream"):
				// What is never closed, where it opens.
				tok += " never closed"
			case strings.Contains(msg, "did not find expected ',' or"):
				// Inside a flow list or map the end of the file fails like
				// the token the parser stumbled on. When a "," after the
				// shortest failing prefix mends it, the prefix failed for
				// its end: the token is the next one; else it is the
				// prefix's last token ("a" "b": the "b").
				// The older decoder names the token's line: a token on a
				// later line is that line's first.
				var n yaml.Node
				if l2, _ := yamlPosition(data, err); l2 > bytes.Count(data[:off], []byte("\n"))+1 {
					off = lineStart(data, l2)
				} else if e := yaml.Unmarshal(append(data[:off+1:off+1], ','), &n); e != nil && e.Error() == err.Error() {
					off = tokenStart(data, off)
				} else {
					off = nextToken(data, off+1)
				}
				tok = tokenAt(data, off)
			}
			line, col = lineCol(data, int64(off)+1)
			found = " (found " + tok + ")"
			break
		}
		// The offset cannot be told: the line, and the line's first token.
		line, msg = yamlPosition(data, err)
		if line > 0 {
			if c, tok := yamlToken(data, line, msg); c > 0 {
				// Shown as is: yamlToken shows nothing of the file's own.
				col, found = c, " (found "+tok+")"
			}
		}
	}
	kind := format
	if kind != "json" && kind != "toml" {
		kind = "yaml"
	}
	msg = strings.TrimPrefix(msg, kind+": ")
	perr := parseError(kind, errors.New(msg))
	if found != "" {
		perr = errors.New(perr.Error() + found)
	}
	return &SyntaxError{File: file, Line: line, Column: col, Err: perr}
}

// SyntaxError is a settings file that does not parse, with the line and
// column of the mistake where the parser knows them (0 when not): "settings
// FILE:LINE:COL: not valid json: ...".
type SyntaxError struct {
	File         string
	Line, Column int
	Err          error // "not valid FORMAT: what", with no text of the file but syntax tokens
}

func (e *SyntaxError) Error() string {
	where := "settings " + e.File
	if e.Line > 0 {
		where += ":" + strconv.Itoa(e.Line)
		if e.Column > 0 {
			where += ":" + strconv.Itoa(e.Column)
		}
	}
	return where + ": " + e.Err.Error()
}

func (e *SyntaxError) Unwrap() error { return e.Err }

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlPosition finds the line of a YAML syntax error. The YAML decoder the
// settings use reports the line where the enclosing block starts ("line 1:
// did not find expected key" for a mistake on line 6); the older decoder
// of the same family reports the line of the problem itself, counted from
// 0 for parser errors (from 1 for scanner errors), so it is asked again.
func yamlPosition(data []byte, err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var v any
	err2 := yaml2.Unmarshal(data, &v)
	if err2 == nil {
		// Not a syntax error (a type error or a duplicate key: the
		// message names its line).
		return 0, "yaml: " + msg
	}
	m := yamlLine.FindStringSubmatch(err2.Error())
	if m == nil {
		return 0, "yaml: " + msg
	}
	line, _ := strconv.Atoi(m[1])
	problem := m[2]
	if strings.HasPrefix(problem, "did not find expected") || strings.HasPrefix(problem, "found duplicate %") ||
		strings.HasPrefix(problem, "found incompatible YAML document") || strings.HasPrefix(problem, "found undefined tag handle") {
		line++
	}
	if n := bytes.Count(data, []byte("\n")) + 1; line > n {
		line = n
	}
	return line, "yaml: " + problem
}

// yamlToken is where on line (from 1) of data the YAML token the error msg
// stumbled on starts, and that token as a message may show it: the YAML
// decoders give a line only. It is the line's first token, or for
// "mapping values are not allowed" the colon after the first key. Only
// syntax characters and the keys permopa knows are shown; any other word
// is named by its kind, so that a file that is not settings (a key behind
// a renamed path) does not leak into messages. 0 when the token cannot be
// told: a flow list or map's mistake inside one line.
func yamlToken(data []byte, line int, msg string) (int, string) {
	lines := strings.Split(string(data), "\n")
	if line > len(lines) {
		return 0, "the end of the file"
	}
	text := strings.TrimRight(lines[line-1], "\r")
	col := len(text) - len(strings.TrimLeft(text, " "))
	if strings.Contains(msg, "',' or ']'") || strings.Contains(msg, "',' or '}'") {
		// A list or map in brackets not closed: on an earlier line (then
		// this line's first token is where the parser stumbled), or on
		// this one, somewhere inside it.
		var v any
		if yaml2.Unmarshal([]byte(strings.Join(lines[:line-1], "\n")), &v) == nil {
			return 0, ""
		}
	}
	if strings.Contains(msg, "mapping values are not allowed") {
		// The first "key:" is fine; the next ": " is the mistake.
		if i := strings.Index(text, ": "); i >= 0 {
			if j := strings.Index(text[i+2:], ":"); j >= 0 {
				return i + 2 + j + 1, "`:`"
			}
		}
	}
	if col == len(text) {
		if line == len(lines) || strings.TrimSpace(strings.Join(lines[line:], "")) == "" {
			return col + 1, "the end of the file"
		}
		return col + 1, "the end of the line"
	}
	switch c := text[col]; {
	case c == '\t':
		return col + 1, "a tab (YAML indents with spaces)"
	case strings.IndexByte("[]{},:-?|>#&*!%@`\"'", c) >= 0:
		return col + 1, "`" + string(c) + "`"
	}
	word := text[col:]
	if i := strings.IndexAny(word, " :,[]{}#"); i >= 0 {
		word = word[:i]
	}
	if knownKey(word) {
		return col + 1, "`" + word + "`"
	}
	return col + 1, "a word that is no settings key"
}

// knownKey says whether word is a key of a settings file, permopa's or
// Claude Code's (lint.go).
func knownKey(word string) bool {
	for _, keys := range []map[string]bool{topKeys, claudeTopKeys, permissionsKeys, ruleObjectKeys, pathEditKeys} {
		if keys[word] {
			return true
		}
	}
	switch word {
	case "files", "directories", "code_running":
		return true
	}
	return false
}

// yamlErrorOffset is the offset in data of the character the YAML decoder
// stumbled on: its errors give a line only (often the line where the
// enclosing block starts). The decoder reads its input in order, so the
// shortest prefix of data that fails with the same error ends with that
// character (a token's first character, the ":" after a key, a tab, a quote
// never closed); it is found by bisection over character boundaries and
// checked (the prefix one character shorter must not fail so). false when
// the check fails.
func yamlErrorOffset(data []byte, err error) (int, bool) {
	want := err.Error()
	fails := func(k int) bool {
		var n yaml.Node
		e := yaml.Unmarshal(data[:k], &n)
		return e != nil && e.Error() == want
	}
	boundary := func(k int) int {
		for k < len(data) && !utf8.RuneStart(data[k]) {
			k++
		}
		return k
	}
	if !fails(len(data)) {
		return 0, false // not a syntax error (a duplicate key, a type)
	}
	lo, hi := 0, len(data) // fails(hi); the answer is in (lo, hi]
	// The lines the decoders name bound the search: the line the error
	// names (where its construct starts, or later) and the line the older
	// decoder names (where it stumbled), so a large file is parsed a few
	// times, not twenty.
	if m := yamlLine.FindStringSubmatch(want); m != nil {
		if n, _ := strconv.Atoi(m[1]); n > 2 {
			if c := lineOffset(data, n-1); !fails(c) {
				lo = c
			}
		}
	}
	if l2, _ := yamlPosition(data, err); l2 > 0 {
		if c := lineOffset(data, l2+2); c > lo && c < hi && fails(c) {
			hi = c
		}
	}
	for hi-lo > 1 {
		mid := boundary((lo + hi) / 2)
		if mid >= hi {
			break
		}
		if fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	_, size := utf8.DecodeLastRune(data[:hi])
	if hi == 0 || fails(hi-size) {
		return 0, false
	}
	return hi - size, true
}

// yamlProblem is the YAML decoder's message without its "yaml: line N:".
func yamlProblem(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch("yaml: " + msg); m != nil {
		return m[2]
	}
	return msg
}

// tokenAt names the character at off of data as a message may show it: a
// tab, a syntax character, a key permopa knows, else the kind of word (a
// file that is not settings must not leak into messages).
func tokenAt(data []byte, off int) string {
	if off >= len(data) {
		return "the end of the file"
	}
	switch c := data[off]; {
	case c == '\t':
		return "a tab (YAML indents with spaces)"
	case c == '\n' || c == '\r':
		return "the end of the line"
	case strings.IndexByte("[]{},:-?|>#&*!%@`\"'", c) >= 0:
		return "`" + string(c) + "`"
	}
	word := string(data[off:])
	if i := strings.IndexAny(word, " \t\r\n:,[]{}#"); i >= 0 {
		word = word[:i]
	}
	if knownKey(word) {
		return "`" + word + "`"
	}
	return "a word that is no settings key"
}

// endOf is the line and column just after the last character of data.
func endOf(data []byte) (int, int) {
	start := bytes.LastIndexByte(data, '\n') + 1
	return bytes.Count(data, []byte("\n")) + 1, utf8.RuneCount(data[start:]) + 1
}

// nextToken is the offset of the first character at or after off that is
// neither white space nor in a comment.
func nextToken(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n':
			off++
		case '#':
			for off < len(data) && data[off] != '\n' {
				off++
			}
		default:
			return off
		}
	}
	return off
}

// tokenStart is where the flow token ending at off starts: a quoted
// scalar's opening quote, else the start of the word.
func tokenStart(data []byte, off int) int {
	if q := data[off]; q == '"' || q == '\'' {
		if i := bytes.LastIndexByte(data[:off], q); i >= 0 {
			return i
		}
		return off
	}
	for off > 0 && strings.IndexByte(" \t\r\n,[]{}", data[off-1]) < 0 {
		off--
	}
	return off
}

// lineStart is the offset of the first character of line (from 1) that
// is not a space.
func lineStart(data []byte, line int) int {
	off := lineOffset(data, line)
	for off < len(data) && data[off] == ' ' {
		off++
	}
	return off
}

// lineOffset is the offset of the start of line (from 1) of data, or its
// length when it has fewer lines.
func lineOffset(data []byte, line int) int {
	off := 0
	for i := 1; i < line; i++ {
		j := bytes.IndexByte(data[off:], '\n')
		if j < 0 {
			return len(data)
		}
		off += j + 1
	}
	return off
}
