package opaplugin

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneErrorWriter holds the server's error statuses in one place
// (permission.Error.HTTPStatus, docs/api.md): no file of the plugin names
// an HTTP status other than 200, only writeError writes anything but a 200
// JSON answer, and only writeJSON and writeHookAnswer (the hook route's
// 200-that-blocks, hook.go) set a status.
func TestOneErrorWriter(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && x.Name == "http" && strings.HasPrefix(n.Sel.Name, "Status") && n.Sel.Name != "StatusOK" {
						t.Errorf("%s: %s names http.%s: an error's status is its code's (permission.Error.HTTPStatus)", fset.Position(n.Pos()), fn.Name.Name, n.Sel.Name)
					}
				case *ast.CallExpr:
					sel, _ := n.Fun.(*ast.SelectorExpr)
					id, _ := n.Fun.(*ast.Ident)
					switch {
					case sel != nil && sel.Sel.Name == "WriteHeader" && fn.Name.Name != "writeJSON" && fn.Name.Name != "writeHookAnswer":
						t.Errorf("%s: %s sets a status itself: answer with writeJSON (200) or writeError", fset.Position(n.Pos()), fn.Name.Name)
					case id != nil && id.Name == "writeJSON":
						checked++
						if fn.Name.Name == "writeError" {
							break
						}
						if s, ok := n.Args[1].(*ast.SelectorExpr); !ok || s.Sel.Name != "StatusOK" {
							t.Errorf("%s: %s writes JSON with a status other than http.StatusOK: use writeError", fset.Position(n.Pos()), fn.Name.Name)
						}
					}
				}
				return true
			})
		}
	}
	if checked < 3 {
		t.Errorf("found %d calls of writeJSON; the check is blind", checked)
	}
}
