package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
)

// parseInput turns a JSON input (DecideJSON, `permopa decide` lines) into
// the OPA value the query reads, in one pass over the bytes: no
// map[string]any in between (BENCHMARKS.md, "Per line of permopa decide").
// The value is the one ast.ValueFromReader gives: duplicate keys keep the
// last value, numbers keep their text, strings are decoded as
// encoding/json decodes them (invalid UTF-8 becomes U+FFFD). Anything the
// fast path does not take exactly as it is (a document json.Valid refuses,
// trailing data, a number OPA refuses) goes to ast.ValueFromReader, so the
// errors are its errors.
func parseInput(doc []byte) (ast.Value, error) {
	if json.Valid(doc) {
		p := jsonParser{b: doc, s: string(doc)}
		if t, err := p.value(); err == nil {
			if p.skipSpace(); p.i == len(p.b) {
				return t.Value, nil
			}
		}
	}
	return ast.ValueFromReader(bytes.NewReader(doc))
}

// errFallback sends a document to the general path.
var errFallback = errors.New("not taken by the fast JSON path")

// jsonParser reads a document json.Valid has accepted: it still checks
// every byte it relies on and gives up (errFallback) on anything else, so
// a mistake in it can only cost speed, never change a value.
type jsonParser struct {
	b []byte
	s string // b once, for the strings to share instead of one copy each
	i int
	// terms is where the terms are allocated, a chunk at a time.
	terms []ast.Term
}

// term makes a term of v from the current chunk.
func (p *jsonParser) term(v ast.Value) *ast.Term {
	if len(p.terms) == cap(p.terms) {
		p.terms = make([]ast.Term, 0, 32)
	}
	p.terms = append(p.terms, ast.Term{Value: v})
	return &p.terms[len(p.terms)-1]
}

func (p *jsonParser) skipSpace() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value() (*ast.Term, error) {
	p.skipSpace()
	if p.i >= len(p.b) {
		return nil, errFallback
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return p.term(ast.InternedValue(s)), nil
	case c == 't' && bytes.HasPrefix(p.b[p.i:], []byte("true")):
		p.i += 4
		return ast.InternedTerm(true), nil
	case c == 'f' && bytes.HasPrefix(p.b[p.i:], []byte("false")):
		p.i += 5
		return ast.InternedTerm(false), nil
	case c == 'n' && bytes.HasPrefix(p.b[p.i:], []byte("null")):
		p.i += 4
		return p.term(ast.NullValue), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, errFallback
}

func (p *jsonParser) number() (*ast.Term, error) {
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			p.i++
			continue
		}
		break
	}
	s := string(p.b[start:p.i])
	// As ast.InterfaceToValue takes a json.Number.
	if t := ast.InternedIntNumberTermFromString(s); t != nil {
		return t, nil
	}
	n, err := ast.NumberChecked(s)
	if err != nil {
		return nil, err
	}
	return p.term(n), nil
}

// str reads a string at p.i. Plain strings (no escape, valid UTF-8) are
// their bytes; the others are decoded by encoding/json itself.
func (p *jsonParser) str() (string, error) {
	start := p.i
	plain := true
	for i := start + 1; i < len(p.b); i++ {
		switch c := p.b[i]; {
		case c == '"':
			p.i = i + 1
			raw := p.b[start:p.i]
			if plain && utf8.Valid(raw) {
				return p.s[start+1 : i], nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", errFallback
			}
			return s, nil
		case c == '\\':
			plain = false
			i++
		case c < 0x20:
			return "", errFallback
		}
	}
	return "", errFallback
}

func (p *jsonParser) array() (*ast.Term, error) {
	p.i++ // [
	var elems []*ast.Term
	p.skipSpace()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return p.term(ast.NewArray()), nil
	}
	for {
		t, err := p.value()
		if err != nil {
			return nil, err
		}
		elems = append(elems, t)
		p.skipSpace()
		if p.i >= len(p.b) {
			return nil, errFallback
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return p.term(ast.NewArray(elems...)), nil
		default:
			return nil, errFallback
		}
	}
}

// object keeps the last value of a key given twice, as encoding/json does
// decoding into a map. The pairs are made unique before ast.NewObject:
// replacing a key in an OPA object rehashes the whole object, which many
// repeated keys would turn quadratic.
func (p *jsonParser) object() (*ast.Term, error) {
	p.i++ // {
	var pairs [][2]*ast.Term
	var index map[string]int // key → position in pairs, for larger objects
	p.skipSpace()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return p.term(ast.NewObject()), nil
	}
	for {
		p.skipSpace()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, errFallback
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, errFallback
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		at := -1
		switch {
		case index != nil:
			if j, ok := index[k]; ok {
				at = j
			}
		case len(pairs) >= 16:
			index = make(map[string]int, 2*len(pairs))
			for j, kv := range pairs {
				index[string(kv[0].Value.(ast.String))] = j
			}
			if j, ok := index[k]; ok {
				at = j
			}
		default:
			for j, kv := range pairs {
				if string(kv[0].Value.(ast.String)) == k {
					at = j
					break
				}
			}
		}
		if at >= 0 {
			pairs[at][1] = v
		} else {
			if index != nil {
				index[k] = len(pairs)
			}
			pairs = append(pairs, [2]*ast.Term{p.term(ast.InternedValue(k)), v})
		}
		p.skipSpace()
		if p.i >= len(p.b) {
			return nil, errFallback
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return p.term(ast.NewObject(pairs...)), nil
		default:
			return nil, errFallback
		}
	}
}
