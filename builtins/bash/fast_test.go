//go:build !slow

package bash

// slowTests is false without -tags slow: the tests that start processes
// (strace, real programs) run the first row of each kind of their tables
// (quickFirst) so that `go test ./...` stays quick; .ci/run runs every row
// with -tags slow (docs/development.md).
const slowTests = false
