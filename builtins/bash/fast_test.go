//go:build !slow

package bash

// slowTests is false without -tags slow: the dynamic check traces a
// deterministic sample (every dynamicSampleStep-th command) so that
// `go test ./...` stays quick; .ci/run traces them all with -tags slow
// (docs/development.md).
const slowTests = false
