package replay

import (
	"regexp"
	"testing"
)

// TestLazyTablesCompile forces what the package compiles on first use
// rather than at initialisation, so a malformed one fails here, not in a
// user's process.
func TestLazyTablesCompile(t *testing.T) {
	for _, re := range []func() *regexp.Regexp{onlyWildcards} {
		if re().String() == "" {
			t.Fatal("empty regular expression")
		}
	}
	if htmlReport().Lookup("report") == nil {
		t.Fatal("HTML report template missing")
	}
}
