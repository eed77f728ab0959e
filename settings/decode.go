package settings

// decode.go: one settings file's bytes into a tree of values, each with
// the line and column where it starts (the fileDoc reader, file.go, and
// `permopa rules lint` read it); syntax errors are in syntax.go.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	toml "github.com/pelletier/go-toml/v2"
	yaml "go.yaml.in/yaml/v3"
)

// position is where a key or value starts in its file: line and column from 1,
// columns counting characters. Zero when not known (TOML files, the
// environment).
type position struct{ Line, Column int }

type nodeKind int

const (
	scalarNode nodeKind = iota
	mapNode
	listNode
)

// node is one decoded value and where it starts.
type node struct {
	position
	kind   nodeKind
	value  any     // a scalar: string, bool, int, float64, time.Time, nil
	keys   []*node // a map's keys (string scalars), in the file's order
	values []*node // a map's values, parallel to keys
	items  []*node // a list's items
}

func (n *node) key(i int) string { s, _ := n.keys[i].value.(string); return s }

// get is the value of key k, as written (case-sensitive), or nil.
func (n *node) get(k string) *node {
	if n == nil || n.kind != mapNode {
		return nil
	}
	for i := range n.keys {
		if n.key(i) == k {
			return n.values[i]
		}
	}
	return nil
}

// find is the value at path, keys compared without case and a key
// holding dots ("permissions.allow") standing for the path it spells, the
// longest such key first: how the settings have always been read (viper's
// rules, docs/rules.md). nil when absent.
func (n *node) find(path ...string) *node {
	if len(path) == 0 {
		return n
	}
	if n == nil || n.kind != mapNode {
		return nil
	}
	for j := len(path); j > 0; j-- {
		want := strings.Join(path[:j], ".")
		for i := range n.keys {
			if strings.EqualFold(n.key(i), want) {
				if v := n.values[i].find(path[j:]...); v != nil {
					return v
				}
			}
		}
	}
	return nil
}

// plain is the value as the format's decoder gives it: maps, lists, scalars.
func (n *node) plain() any {
	switch n.kind {
	case mapNode:
		m := make(map[string]any, len(n.keys))
		for i := range n.keys {
			m[n.key(i)] = n.values[i].plain()
		}
		return m
	case listNode:
		out := make([]any, len(n.items))
		for i, it := range n.items {
			out[i] = it.plain()
		}
		return out
	}
	return n.value
}

// kindName names what the node holds, for messages.
func (n *node) kindName() string {
	switch n.kind {
	case mapNode:
		return "a map"
	case listNode:
		return "a list"
	}
	switch n.value.(type) {
	case nil:
		return "nothing"
	case string:
		return "a string"
	case bool:
		return "true or false"
	}
	return "a number or date"
}

// decodeTree decodes data, a settings file in format ("json", "toml",
// else YAML), into its tree: one map, empty for an empty file. The error is
// a *SyntaxError naming file, line and column.
func decodeTree(file, format string, data []byte) (*node, error) {
	root := &node{kind: mapNode}
	if len(bytes.TrimSpace(data)) == 0 {
		return root, nil
	}
	var err error
	switch format {
	case "json":
		root, err = jsonTree(data)
	case "toml":
		doc := map[string]any{}
		if err = toml.Unmarshal(data, &doc); err == nil {
			root = plainTree(doc)
		}
	default:
		var n yaml.Node
		if err = yaml.Unmarshal(data, &n); err == nil {
			root, err = yamlTree(&n)
		}
	}
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			se.File = file
			return nil, se
		}
		return nil, syntaxError(file, format, data, err)
	}
	if root.kind != mapNode {
		if root.kind == scalarNode && root.value == nil {
			return &node{kind: mapNode}, nil // YAML's "~" or only comments
		}
		return nil, &SyntaxError{File: file, Line: root.Line, Column: root.Column,
			Err: fmt.Errorf("not valid %s: the settings must be one map of keys, not %s", formatName(format), root.kindName())}
	}
	// The keys read without case must be given once in any case
	// ("Permissions" and "permissions": which one was meant is not known).
	for _, m := range []*node{root, root.get("permissions"), root.get("dangerous_paths")} {
		if err := foldedDuplicate(format, m); err != nil {
			err.File = file
			return nil, err
		}
		if m != nil && m == root.get("dangerous_paths") && m.kind == mapNode {
			for _, v := range m.values {
				if err := foldedDuplicate(format, v); err != nil {
					err.File = file
					return nil, err
				}
			}
		}
	}
	return root, nil
}

