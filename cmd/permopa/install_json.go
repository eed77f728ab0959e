package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// jsonObject is a JSON object that keeps its keys in the order they were
// read, so that `permopa install` rewrites a host's settings file with the
// user's keys where they were (docs/hosts.md, Installing).
type jsonObject struct {
	keys []string
	vals map[string]any // values: *jsonObject, []any, string, json.Number, bool, nil
}

func newJSONObject() *jsonObject { return &jsonObject{vals: map[string]any{}} }

func (o *jsonObject) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *jsonObject) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *jsonObject) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
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
	v, err := readJSONValue(dec)
	if err != nil {
		if bytes.Contains(data, []byte("//")) || bytes.Contains(data, []byte("/*")) {
			return nil, fmt.Errorf("%v (the file seems to have comments, which permopa would not keep: add the hooks by hand as docs/hosts.md shows)", err)
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	obj, ok := v.(*jsonObject)
	if !ok {
		return nil, errors.New("the settings file is not a JSON object")
	}
	return obj, nil
}

func readJSONValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := newJSONObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", kt)
				}
				v, err := readJSONValue(dec)
				if err != nil {
					return nil, err
				}
				obj.set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return obj, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := readJSONValue(dec)
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

// encode writes v as indented JSON (two spaces, as the hosts write theirs).
func encodeJSON(v any) []byte {
	var b bytes.Buffer
	writeJSON(&b, v, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func writeJSON(b *bytes.Buffer, v any, depth int) {
	ind := strings.Repeat("  ", depth+1)
	end := strings.Repeat("  ", depth)
	switch x := v.(type) {
	case *jsonObject:
		if len(x.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range x.keys {
			b.WriteString(ind)
			writeScalar(b, k)
			b.WriteString(": ")
			writeJSON(b, x.vals[k], depth+1)
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
			writeJSON(b, e, depth+1)
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
