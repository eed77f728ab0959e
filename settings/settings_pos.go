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
	line, col, msg := 0, 0, err.Error()
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
	}
	kind := format
	if kind != "json" && kind != "toml" {
		kind = "yaml"
	}
	msg = strings.TrimPrefix(msg, kind+": ")
	return &SyntaxError{File: file, Line: line, Column: col, Err: parseError(kind, errors.New(msg))}
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

// KeyProblem is a settings value that could not be read (an unknown mode, a
// lock outside managed settings, a bad dangerous_paths entry) and was left
// out; the other settings of the file are kept.
type KeyProblem struct {
	Where string // the file, or the environment variable
	Line  int    // the line of the key in the file, 0 when not known
	Key   string // permissions.defaultMode, dangerous_paths, ...
	Err   error
}

func (p *KeyProblem) Error() string { return at(p.Where, p.Line) + ": " + p.Key + ": " + p.Err.Error() }

func (p *KeyProblem) Unwrap() error { return p.Err }

func at(where string, line int) string {
	if line > 0 {
		return where + ":" + strconv.Itoa(line)
	}
	return where
}

// placeProblems sets the line of each problem of file from its key.
func placeProblems(problems []error, file string, lines map[string]int) {
	for _, p := range problems {
		var rp *RuleProblem
		var kp *KeyProblem
		switch {
		case errors.As(p, &rp) && rp.Where == file:
			rp.Line = lines[join(strings.ToLower(rp.Key), strconv.Itoa(rp.Index))]
			if rp.Line == 0 {
				rp.Line = lines[strings.ToLower(rp.Key)]
			}
		case errors.As(p, &kp) && kp.Where == file:
			kp.Line = lines[strings.ToLower(kp.Key)]
		}
	}
}