// foldedDuplicate is a key of map m given twice, case aside.
func foldedDuplicate(format string, m *node) *SyntaxError {
	if m == nil || m.kind != mapNode {
		return nil
	}
	seen := map[string]position{}
	for i, k := range m.keys {
		low := strings.ToLower(m.key(i))
		if first, dup := seen[low]; dup && k.position != (position{}) {
			err, _ := duplicateKey(format, low, k.position, first).(*SyntaxError)
			return err
		}
		seen[low] = k.position
	}
	return nil
}

func formatName(format string) string {
	if format == "json" || format == "toml" {
		return format
	}
	return "yaml"
}

// duplicateKey is a key given twice in one map: the file is not read
// (which of the two was meant is not known; YAML refuses it, and a JSON
// file whose second "permissions" hides the first's deny rules must not
// pass for the first).
func duplicateKey(format, key string, at, first position) error {
	return &SyntaxError{Line: at.Line, Column: at.Column,
		Err: fmt.Errorf("not valid %s: key %s given twice (first at %d:%d)", formatName(format), shownKey(key), first.Line, first.Column)}
}

// shownKey is a key as a message may show it: a key permopa knows, quoted;
// any other is not repeated (the file may not be settings at all).
func shownKey(k string) string {
	if knownKey(k) {
		return strconv.Quote(k)
	}
	return "(…)"
}

// yamlTree is the tree of a YAML node, aliases resolved and merge keys
// ("<<") applied as the YAML decoder applies them (the map's own keys win).
func yamlTree(n *yaml.Node) (*node, error) {
	pos := position{n.Line, n.Column}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return &node{kind: mapNode}, nil
		}
		return yamlTree(n.Content[0])
	case yaml.AliasNode:
		t, err := yamlTree(n.Alias)
		if err != nil {
			return nil, err
		}
		c := *t
		c.position = pos
		return &c, nil
	case yaml.SequenceNode:
		t := &node{position: pos, kind: listNode}
		for _, c := range n.Content {
			it, err := yamlTree(c)
			if err != nil {
				return nil, err
			}
			t.items = append(t.items, it)
		}
		return t, nil
	case yaml.MappingNode:
		t := &node{position: pos, kind: mapNode}
		seen := map[string]position{}
		var merges []*node
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			v, err := yamlTree(vn)
			if err != nil {
				return nil, err
			}
			if kn.Kind == yaml.ScalarNode && kn.ShortTag() == "!!merge" {
				merges = append(merges, v)
				continue
			}
			kp := position{kn.Line, kn.Column}
			if kn.Kind != yaml.ScalarNode {
				return nil, &SyntaxError{Line: kp.Line, Column: kp.Column, Err: errors.New("not valid yaml: a key must be a word, not a list or map")}
			}
			if first, dup := seen[kn.Value]; dup {
				return nil, duplicateKey("yaml", kn.Value, kp, first)
			}
			seen[kn.Value] = kp
			t.keys = append(t.keys, &node{position: kp, value: kn.Value})
			t.values = append(t.values, v)
		}
		for _, m := range merges {
			maps := []*node{m}
			if m.kind == listNode {
				maps = m.items
			}
			for _, mm := range maps {
				if mm.kind != mapNode {
					return nil, &SyntaxError{Line: mm.Line, Column: mm.Column, Err: errors.New("not valid yaml: a merge key (<<) takes a map or a list of maps")}
				}
				for i, k := range mm.keys {
					if _, set := seen[mm.key(i)]; !set {
						seen[mm.key(i)] = k.position
						t.keys = append(t.keys, k)
						t.values = append(t.values, mm.values[i])
					}
				}
			}
		}
		return t, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	return &node{position: pos, value: v}, nil
}

