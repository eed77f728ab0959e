//go:build slow

package replay

// slowTests is true with -tags slow (.ci/run, docs/development.md): the HTML
// report is also drawn by a headless Chromium when the machine has one.
const slowTests = true
