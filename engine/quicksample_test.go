package engine_test

// quickFirst picks the rows of a table that start real programs for the
// quick suite: the first row of each kind (one case per mechanism, e.g.
// per program). Every row is still decided in the quick suite; with
// -tags slow (.ci/run) every row also runs (docs/development.md, "The
// quick suite"). The same idea as builtins/bash's quickFirst, kept apart.
type quickFirst map[string]bool

// take reports whether a row of kind runs: always with -tags slow, the
// first of its kind without.
func (q quickFirst) take(kind string) bool {
	if slowTests {
		return true
	}
	if q[kind] {
		return false
	}
	q[kind] = true
	return true
}
