//go:build slow

package adapter_test

// slowTests is true with -tags slow (.ci/run, docs/development.md): the long
// equivalence tables run every case.
const slowTests = true
