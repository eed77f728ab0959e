package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	yaml2 "go.yaml.in/yaml/v2"
	yaml "go.yaml.in/yaml/v3"
)

// Settings errors name the file, the line (and column where the parser
// knows it) and the key, the way compilers do: "settings FILE:LINE:COL:
// what" for a file that does not parse, "FILE:LINE: KEY: what" for a value
// that cannot be read (docs/usage.md "Rules").

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
			line, col = lineCol(data, int64(len(data)))
			msg = "json: the file ends inside a value"
		}
	case "toml":
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col = de.Position()
			msg = "toml: " + strings.TrimPrefix(de.Error(), "toml: ")
		}
	default:
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

// lineCol converts a byte offset of data to a 1-based line and column.
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	if col == 0 {
		col = 1
	}
	return line, col
}

// keyLines maps the keys of a settings document to the line they start
// on: "permissions.allow" and "permissions.allow.2" (the third rule), as
// written in the file. Keys are compared without case ("defaultmode").
// Empty for TOML and for a document it cannot read.
func keyLines(format string, data []byte) map[string]int {
	out := map[string]int{}
	switch format {
	case "toml":
	case "json":
		dec := json.NewDecoder(bytes.NewReader(data))
		jsonLines(dec, data, "", out)
	default:
		var n yaml.Node
		if yaml.Unmarshal(data, &n) == nil && len(n.Content) > 0 {
			yamlLines(n.Content[0], "", out)
		}
	}
	return out
}

func join(prefix, key string) string {
	key = strings.ToLower(key)
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func yamlLines(n *yaml.Node, path string, out map[string]int) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := join(path, n.Content[i].Value)
			out[k] = n.Content[i].Line
			yamlLines(n.Content[i+1], k, out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			k := join(path, strconv.Itoa(i))
			out[k] = c.Line
			yamlLines(c, k, out)
		}
	}
}

// jsonLines walks one JSON value from dec, recording where each key and
// array element starts.
func jsonLines(dec *json.Decoder, data []byte, path string, out map[string]int) {
	tok, err := dec.Token()
	if err != nil {
		return
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return
	}
	switch d {
	case '{':
		for dec.More() {
			off := dec.InputOffset()
			kt, err := dec.Token()
			if err != nil {
				return
			}
			key, _ := kt.(string)
			k := join(path, key)
			out[k], _ = lineCol(data, skipJSONSpace(data, off))
			jsonLines(dec, data, k, out)
		}
		_, _ = dec.Token()
	case '[':
		for i := 0; dec.More(); i++ {
			k := join(path, strconv.Itoa(i))
			out[k], _ = lineCol(data, skipJSONSpace(data, dec.InputOffset()))
			jsonLines(dec, data, k, out)
		}
		_, _ = dec.Token()
	}
}

// skipJSONSpace moves off past whitespace and the separators the decoder
// has not consumed yet, to where the next value starts.
func skipJSONSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off
}

// placeProblems sets the line of each problem of file from its key.
func placeProblems(problems []error, file string, lines map[string]int) {
	for _, e := range problems {
		var p *Problem
		if !errors.As(e, &p) || p.File != file || p.Line > 0 {
			continue
		}
		switch p.Kind {
		case CheckInvalidRule:
			p.Line = lines[join(strings.ToLower(p.Key), strconv.Itoa(p.index))]
			if p.Line == 0 {
				p.Line = lines[strings.ToLower(p.Key)]
			}
		case CheckInvalidValue:
			p.Line = lines[strings.ToLower(p.Key)]
		}
	}
}
