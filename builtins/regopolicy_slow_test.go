//go:build slow

package builtins_test

// coverPolicy is true with -tags slow (.ci/run, docs/development.md):
// TestRegoPolicy runs every Rego test through OPA's tester, measures the
// policy's coverage and logs the lines the Rego tests do not reach.
const coverPolicy = true
