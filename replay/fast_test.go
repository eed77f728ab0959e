//go:build !slow

package replay

// slowTests is false without -tags slow: the HTML report is checked as a
// document (elements, attributes, style, XML) but not drawn by a headless
// browser, a process of seconds; .ci/run draws it with -tags slow (docs/development.md).
const slowTests = false
