package hookproto

import (
	"regexp"
	"testing"
)

// TestLazyTablesCompile forces what the package compiles on first use
// rather than at initialisation, so a malformed one fails here, not in a
// user's process.
func TestLazyTablesCompile(t *testing.T) {
	for _, re := range []func() *regexp.Regexp{dotenvKey, tomlHeader, tomlKey, tomlInlined, changesDir} {
		if re().String() == "" {
			t.Fatal("empty regular expression")
		}
	}
}
