//go:build slow

package permopa_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The hygiene checks that build binaries (permopa, vanilla OPA, Regal):
// minutes on a cold cache, so only with -tags slow (.ci/run runs them on
// every CI run; docs/development.md).

// TestGoVet runs every go vet analyzer over the module (go test's own vet,
// in the quick suite, runs only the high-confidence ones).
func TestGoVet(t *testing.T) {
	run(t, ".", "go", "vet", "./...")
}

func TestPermopaFmtAndCheck(t *testing.T) {
	permopa := build(t, ".", "./cmd/permopa", "permopa")
	dirs := existing(regoDirs)
	run(t, ".", permopa, append([]string{"fmt", "--list", "--fail"}, dirs...)...)
	// With no flag, permopa's check types the policy (and its tests) by
	// the embedded schemas its METADATA names (schema.permopa.*;
	// cmd/permopa/check.go, docs/architecture.md); --schema schemas names
	// the same set from the repository.
	run(t, ".", permopa, append([]string{"check", "--strict"}, dirs...)...)
	run(t, ".", permopa, "check", "--strict", "--schema", "schemas", "rego")
	checkCatchesSchemaTypos(t, permopa)
	// The Rego tests as a policy author runs them.
	// A generous per-test timeout: opa test's 5 s default fails on a loaded machine.
	out := run(t, ".", permopa, "test", "--timeout", "2m", "rego", "rego_test")
	if !strings.Contains(out, "PASS") {
		t.Fatalf("permopa test rego rego_test: %s", out)
	}
}

// checkCatchesSchemaTypos: the built binary, with no flag, fails a policy
// author's module that names permopa's input schema and reads
// input.tool_inptu, naming the field; spelled right, it passes
// (cmd/permopa/check_test.go holds the table, in the quick suite).
func checkCatchesSchemaTypos(t *testing.T, permopa string) {
	dir := t.TempDir()
	const head = "# METADATA\n# schemas:\n#   - input: schema.permopa.input\npackage author\n\n"
	write := func(body string) string {
		f := filepath.Join(dir, "author.rego")
		if err := os.WriteFile(f, []byte(head+body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	bad := write(`deny if input.tool_inptu.command == "rm"`)
	out, err := exec.Command(permopa, "check", "--strict", bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "undefined ref: input.tool_inptu") {
		t.Errorf("permopa check on input.tool_inptu: %v\n%s", err, out)
	}
	good := write(`deny if input.tool_input.command == "rm"`)
	run(t, ".", permopa, "check", "--strict", good)
}

// TestVanillaOPACheck checks the policy with an OPA that has no permopa
// built-ins, given only builtins/capabilities.json: as it is (vanilla OPA
// skips the schema annotations without --schema) and typed by the
// repository's schemas/ (schema.permopa.*, the names permopa's METADATA
// gives them).
func TestVanillaOPACheck(t *testing.T) {
	opa := build(t, ".", "github.com/open-policy-agent/opa", "opa")
	vanilla := []string{"check", "--strict", "--capabilities", "builtins/capabilities.json"}
	run(t, ".", opa, append(vanilla, existing(regoDirs)...)...)
	run(t, ".", opa, append(vanilla, append([]string{"--schema", "schemas"}, existing(regoDirs)...)...)...)
}

// TestRegal lints the Rego with Regal v0.42.0, pinned in tools/regal (it
// cannot share go.mod with OPA 1.22.3). .regal/config.yaml lists each
// disabled rule and why.
func TestRegal(t *testing.T) {
	regal := build(t, "tools/regal", "github.com/open-policy-agent/regal", "regal")
	run(t, ".", regal, append([]string{"lint"}, existing(regoDirs)...)...)
}
