//go:build !slow

package main_test

// slowTests is false without -tags slow: the long equivalence tables run a
// sample (sample), and the tests that build other binaries are left out.
// .ci/run runs the whole suite with -tags slow (docs/development.md).
const slowTests = false
