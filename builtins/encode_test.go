package builtins

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/builtins/bash"
)

// The Rego value of an analysis is its JSON form, except that every field is
// present and nil slices are empty arrays.
func TestAnalysisEncoding(t *testing.T) {
	a := &bash.Analysis{
		Analysable: true,
		Reasons:    []string{"r"},
		Leaves: []bash.Leaf{{
			Argv: []string{"git", "status"}, Program: "git", ReadOnly: true,
			Reads: []string{"/repo"},
		}, {Argv: []string{"rm", "x"}, Program: "rm", Reason: "writes", Writes: []string{"/repo/x"}, FSCommand: true}},
		Dangerous: []bash.Hit{{Pattern: "rm -rf", Leaf: 1, Detail: "d"}},
		Truncated: true,
	}
	got := analysisTerm(a).Value

	bs, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var viaJSON any
	if err := json.Unmarshal(bs, &viaJSON); err != nil {
		t.Fatal(err)
	}
	fillDefaults(viaJSON, reflect.TypeFor[bash.Analysis]())
	want := ast.MustInterfaceToValue(viaJSON)
	if got.Compare(want) != 0 {
		t.Errorf("encoded analysis\n got %v\nwant %v", got, want)
	}
	// Cached by pointer.
	if again := analysisTerm(a).Value; again != got {
		t.Error("second conversion of the same analysis was not cached")
	}
}

// fillDefaults adds what json omits (omitempty) and turns null slices into
// empty arrays, following t.
func fillDefaults(x any, t reflect.Type) any {
	switch t.Kind() {
	case reflect.Struct:
		m := x.(map[string]any)
		for i := range t.NumField() {
			f := t.Field(i)
			name := jsonName(f)
			if name == "" {
				continue
			}
			v, ok := m[name]
			if !ok || v == nil {
				v = reflect.Zero(f.Type).Interface()
				if f.Type.Kind() == reflect.Slice {
					v = []any{}
				}
				bs, _ := json.Marshal(v)
				_ = json.Unmarshal(bs, &v)
			}
			m[name] = fillDefaults(v, f.Type)
		}
		return m
	case reflect.Slice:
		s := x.([]any)
		for i := range s {
			s[i] = fillDefaults(s[i], t.Elem())
		}
		return s
	}
	return x
}

// The declared type of permopa.bash.analyze lists every field of Analysis.
func TestAnalysisType(t *testing.T) {
	res := BashAnalyze.Decl.NamedResult()
	if res == nil {
		t.Fatal("no result type")
	}
	bs, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"read_only", "leaves", "allow_argv", "fs_command", "critical_removals", "pattern"} {
		if !strings.Contains(string(bs), `"`+name+`"`) {
			t.Errorf("declared result type lacks %s: %s", name, bs)
		}
	}
}
