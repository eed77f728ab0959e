//go:build slow

package permopa_test

import (
	"strings"
	"testing"
)

// The hygiene checks that build binaries (permopa, vanilla OPA, Regal):
// minutes on a cold cache, so only with -tags slow (.ci/run runs them on
// every CI run; README "Set up").

func TestPermopaFmtAndCheck(t *testing.T) {
	permopa := build(t, ".", "./cmd/permopa", "permopa")
	dirs := existing(regoDirs)
	run(t, ".", permopa, append([]string{"fmt", "--list", "--fail"}, dirs...)...)
	run(t, ".", permopa, append([]string{"check", "--strict"}, dirs...)...)
	// The Rego tests as a policy author runs them.
	// A generous per-test timeout: opa test's 5 s default fails on a loaded machine.
	out := run(t, ".", permopa, "test", "--timeout", "2m", "rego", "rego_test")
	if !strings.Contains(out, "PASS") {
		t.Fatalf("permopa test rego rego_test: %s", out)
	}
}

// TestVanillaOPACheck checks the policy with an OPA that has no permopa
// built-ins, given only builtins/capabilities.json.
func TestVanillaOPACheck(t *testing.T) {
	opa := build(t, ".", "github.com/open-policy-agent/opa", "opa")
	run(t, ".", opa, append([]string{"check", "--strict", "--capabilities", "builtins/capabilities.json"}, existing(regoDirs)...)...)
}

// TestRegal lints the Rego with Regal v0.42.0, pinned in tools/regal (it
// cannot share go.mod with OPA 1.22.3). .regal/config.yaml lists each
// disabled rule and why.
func TestRegal(t *testing.T) {
	regal := build(t, "tools/regal", "github.com/open-policy-agent/regal", "regal")
	run(t, ".", regal, append([]string{"lint"}, existing(regoDirs)...)...)
}
