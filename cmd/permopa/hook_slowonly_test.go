package main_test

import "testing"

// slowOnlyProvenBy leaves a hook or hook-server process test to -tags slow (which
// .ci/run runs on every CI run): it checks what a server answers, which
// quick names the quick tests that still prove (docs/development.md, "The
// quick suite"; issue 25).
func slowOnlyProvenBy(t *testing.T, quick string) {
	t.Helper()
	if !slowTests {
		t.Skip("-tags slow only; the quick suite proves it with " + quick)
	}
}
