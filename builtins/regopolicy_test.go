package builtins_test

// The regopolicy_*_test.go files check the default policy in rego/: its
// Rego unit tests in rego_test/, run through OPA's own tester with
// permopa's built-ins registered (with -tags slow, also the policy's
// coverage), its format, strict check and schemas. They live in the
// built-ins' test binary, which links OPA anyway, so that the quick suite
// links one test binary less.

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/loader"

	"github.com/permopa/permopa/builtins"
)

func TestRegoPolicy(t *testing.T) {
	t.Parallel()
	builtins.Register()
	ctx := context.Background()
	loaded, err := loader.NewFileLoader().Filtered([]string{"../rego", "../rego_test"}, func(_ string, info os.FileInfo, _ int) bool {
		return !info.IsDir() && !strings.HasSuffix(info.Name(), ".rego")
	})
	if err != nil {
		t.Fatal(err)
	}
	modules := map[string]*ast.Module{}
	for name, m := range loaded.Modules {
		modules[name] = m.Parsed
	}
	var cov *cover.Cover
	// The coverage tracer sees every evaluation step and costs about as
	// much as the tests themselves; nothing asserts on the figure, so only
	// the full suite (-tags slow, as CI runs it) measures and logs it.
	if coverPolicy {
		cov = cover.New()
	}
	passed, failed, problems, err := runRegoTests(ctx, modules, cov, !coverPolicy)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if passed == 0 {
		t.Fatal("no Rego test ran")
	}
	if cov == nil {
		t.Logf("Rego tests: %d passed, %d failed (coverage with -tags slow)", passed, failed)
		return
	}
	policy := map[string]*ast.Module{}
	for name, m := range modules {
		if strings.Contains(name, "/rego/") && !strings.HasSuffix(name, "_test.rego") {
			policy[name] = m
		}
	}
	report := cov.Report(policy)
	var gaps []string
	for file, fr := range report.Files {
		for _, r := range fr.NotCovered {
			gaps = append(gaps, fmt.Sprintf("%s:%d", file[strings.Index(file, "rego/"):], r.Start.Row))
		}
	}
	sort.Strings(gaps)
	t.Logf("Rego tests: %d passed, %d failed; policy coverage %.1f%%", passed, failed, report.Coverage)
	if len(gaps) > 0 {
		t.Logf("lines not covered: %s", strings.Join(gaps, " "))
	}
}
