package builtins_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
	"github.com/open-policy-agent/opa/v1/loader"

	"github.com/permopa/permopa/builtins"
)

// regoDirs are the directories `permopa fmt` and `permopa check` cover.
var regoDirs = []string{"../rego", "../rego_test", "../bundles"}

// TestRegoFormatted is `permopa fmt --list --fail rego rego_test bundles`
// in-process: every Rego file is as `opa fmt` writes it. (The same command
// through the binary runs with -tags slow, lint_slow_test.go.)
func TestRegoFormatted(t *testing.T) {
	t.Parallel()
	builtins.Register()
	n := 0
	for _, dir := range regoDirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			n++
			out, err := format.Source(p, src)
			if err != nil {
				t.Errorf("%s: %v", p, err)
			} else if !bytes.Equal(out, src) {
				rel := strings.TrimPrefix(p, "../")
				t.Errorf("%s is not formatted: run permopa fmt -w %s", rel, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 10 {
		t.Fatalf("only %d Rego files", n)
	}
}

// TestRegoStrictCheck is `permopa check --strict rego rego_test bundles`
// in-process: the modules compile together with the strict checks and the
// type checks of their annotations, against permopa's built-ins and, as
// permopa's check supplies them to a policy naming schema.permopa.*
// (cmd/permopa/check.go), the schemas of the documents the policy reads
// (schemaSet): every field the policy and its tests read is one the
// schemas describe, with the type they give it.
func TestRegoStrictCheck(t *testing.T) {
	t.Parallel()
	builtins.Register()
	caps := ast.CapabilitiesForThisVersion()
	loaded, err := loader.NewFileLoader().WithProcessAnnotation(true).WithCapabilities(caps).
		Filtered(regoDirs, func(_ string, info os.FileInfo, _ int) bool {
			return !info.IsDir() && !strings.HasSuffix(info.Name(), ".rego")
		})
	if err != nil {
		t.Fatal(err)
	}
	modules := map[string]*ast.Module{}
	for name, m := range loaded.Modules {
		modules[name] = m.Parsed
	}
	c := ast.NewCompiler().WithCapabilities(caps).WithEnablePrintStatements(true).
		WithStrict(true).WithUseTypeCheckAnnotations(true).WithSchemas(schemaSet(t)).SetErrorLimit(0)
	if c.Compile(modules); c.Failed() {
		t.Fatalf("strict check:\n%v", c.Errors)
	}
	if len(modules) < 10 {
		t.Fatalf("only %d modules", len(modules))
	}
}
