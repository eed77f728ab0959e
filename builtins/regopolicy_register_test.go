package builtins_test

import "github.com/permopa/permopa/builtins"

// permopa's built-ins are registered before any test runs, as the binary
// does first thing: registering changes OPA's global built-in and interning
// tables, which this package's tests, running in parallel, read while they
// parse and decide.
func init() { builtins.Register() }
