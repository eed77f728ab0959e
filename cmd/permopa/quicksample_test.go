package main_test

// quickFirst picks the rows of a table that start processes for the quick
// suite: the first row of each kind, one process per mechanism (the idea
// of builtins/bash's quicksample_test.go, copied: test packages do not
// import each other). Every row is still judged in process in the quick
// suite; with -tags slow (.ci/run) every row also runs as a process
// (docs/development.md, "The quick suite").
type quickFirst map[string]bool

// take reports whether a row of kind runs as a process: always with -tags
// slow, the first of its kind without.
func (q *quickFirst) take(kind string) bool {
	if slowTests {
		return true
	}
	if *q == nil {
		*q = quickFirst{}
	}
	if (*q)[kind] {
		return false
	}
	(*q)[kind] = true
	return true
}
