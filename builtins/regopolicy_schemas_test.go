package builtins_test

import (
	"encoding/json"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	permopa "github.com/permopa/permopa"
	"github.com/permopa/permopa/builtins"
	defaultpolicy "github.com/permopa/permopa/rego"
)

// schemaSet is the embedded schemas/ as `--schema schemas` loads it, and
// as `permopa check` supplies it with no flag (cmd/permopa/check.go):
// schema.permopa.input, schema.permopa.settings, schema.permopa.rules.
func schemaSet(t testing.TB) *ast.SchemaSet {
	t.Helper()
	ss := ast.NewSchemaSet()
	names, err := fs.Glob(permopa.Schemas, "schemas/permopa/*.json")
	if err != nil || len(names) != 3 {
		t.Fatalf("embedded schemas: %v %v", names, err)
	}
	for _, n := range names {
		b, _ := fs.ReadFile(permopa.Schemas, n)
		var s any
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		ss.Put(ast.MustParseRef("schema.permopa."+strings.TrimSuffix(path.Base(n), ".json")), s)
	}
	return ss
}

// strictCheck compiles modules as `permopa check --strict` does when they
// name permopa's schemas.
func strictCheck(t *testing.T, modules map[string]*ast.Module) ast.Errors {
	t.Helper()
	builtins.Register()
	caps := ast.CapabilitiesForThisVersion()
	c := ast.NewCompiler().WithCapabilities(caps).WithEnablePrintStatements(true).
		WithStrict(true).WithUseTypeCheckAnnotations(true).WithSchemas(schemaSet(t)).SetErrorLimit(0)
	c.Compile(modules)
	return c.Errors
}

// TestSchemasCatchPolicyTypos: a policy module that reads a field the
// schemas do not have, with the annotations the default policy carries,
// fails the check naming the field.
func TestSchemasCatchPolicyTypos(t *testing.T) {
	t.Parallel()
	const head = "# METADATA\n# schemas:\n#   - input: schema.permopa.input\n#   - data.permopa.settings: schema.permopa.settings\n#   - data.permopa.rules: schema.permopa.rules\npackage author\n\n"
	for _, c := range []struct{ body, want string }{
		{`deny if input.tool_inptu.command == "rm"`, "tool_inptu"},
		{`deny if input.tool_input.comand == "rm"`, "comand"},
		{`deny if input.permision_mode == "plan"`, "permision_mode"},
		{`deny if input.read_only == "yes"`, "match error"}, // a boolean compared with a string
		{`deny if data.permopa.settings.sesion_rules.s1`, "sesion_rules"},
		{`deny if data.permopa.settings.index.dney`, "dney"},
		{`deny if data.permopa.settings.default_mod == "plan"`, "default_mod"},
		{`deny if data.permopa.rules.indx`, "indx"},
	} {
		m, err := ast.ParseModuleWithOpts("author.rego", head+c.body+"\n", ast.ParserOptions{ProcessAnnotation: true})
		if err != nil {
			t.Fatal(err)
		}
		errs := strictCheck(t, map[string]*ast.Module{"author.rego": m})
		if len(errs) == 0 || !strings.Contains(errs.Error(), c.want) {
			t.Errorf("%s: errors %v, want a type error naming %s", c.body, errs, c.want)
		}
	}
	// The same fields spelled right pass.
	for _, body := range []string{
		`deny if input.tool_input.command == "rm"`,
		`deny if input.permission_mode == "plan"`,
		`deny if data.permopa.settings.session_rules.s1`,
		`deny if data.permopa.settings.index.deny.Bash.wide[0].tool_name == "Bash"`,
	} {
		m, _ := ast.ParseModuleWithOpts("author.rego", head+body+"\n", ast.ParserOptions{ProcessAnnotation: true})
		if errs := strictCheck(t, map[string]*ast.Module{"author.rego": m}); len(errs) > 0 {
			t.Errorf("%s: %v", body, errs)
		}
	}
}

// TestEveryPolicyPackageNamesItsSchemas: every package of the default
// policy that reads input, data.permopa.settings or data.permopa.rules
// names the schema of each in its package METADATA (schema.permopa.*), so
// that `permopa check` types what it reads: a package without the
// annotation would have its reads unchecked, and a typo in it would pass.
func TestEveryPolicyPackageNamesItsSchemas(t *testing.T) {
	t.Parallel()
	documents := map[string]ast.Ref{
		"input":                 ast.MustParseRef("schema.permopa.input"),
		"data.permopa.settings": ast.MustParseRef("schema.permopa.settings"),
		"data.permopa.rules":    ast.MustParseRef("schema.permopa.rules"),
	}
	reads := map[string]map[string]bool{} // package → documents its modules read
	named := map[string]map[string]string{}
	err := fs.WalkDir(defaultpolicy.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") {
			return err
		}
		src, _ := fs.ReadFile(defaultpolicy.FS, p)
		m, err := ast.ParseModuleWithOpts(p, string(src), ast.ParserOptions{ProcessAnnotation: true})
		if err != nil {
			return err
		}
		pkg := m.Package.Path.String()
		if reads[pkg] == nil {
			reads[pkg], named[pkg] = map[string]bool{}, map[string]string{}
		}
		ast.WalkTerms(m, func(x *ast.Term) bool {
			switch v := x.Value.(type) {
			case ast.Var:
				if v == "input" {
					reads[pkg]["input"] = true
				}
			case ast.Ref:
				for doc := range documents {
					if v.HasPrefix(ast.MustParseRef(doc)) {
						reads[pkg][doc] = true
					}
				}
			}
			return false
		})
		for _, a := range m.Annotations {
			if a.Scope != "package" {
				continue
			}
			for _, s := range a.Schemas {
				if s.Schema != nil {
					named[pkg][s.Path.String()] = s.Schema.String()
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(reads) < 8 {
		t.Fatalf("only %d packages found", len(reads))
	}
	typed := 0
	for pkg, docs := range reads {
		for doc := range docs {
			if got := named[pkg][doc]; got != documents[doc].String() {
				t.Errorf("package %s reads %s, but its METADATA names %q for it, not %s", pkg, doc, got, documents[doc])
			} else {
				typed++
			}
		}
	}
	if typed < 8 {
		t.Errorf("only %d typed reads found; the walk no longer sees the policy's reads", typed)
	}
}
