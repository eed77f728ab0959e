//go:build slow

package makefile

// generatedCases is how many generated makefiles the slow suite compares
// with make -n.
const generatedCases = 400
