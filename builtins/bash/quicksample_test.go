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
	if q[slowOnlyKind] {
		return false
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

// slowOnlyKind marks a quickFirst that takes no row without -tags slow.
const slowOnlyKind = "\x00slow only"

// tracedSlowOnly picks the rows a hostile-name table traces: every row with
// -tags slow, none without. The table still judges every row in process in
// the quick suite; the traced-run mechanism it relies on (hostileRunAll, the
// strace runner catching the planted script run, the secret opened and
// printed, each on its own command of a batch) is proven quick once, by
// TestHostileRunAllKeepsCommandsApart, beside TestDynamicBatchKeepsCommandsApart
// (a write, a delete, a late write, a deadline) and TestDynamicReadOnly
// (docs/development.md, "The quick suite").
func tracedSlowOnly() quickFirst {
	return quickFirst{slowOnlyKind: true}
}
