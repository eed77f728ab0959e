//go:build !slow

package regotest

// coverPolicy is false in the quick suite: TestRegoPolicy runs every Rego
// test without the coverage tracer, and the tests with test cases through
// judgeCases (cases_test.go), not OPA's tester, but for those it does not
// pass. See slow_test.go.
const coverPolicy = false
