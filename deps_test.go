package permopa_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/permopa/permopa"

// deps lists the packages pkg depends on (go list -deps, tests excluded).
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}

// TestSettingsApartFromEvaluation holds the dependency rule of
// docs/architecture.md between the settings and the engine: engine →
// settings → rego/tables, never back. The settings package reads and
// writes files and builds the document the policy reads; it evaluates no
// policy, so it links no engine, no adapter and no part of OPA that
// evaluates or stores (rego, topdown, storage, loader, bundle) of its own:
// what OPA it has comes through the built-ins' registration, which the
// tables need before parsing the policy (rego/tables).
func TestSettingsApartFromEvaluation(t *testing.T) {
	for _, pkg := range []string{"./settings", "./rego/tables"} {
		got := deps(t, pkg)
		for _, d := range got {
			for _, above := range []string{"/engine", "/adapter", "/cmd", "/replay"} {
				if d == module+above || strings.HasPrefix(d, module+above+"/") {
					t.Errorf("%s depends on %s: the settings know nothing above them (docs/architecture.md)", pkg, d)
				}
			}
		}
	}
	out, err := exec.Command("go", "list", "-f", "{{join .Imports \"\\n\"}}", "./settings").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, imp := range strings.Fields(string(out)) {
		if strings.HasPrefix(imp, "github.com/open-policy-agent/") {
			t.Errorf("settings imports %s: it evaluates no policy and reads the policy's tables through rego/tables", imp)
		}
	}
	if eng := deps(t, "./engine"); !slices.Contains(eng, module+"/settings") {
		t.Errorf("engine does not depend on settings: the dependency rule of docs/architecture.md changed; update it and this test")
	}
}
