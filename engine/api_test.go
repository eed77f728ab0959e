package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestEngineExports holds the exported API of package engine to the list
// in docs/api.md ("Go API"): a new export, or one moved out (the OPA
// plugin's operations live in internal/engineops), is a deliberate change
// of both. Names are the package's exported constants, variables,
// functions and types, and Type.Method for the exported methods of its
// exported types.
func TestEngineExports(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					got = append(got, d.Name.Name)
					continue
				}
				recv := d.Recv.List[0].Type
				if star, ok := recv.(*ast.StarExpr); ok {
					recv = star.X
				}
				if id, ok := recv.(*ast.Ident); ok && id.IsExported() {
					got = append(got, id.Name+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							got = append(got, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								got = append(got, n.Name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(got)

	doc, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	const marker = "The exported API of `engine`, exactly:"
	// Markdown wraps lines: read the text as one line.
	_, list, ok := strings.Cut(strings.Join(strings.Fields(string(doc)), " "), marker)
	if !ok {
		t.Fatalf("docs/api.md has no paragraph starting %q", marker)
	}
	list, _, ok = strings.Cut(list, "`go doc` describes each")
	if !ok {
		t.Fatalf("docs/api.md: the list after %q does not end with \"`go doc` describes each\"", marker)
	}
	var want []string
	for _, m := range regexp.MustCompile("`([A-Z][A-Za-z0-9]*(?:\\.[A-Z][A-Za-z0-9]*)?)`").FindAllStringSubmatch(list, -1) {
		want = append(want, m[1])
	}
	slices.Sort(want)
	if len(want) < 10 {
		t.Fatalf("docs/api.md lists %d names of engine; the check is blind", len(want))
	}
	for _, n := range got {
		if _, found := slices.BinarySearch(want, n); !found {
			t.Errorf("engine exports %s, which docs/api.md's list does not name: document it there, or keep it unexported (the plugin's operations: internal/engineops)", n)
		}
	}
	for _, n := range want {
		if _, found := slices.BinarySearch(got, n); !found {
			t.Errorf("docs/api.md lists %s, which engine does not export", n)
		}
	}
	if c := compactDuplicates(want); c != "" {
		t.Errorf("docs/api.md lists %s twice", c)
	}
}

func compactDuplicates(sorted []string) string {
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return sorted[i]
		}
	}
	return ""
}
