//go:build !slow

package engine_test

// slowTests is false without -tags slow: the checks against real programs
// run a deterministic sample so that `go test ./...` stays quick; .ci/run
// runs them in full with -tags slow (docs/development.md).
const slowTests = false
