//go:build slow

package scriptfile

// slowTests is true with -tags slow (.ci/run, docs/development.md): the
// check against the real npm runs every case.
const slowTests = true