// plainTree is the tree of a decoded document without positions (TOML's,
// the environment's).
func plainTree(x any) *node {
	switch v := x.(type) {
	case map[string]any:
		t := &node{kind: mapNode}
		for _, k := range sortedKeys(v) {
			t.keys = append(t.keys, &node{value: k})
			t.values = append(t.values, plainTree(v[k]))
		}
		return t
	case []any:
		t := &node{kind: listNode}
		for _, e := range v {
			t.items = append(t.items, plainTree(e))
		}
		return t
	case []map[string]any: // TOML arrays of tables
		t := &node{kind: listNode}
		for _, e := range v {
			t.items = append(t.items, plainTree(e))
		}
		return t
	}
	return &node{value: x}
}

// jsonTree decodes a JSON document: encoding/json checks it (its errors
// carry the byte offset), then a walk of its tokens records where each key
// and value starts.
func jsonTree(data []byte) (*node, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	w := jsonWalker{dec: json.NewDecoder(bytes.NewReader(data)), data: data}
	return w.value()
}

type jsonWalker struct {
	dec  *json.Decoder
	data []byte
}

// pos is where the next token starts, from the decoder's offset (which
// is after the last token and before the separators that follow it).
func (w *jsonWalker) pos() position {
	off := skipJSONSpace(w.data, w.dec.InputOffset())
	line, col := lineCol(w.data, off+1)
	return position{line, col}
}

func (w *jsonWalker) value() (*node, error) {
	pos := w.pos()
	tok, err := w.dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return &node{position: pos, value: tok}, nil
	}
	switch d {
	case '{':
		t := &node{position: pos, kind: mapNode}
		seen := map[string]position{}
		for w.dec.More() {
			kp := w.pos()
			kt, err := w.dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			if first, dup := seen[k]; dup {
				return nil, duplicateKey("json", k, kp, first)
			}
			seen[k] = kp
			v, err := w.value()
			if err != nil {
				return nil, err
			}
			t.keys = append(t.keys, &node{position: kp, value: k})
			t.values = append(t.values, v)
		}
		_, err := w.dec.Token()
		return t, err
	default: // '['
		t := &node{position: pos, kind: listNode}
		for w.dec.More() {
			v, err := w.value()
			if err != nil {
				return nil, err
			}
			t.items = append(t.items, v)
		}
		_, err := w.dec.Token()
		return t, err
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

// lineCol is the line and column (from 1, counting characters) of the
// byte before offset off of data: encoding/json's SyntaxError.Offset is
// the number of bytes read, the offending one included.
func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 1), int64(len(data)))
	if len(data) == 0 {
		return 1, 1
	}
	at := off - 1 // the byte itself
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	return bytes.Count(data[:at], []byte("\n")) + 1, utf8.RuneCount(data[start:at]) + 1
}

// treePositions maps the keys of a tree to where they start:
// "permissions.allow" and "permissions.allow.2" (the third rule), keys
// without case, for trust.go's left-out settings.
func treePositions(n *node, path string, out map[string]position) {
	switch n.kind {
	case mapNode:
		for i, k := range n.keys {
			p := join(path, n.key(i))
			out[p] = k.position
			treePositions(n.values[i], p, out)
		}
	case listNode:
		for i, it := range n.items {
			p := join(path, strconv.Itoa(i))
			out[p] = it.position
			treePositions(it, p, out)
		}
	}
}

func join(prefix, key string) string {
	key = strings.ToLower(key)
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}
