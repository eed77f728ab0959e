//go:build !slow

package makefile

// generatedCases is how many generated makefiles the quick suite compares
// with make -n (the slow suite, run by .ci/run, compares 400).
const generatedCases = 20
