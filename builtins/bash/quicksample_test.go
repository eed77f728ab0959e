package bash

// quickFirst picks the rows of a table that start processes (traced under
// strace, or run by a real program) for the quick suite: the first row of
// each kind, one case per mechanism, e.g. the first row that must bite
// ("bites") and the first that must stay clean ("clean"). Every row is
// still analysed in the quick suite; with -tags slow (.ci/run) every row
// also runs (docs/development.md, "The quick suite").
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

// biteKind is the kind of a hostile-name table's row for quickFirst.
func biteKind(bites bool) string {
	if bites {
		return "bites"
	}
	return "clean"
}
