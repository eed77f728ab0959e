package permopa_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageHasADoc: every package of the module says what it is in
// a package comment (doc.go, or the comment of one of its files; for a
// package of tests only, of a test file).
func TestEveryPackageHasADoc(t *testing.T) {
	n := 0
	for _, p := range listPackages(t, "./...") {
		n++
		if p.Doc != "" {
			continue
		}
		// go list reads the package comment of the package's own files
		// only; a package of tests has its comment in a test file.
		documented := false
		for _, name := range append(p.TestGoFiles, p.XTestGoFiles...) {
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err == nil && f.Doc != nil && strings.HasPrefix(f.Doc.Text(), "Package ") {
				documented = true
			}
		}
		if !documented {
			t.Errorf("%s has no package doc: add a doc.go (\"// Package %s ...\") saying what it is", p.ImportPath, filepath.Base(p.ImportPath))
		}
	}
	if n < 10 {
		t.Fatalf("go list found %d packages; the check is blind", n)
	}
}
