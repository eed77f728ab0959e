//go:build slow

package flagspec

// slowTests is true with -tags slow (.ci/run, docs/development.md): the checks
// against real programs run their full number of cases.
const slowTests = true
