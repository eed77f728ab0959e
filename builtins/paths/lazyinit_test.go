package paths

import (
	"regexp"
	"testing"
)

// TestLazyTablesCompile forces what the package compiles on first use
// rather than at initialisation (the default classifier, the regular
// expressions), so a malformed one fails here, not in a user's process.
func TestLazyTablesCompile(t *testing.T) {
	if defaultClassifier() == nil {
		t.Fatal("default classifier is nil")
	}
	for _, re := range []func() *regexp.Regexp{goRelease, yarnPathWord, yarnNetWord, pnpmWord,
		packageManagerValue, cargoKeyWord, plainVersion, miseTool,
	} {
		if re().String() == "" {
			t.Fatal("empty regular expression")
		}
	}
}
