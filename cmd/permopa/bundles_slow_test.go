//go:build slow

package main_test

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// Builds vanilla OPA: with -tags slow only (.ci/run; docs/development.md).

// A vanilla OPA, given only builtins/capabilities.json, accepts the org
// policy together with the default policy: how policy authors check it.
func TestOrgPolicyVanillaOPACheck(t *testing.T) {
	opa := filepath.Join(t.TempDir(), "opa")
	if out, err := exec.Command("go", "build", "-o", opa, "github.com/open-policy-agent/opa").CombinedOutput(); err != nil {
		t.Skipf("cannot build vanilla opa: %v\n%s", err, out)
	}
	cmd := exec.Command(opa, "check", "--strict", "--capabilities", "builtins/capabilities.json", "bundles/org-policy", "rego")
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("opa check: %v\n%s", err, out)
	}
}
