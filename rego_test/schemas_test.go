package regotest

import (
	"encoding/json"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	permopa "github.com/permopa/permopa"
	"github.com/permopa/permopa/builtins"
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
