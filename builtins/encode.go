package builtins

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/types"
)

// A Go result struct (the bash Analysis) becomes an OPA object keyed by its
// JSON tags, built directly rather than through a JSON round trip. The
// encoder and the declared Rego type are both derived from the struct once,
// so a field the analyser adds shows up in the built-in's result and in
// capabilities.json without touching this package. Every field is present
// (omitempty is ignored: Rego reads "" rather than undefined), and a nil
// slice is an empty array, never null.

// encoder turns a value of one Go type into a term.
type encoder func(v reflect.Value) *ast.Term

type field struct {
	index int
	key   *ast.Term
	enc   encoder
}

// jsonName returns the JSON key of f, or "" when f is not marshalled.
func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return f.Name
	}
	return name
}

// encoderFor builds the encoder of t; it panics on a kind it does not model,
// which the tests turn into a failure as soon as such a field appears.
func encoderFor(t reflect.Type) encoder {
	switch t.Kind() {
	case reflect.Bool:
		return func(v reflect.Value) *ast.Term { return boolTerm(v.Bool()) }
	case reflect.String:
		return func(v reflect.Value) *ast.Term { return ast.StringTerm(v.String()) }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value) *ast.Term { return ast.InternedTerm(int(v.Int())) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return func(v reflect.Value) *ast.Term { return ast.InternedTerm(int(v.Uint())) }
	case reflect.Float32, reflect.Float64:
		return func(v reflect.Value) *ast.Term { return ast.FloatNumberTerm(v.Float()) }
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return func(v reflect.Value) *ast.Term {
				if v.Len() == 0 {
					return ast.InternedEmptyArray
				}
				ts := make([]*ast.Term, v.Len())
				for i := range ts {
					ts[i] = ast.StringTerm(v.Index(i).String())
				}
				return ast.ArrayTerm(ts...)
			}
		}
		elem := encoderFor(t.Elem())
		return func(v reflect.Value) *ast.Term {
			if v.Len() == 0 {
				return ast.InternedEmptyArray
			}
			ts := make([]*ast.Term, v.Len())
			for i := range ts {
				ts[i] = elem(v.Index(i))
			}
			return ast.ArrayTerm(ts...)
		}
	case reflect.Pointer:
		elem := encoderFor(t.Elem())
		return func(v reflect.Value) *ast.Term {
			if v.IsNil() {
				return ast.NullTerm()
			}
			return elem(v.Elem())
		}
	case reflect.Struct:
		var fs []field
		for i := range t.NumField() {
			f := t.Field(i)
			if name := jsonName(f); name != "" {
				fs = append(fs, field{index: i, key: ast.StringTerm(name), enc: encoderFor(f.Type)})
			}
		}
		return func(v reflect.Value) *ast.Term {
			items := make([][2]*ast.Term, len(fs))
			for i, f := range fs {
				items[i] = [2]*ast.Term{f.key, f.enc(v.Field(f.index))}
			}
			return ast.ObjectTerm(items...)
		}
	}
	panic(fmt.Sprintf("builtins: cannot encode %s (%s) as a Rego value", t, t.Kind()))
}

// typeOf returns the Rego type of what encoderFor(t) produces.
func typeOf(t reflect.Type) types.Type {
	switch t.Kind() {
	case reflect.Bool:
		return types.B
	case reflect.String:
		return types.S
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Float32, reflect.Float64:
		return types.N
	case reflect.Slice:
		return types.NewArray(nil, typeOf(t.Elem()))
	case reflect.Pointer:
		return types.NewAny(types.Nl, typeOf(t.Elem()))
	case reflect.Struct:
		var props []*types.StaticProperty
		for i := range t.NumField() {
			f := t.Field(i)
			if name := jsonName(f); name != "" {
				props = append(props, types.NewStaticProperty(name, typeOf(f.Type)))
			}
		}
		return types.NewObject(props, nil)
	}
	panic(fmt.Sprintf("builtins: no Rego type for %s (%s)", t, t.Kind()))
}
