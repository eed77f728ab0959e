package settings_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	permopa "github.com/permopa/permopa"
	"github.com/permopa/permopa/settings"
)

// TestSchemaMatchesDocument ties schemas/permopa/settings.json and rules.json
// to the Go types whose JSON is the document (settings.Document,
// settings.RuleSet): every field the types encode is a property of the
// schema, with the same JSON type, and every property is a field; a
// field without omitempty is required. A change to either side without
// the other fails here.
func TestSchemaMatchesDocument(t *testing.T) {
	for _, c := range []struct {
		file string
		typ  reflect.Type
	}{
		{"schemas/permopa/settings.json", reflect.TypeFor[settings.Document]()},
		{"schemas/permopa/rules.json", reflect.TypeFor[settings.RuleSet]()},
	} {
		b, err := fs.ReadFile(permopa.Schemas, c.file)
		if err != nil {
			t.Fatal(err)
		}
		var root map[string]any
		if err := json.Unmarshal(b, &root); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		sc := schemaCheck{t: t, root: root, file: c.file}
		sc.check(c.typ, root, "")
	}
}

type schemaCheck struct {
	t    *testing.T
	root map[string]any
	file string
}

// resolve follows a local $ref (#/definitions/x).
func (sc schemaCheck) resolve(s map[string]any) map[string]any {
	ref, ok := s["$ref"].(string)
	if !ok {
		return s
	}
	cur := any(sc.root)
	for _, p := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, _ := cur.(map[string]any)
		cur = m[p]
	}
	out, ok := cur.(map[string]any)
	if !ok {
		sc.t.Fatalf("%s: $ref %s resolves to nothing", sc.file, ref)
	}
	return out
}

func types(s map[string]any) []string {
	switch v := s["type"].(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, x.(string))
		}
		slices.Sort(out)
		return out
	}
	return nil
}

func (sc schemaCheck) check(typ reflect.Type, s map[string]any, at string) {
	t := sc.t
	s = sc.resolve(s)
	want := func(ts ...string) {
		if got := types(s); !slices.Equal(got, ts) {
			t.Errorf("%s %s: schema type %v, the Go type %s encodes %v", sc.file, at, got, typ, ts)
		}
	}
	switch typ.Kind() {
	case reflect.Pointer:
		if typ.Elem().Kind() == reflect.String {
			// *string encodes null when nil (RuleEntry.rule_content).
			want("null", "string")
			return
		}
		// Other pointers are omitempty: absent when nil.
		sc.check(typ.Elem(), s, at)
	case reflect.String:
		want("string")
	case reflect.Bool:
		want("boolean")
	case reflect.Slice:
		want("array")
		items, _ := s["items"].(map[string]any)
		if items == nil {
			t.Errorf("%s %s: array without items", sc.file, at)
			return
		}
		sc.check(typ.Elem(), items, at+"[]")
	case reflect.Map:
		want("object")
		if props, ok := s["properties"].(map[string]any); ok {
			// A map with fixed keys (the behaviors): each key's value.
			for k, p := range props {
				sc.check(typ.Elem(), p.(map[string]any), at+"."+k)
			}
			return
		}
		ap, _ := s["additionalProperties"].(map[string]any)
		if ap == nil {
			t.Errorf("%s %s: a map needs additionalProperties as a schema", sc.file, at)
			return
		}
		sc.check(typ.Elem(), ap, at+".*")
	case reflect.Struct:
		want("object")
		if s["additionalProperties"] != false {
			t.Errorf("%s %s: a struct's object must be closed (additionalProperties: false)", sc.file, at)
		}
		props, _ := s["properties"].(map[string]any)
		var required []string
		for _, r := range s["required"].([]any) {
			required = append(required, r.(string))
		}
		slices.Sort(required)
		var fields, needed []string
		for i := range typ.NumField() {
			f := typ.Field(i)
			tag := f.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fields = append(fields, name)
			if !strings.Contains(opts, "omitempty") {
				needed = append(needed, name)
			}
			p, ok := props[name].(map[string]any)
			if !ok {
				t.Errorf("%s %s: field %s (%s) is not in the schema", sc.file, at, name, f.Name)
				continue
			}
			sc.check(f.Type, p, at+"."+name)
		}
		for k := range props {
			if !slices.Contains(fields, k) {
				t.Errorf("%s %s: property %s is no field of %s", sc.file, at, k, typ)
			}
		}
		slices.Sort(needed)
		if !slices.Equal(needed, required) {
			t.Errorf("%s %s: required %v, the fields always encoded are %v", sc.file, at, required, needed)
		}
	default:
		t.Errorf("%s %s: no schema rule for Go kind %s", sc.file, at, typ.Kind())
	}
}

