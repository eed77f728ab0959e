package builtins

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

var update = flag.Bool("update", false, "rewrite capabilities.json (go generate ./builtins)")

const capabilitiesFile = "capabilities.json"

// capabilitiesJSON renders OPA's capabilities for this version with the
// permopa built-ins registered, as `permopa capabilities --current` prints them.
func capabilitiesJSON(t *testing.T) []byte {
	t.Helper()
	Register()
	bs, err := json.MarshalIndent(ast.CapabilitiesForThisVersion(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(bs, '\n')
}

// TestCapabilitiesFile fails when the checked-in capabilities.json is stale.
// Regenerate it with `go generate ./builtins`.
func TestCapabilitiesFile(t *testing.T) {
	want := capabilitiesJSON(t)
	if *update {
		if err := os.WriteFile(capabilitiesFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(capabilitiesFile)
	if err != nil {
		t.Fatalf("%v (generate it with `go generate ./builtins`)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run `go generate ./builtins` and commit the result", capabilitiesFile)
	}
}

// A policy using the built-ins compiles against capabilities.json alone, as
// vanilla `opa check --capabilities` and Regal see it, and a misspelled
// built-in does not.
func TestCapabilitiesCompile(t *testing.T) {
	f, err := os.Open(capabilitiesFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	caps, err := ast.LoadCapabilitiesJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Declarations() {
		found := false
		for _, b := range caps.Builtins {
			if b.Name == d.Name {
				found = true
				if b.Description == "" || len(b.Categories) == 0 || b.Nondeterministic != d.Nondeterministic {
					t.Errorf("%s: description, categories or nondeterministic flag lost in %s", d.Name, capabilitiesFile)
				}
			}
		}
		if !found {
			t.Errorf("%s is missing from %s", d.Name, capabilitiesFile)
		}
	}
	if len(caps.Builtins) < 150 {
		t.Errorf("%s has %d built-ins: it must hold OPA's full set, not just permopa's", capabilitiesFile, len(caps.Builtins))
	}

	compile := func(src string) error {
		c := ast.NewCompiler().WithCapabilities(caps)
		c.Compile(map[string]*ast.Module{"p.rego": ast.MustParseModule(src)})
		if c.Failed() {
			return c.Errors
		}
		return nil
	}
	ok := `package p

ro if permopa.bash.analyze(input.command, {"cwd": input.cwd}).read_only
deny_index := permopa.glob.match_any(data.rules.deny, [input.path], {"cwd": input.cwd})
inside if permopa.path.inside([input.path], input.dirs, {})
n := count(permopa.path.check([input.path], {}).dangerous)
`
	if err := compile(ok); err != nil {
		t.Errorf("policy does not compile against %s: %v", capabilitiesFile, err)
	}
	if err := compile("package p\n\nx := permopa.bash.analyse(input.c, {})\n"); err == nil {
		t.Error("a misspelled built-in compiled")
	}
	// The declared result types catch a misspelled field.
	if err := compile("package p\n\nx if permopa.bash.analyze(input.c, {}).readonly\n"); err == nil {
		t.Error("a misspelled analysis field compiled")
	}
}
