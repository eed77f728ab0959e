//go:build !slow

package adapter_test

// slowTests is false without -tags slow: the long equivalence tables run a
// deterministic sample that covers every class of them so that `go test
// ./...` stays quick; .ci/run runs them in full with -tags slow
// (docs/development.md).
const slowTests = false
