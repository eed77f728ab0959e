//go:build linux

package paths

import "testing"

// The same expectations hold when openat2 is missing and every path is walked.
func TestWithoutOpenat2(t *testing.T) {
	openat2Unavailable.Store(true)
	defer openat2Unavailable.Store(false)
	t.Run("resolve", TestResolveSymlinks)
	t.Run("inside", TestInside)
	t.Run("modes", TestMatchAnyModes)
}
