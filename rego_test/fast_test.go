//go:build !slow

package regotest

// coverPolicy is false in the quick suite: TestRegoPolicy runs every Rego
// test without the coverage tracer. See slow_test.go.
const coverPolicy = false