// TestDocumentsValidateAgainstSchema: documents built from settings
// (every part set, and none) are valid against settings.json and
// rules.json, as OPA's json.match_schema reads them.
func TestDocumentsValidateAgainstSchema(t *testing.T) {
	now := richNow
	for name, c := range map[string]struct {
		file string
		doc  any
	}{
		"rich":        {"schemas/permopa/settings.json", richSettings().DocumentAt(now)},
		"empty":       {"schemas/permopa/settings.json", settings.Settings{Home: "/h", Cwd: "/w"}.DocumentAt(now)},
		"rules":       {"schemas/permopa/rules.json", settings.RulesDocument(richSettings(), now)},
		"empty rules": {"schemas/permopa/rules.json", settings.RulesDocument(settings.Settings{}, now)},
	} {
		if errs := matchSchema(t, c.file, c.doc); len(errs) > 0 {
			t.Errorf("%s: %v", name, errs)
		}
	}
	// And the schema is not vacuous: a document with a misspelt key, or
	// a rule with an unknown behavior, is not.
	bad := asMap(settings.Settings{Home: "/h", Cwd: "/w"}.DocumentAt(now))
	bad["sesion_rules"] = map[string]any{}
	if errs := matchSchema(t, "schemas/permopa/settings.json", bad); len(errs) == 0 {
		t.Error("settings.json accepts a key no Go field has")
	}
}

// matchSchema validates doc (as JSON) against an embedded schema with
// OPA's json.match_schema; it returns the schema's complaints.
func matchSchema(t *testing.T, file string, doc any) []any {
	t.Helper()
	schema, err := fs.ReadFile(permopa.Schemas, file)
	if err != nil {
		t.Fatal(err)
	}
	var in map[string]any
	if err := json.Unmarshal(schema, new(any)); err != nil {
		t.Fatal(err)
	}
	in = map[string]any{"doc": asMap(doc), "schema": string(schema)}
	rs, err := rego.New(rego.Query("r := json.match_schema(input.doc, input.schema)"), rego.Input(in)).Eval(context.Background())
	if err != nil || len(rs) != 1 {
		t.Fatalf("json.match_schema: %v %v", rs, err)
	}
	r := rs[0].Bindings["r"].([]any)
	if r[0] == true {
		return nil
	}
	return r[1].([]any)
}

// jsonKeys are the keys a Go type's JSON encoding can hold, at any depth.
func jsonKeys(typ reflect.Type, out map[string]bool) {
	switch typ.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		jsonKeys(typ.Elem(), out)
	case reflect.Struct:
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" {
				out[name] = true
			}
			jsonKeys(typ.Field(i).Type, out)
		}
	}
}

// TestBuiltinsReadTheDocumentsKeys: the built-ins cannot import the
// settings (they know nothing above them, docs/architecture.md), so
// builtins/rules.go names the document's keys again, as terms built once;
// every document key it names is a key of settings.Document (or a
// behavior), and every input key one of the input schema's properties.
func TestBuiltinsReadTheDocumentsKeys(t *testing.T) {
	src, err := os.ReadFile("../builtins/rules.go")
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{"deny": true, "ask": true, "allow": true}
	jsonKeys(reflect.TypeFor[settings.Document](), keys)
	b, _ := fs.ReadFile(permopa.Schemas, "schemas/permopa/input.json")
	var input struct{ Properties map[string]any }
	if err := json.Unmarshal(b, &input); err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^\s*(\w+)\s*=\s*(?:\[\]\*ast\.Term\{)?((?:ast\.InternedTerm\("[^"]*"\)(?:,\s*)?)+)`)
	lit := regexp.MustCompile(`InternedTerm\("([^"]*)"\)`)
	n := 0
	for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
		for _, l := range lit.FindAllStringSubmatch(m[2], -1) {
			k := l[1]
			if k == "" {
				continue
			}
			n++
			if _, isInput := input.Properties[k]; !keys[k] && !isInput {
				t.Errorf("builtins/rules.go %s reads key %q, which neither settings.Document nor schemas/permopa/input.json has", m[1], k)
			}
		}
	}
	if n < 8 {
		t.Fatalf("found only %d keys in builtins/rules.go: the declarations moved; update this test", n)
	}
}
