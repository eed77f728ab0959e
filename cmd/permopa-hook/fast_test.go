//go:build !slow

package main

// slowTests is false without -tags slow: a test that waits out the hook's
// default deadline runs only with -tags slow, which .ci/run runs
// (docs/development.md).
const slowTests = false
