//go:build !slow

package scriptfile

// slowTests is false without -tags slow: the check against the real npm
// runs a sample of its cases that covers every lifecycle command and both
// ways of turning scripts off (docs/development.md).
const slowTests = false
