//go:build slow

package bash

// slowTests is true with -tags slow (.ci/run, docs/development.md): the dynamic
// check traces its whole selection of the real-world corpus.
const slowTests = true
