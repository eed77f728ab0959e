package bash

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// programFamilies maps each program flagspec models to its family: the
// flagspec source file that registers it (archive, coreutils, git, net,
// pkg, sysinfo, text, writers, ...), read from the register calls of
// ../flagspec (a call's string arguments, or the strings of the loop that
// feeds it). The dynamic check's quick sample traces a command of every
// family.
var programFamilies = sync.OnceValues(func() (map[string]string, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("../flagspec/*.go")
	if err != nil {
		return nil, err
	}
	fam := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			return nil, err
		}
		family := strings.TrimSuffix(filepath.Base(f), ".go")
		strs := func(n ast.Node) {
			ast.Inspect(n, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && s != "" && !strings.ContainsAny(s, " \t\n=") {
						if _, ok := fam[s]; !ok {
							fam[s] = family
						}
					}
				}
				return true
			})
		}
		isRegister := func(n ast.Node) bool {
			found := false
			ast.Inspect(n, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "register" {
						found = true
					}
				}
				return !found
			})
			return found
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Name.Name == "register" {
					return false
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "register" {
					for _, a := range n.Args[1:] {
						strs(a)
					}
				}
			case *ast.RangeStmt:
				if isRegister(n.Body) {
					strs(n.X)
				}
			}
			return true
		})
	}
	return fam, nil
})

// familyOf is the family of a command line's first program (flagspec's
// file that registers it, "other" when flagspec does not model it).
func familyOf(t testing.TB, cmd string) string {
	fam, err := programFamilies()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return "other"
	}
	if x, ok := fam[filepath.Base(f[0])]; ok {
		return x
	}
	return "other"
}

// The family table knows the programs of every family file, those
// registered one by one and those registered in loops.
func TestProgramFamilies(t *testing.T) {
	t.Parallel()
	for prog, want := range map[string]string{"ls": "coreutils", "git": "git", "gzip": "archive", "npm": "pkg", "grep": "search", "openssl": "openssl", "docker": "docker"} {
		if got := familyOf(t, prog+" x"); got != want {
			t.Errorf("%s: family %q, want %q", prog, got, want)
		}
	}
	fam, _ := programFamilies()
	seen := map[string]bool{}
	for _, f := range fam {
		seen[f] = true
	}
	if len(seen) < 15 {
		t.Errorf("only %d families: %v", len(seen), seen)
	}
}
