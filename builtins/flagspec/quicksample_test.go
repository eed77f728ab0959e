package flagspec

// quickFirst picks the cases of a check against a real program (each a
// process) for the quick suite: the first case of each kind, one per
// mechanism, e.g. the first that must bite and the first that must stay
// clean. Every case is still judged in the quick suite; with -tags slow
// (.ci/run) every case also runs (docs/development.md, "The quick suite").
type quickFirst map[string]bool

// take reports whether a case of kind runs: always with -tags slow, the
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
