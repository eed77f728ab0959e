//go:build slow

package bash

import "testing"

// TestPositionalEmptyAgainstBash traces every case of positionalEmptyCases
// judged read-only or marked bites with the real bash as the hosts run it
// (bash -c COMMAND, no words after it): the read-only ones only read, the
// hostile ones write (issue 26).
func TestPositionalEmptyAgainstBash(t *testing.T) {
	t.Parallel()
	tracePositionalEmpty(t, positionalEmptyCases)
}
