package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// jsonObject is a JSON object that keeps its keys in the order they were
// read, so that `permopa install` rewrites a host's settings file with the
// user's keys where they were (docs/hosts.md, Installing).
//
// It also keeps the text it was read from: an object nothing changed in is
// written back as it was read (raw), and so is every array or scalar member
// that was not set again (raws), so that install and uninstall change the
// lines of permopa's hooks and leave the user's formatting elsewhere.
type jsonObject struct {
	keys []string
	vals map[string]any // values: *jsonObject, []any, string, json.Number, bool, nil
	// raw is the object's text as read (nil: made here); raws the text of
	// members that are not objects, as read.
	raw   []byte
	raws  map[string][]byte
	dirty bool // a key was set or deleted since it was read
}

func newJSONObject() *jsonObject { return &jsonObject{vals: map[string]any{}} }

// maxJSONDepth bounds the nesting of a host settings file: the hosts'
// own files nest a few levels; a deeper one is refused, naming the file,
// rather than read, diffed and written at a cost that grows with the
// square of its size.
const maxJSONDepth = 64

func (o *jsonObject) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *jsonObject) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
	delete(o.raws, k)
	o.dirty = true
}

func (o *jsonObject) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	delete(o.raws, k)
	o.dirty = true
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// parseJSONObject reads a settings file: one JSON object. Comments are not
// JSON: a file with them is refused rather than rewritten without them.
func parseJSONObject(data []byte) (*jsonObject, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return newJSONObject(), nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readJSONValue(dec, data, 0)
	if err != nil {
		err = positioned(data, dec, err)
		if bytes.Contains(data, []byte("//")) || bytes.Contains(data, []byte("/*")) {
			return nil, fmt.Errorf("%v (the file seems to have comments, which permopa would not keep: add the hooks by hand as docs/hosts.md shows)", err)
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, positioned(data, dec, errDataAfter)
	}
	obj, ok := v.(*jsonObject)
	if !ok {
		return nil, errors.New("1:1: the settings file is not a JSON object")
	}
	return obj, nil
}

// readJSONValue reads one value; data is the whole text, for the raw
// text of what it reads.
func readJSONValue(dec *json.Decoder, data []byte, depth int) (any, error) {
	if depth >= maxJSONDepth {
		return nil, fmt.Errorf("nested deeper than %d levels: permopa does not edit it", maxJSONDepth)
	}
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := newJSONObject()
			obj.raws = map[string][]byte{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", kt)
				}
				vstart := dec.InputOffset()
				v, err := readJSONValue(dec, data, depth+1)
				if err != nil {
					return nil, err
				}
				obj.set(k, v)
				if _, isObj := v.(*jsonObject); !isObj {
					obj.raws[k] = rawText(data, vstart, dec.InputOffset())
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			obj.raw, obj.dirty = rawText(data, start, dec.InputOffset()), false
			return obj, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := readJSONValue(dec, data, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// rawText is data[from:to] without the separators and white space before
// the value (the decoder's offsets come after the previous token).
func rawText(data []byte, from, to int64) []byte {
	return bytes.TrimLeft(data[from:to], " \t\r\n:,")
}

var errDataAfter = errors.New("data after the JSON object")

// positioned adds the line and column (from 1, counting characters) of a
// syntax error to err. The decoder's offsets while reading tokens are
// relative to the value it was reading, so the position is taken from
// encoding/json's own check of the whole text, whose Offset counts the
// bytes read, the offending one included.
func positioned(data []byte, dec *json.Decoder, err error) error {
	off := min(dec.InputOffset(), int64(len(data)))
	var v any
	var se *json.SyntaxError
	syntax := errors.As(err, &se) || err == io.ErrUnexpectedEOF || err == io.EOF || err == errDataAfter
	if !syntax {
		// Our own refusal (nested too deep): where the decoder stopped.
	} else if uerr := json.Unmarshal(data, &v); errors.As(uerr, &se) {
		off, err = se.Offset-1, se
		if se.Offset >= int64(len(data)) && strings.HasPrefix(se.Error(), "unexpected end") {
			off = int64(len(data))
		}
	}
	off = max(off, 0)
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := 1 + utf8.RuneCount(data[bytes.LastIndexByte(data[:off], '\n')+1:off])
	if err == io.ErrUnexpectedEOF || err == io.EOF || syntax && off == int64(len(data)) {
		err = errors.New("unexpected end of the file")
	}
	return fmt.Errorf("%d:%d: %v", line, col, err)
}

// changed reports whether anything in v was set or deleted since it was
// read, marking every object on the way (so that each is looked at once).
func changed(v any) bool {
	switch x := v.(type) {
	case *jsonObject:
		for _, k := range x.keys {
			if _, kept := x.raws[k]; kept {
				continue // a member read as is and never set again
			}
			if changed(x.vals[k]) {
				x.dirty = true
			}
		}
		return x.dirty || x.raw == nil
	case []any:
		// Arrays are not kept as read (only ones set again reach here);
		// the objects in them are.
		for _, e := range x {
			changed(e)
		}
		return true
	}
	return true
}

// indentOf is the indentation unit of a settings file's text: the white
// space before its first key, else two spaces (as the hosts write).
func indentOf(data []byte) string {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		return "  "
	}
	rest := data[i+1:]
	n := 0
	for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
		n++
	}
	if n == 0 || n >= len(rest) || rest[n] != '"' {
		return "  "
	}
	return string(rest[:n])
}

// encode writes v as indented JSON (two spaces, as the hosts write theirs).
func encodeJSON(v any) []byte {
	return encodeJSONIndent(v, "  ")
}

// encodeJSONIndent writes v indented by unit, with every object nothing
// changed in and every member not set again as it was read.
func encodeJSONIndent(v any, unit string) []byte {
	changed(v)
	var b bytes.Buffer
	writeJSON(&b, v, 0, unit)
	b.WriteByte('\n')
	return b.Bytes()
}

func writeJSON(b *bytes.Buffer, v any, depth int, unit string) {
	ind := strings.Repeat(unit, depth+1)
	end := strings.Repeat(unit, depth)
	switch x := v.(type) {
	case *jsonObject:
		if !x.dirty && x.raw != nil {
			b.Write(x.raw)
			return
		}
		if len(x.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range x.keys {
			b.WriteString(ind)
			writeScalar(b, k)
			b.WriteString(": ")
			if raw, ok := x.raws[k]; ok {
				b.Write(raw)
			} else {
				writeJSON(b, x.vals[k], depth+1, unit)
			}
			if i < len(x.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(end + "}")
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range x {
			b.WriteString(ind)
			writeJSON(b, e, depth+1, unit)
			if i < len(x)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(end + "]")
	default:
		writeScalar(b, x)
	}
}

func writeScalar(b *bytes.Buffer, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	b.Write(bytes.TrimRight(buf.Bytes(), "\n"))
}

// toOrdered turns plain JSON values (maps from encoding/json) into
// jsonObjects with the given key order first.
func ordered(pairs ...any) *jsonObject {
	o := newJSONObject()
	for i := 0; i+1 < len(pairs); i += 2 {
		o.set(pairs[i].(string), pairs[i+1])
	}
	return o
}
