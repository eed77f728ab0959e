//go:build !slow

package builtins_test

// coverPolicy is false in the quick suite: TestRegoPolicy runs every Rego
// test without the coverage tracer, and the tests with test cases through
// judgeCases (regopolicy_cases_test.go), not OPA's tester, but for those it
// does not pass. See regopolicy_slow_test.go.
const coverPolicy = false
