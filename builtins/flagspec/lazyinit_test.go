package flagspec

import (
	"regexp"
	"testing"
)

// TestLazyTablesCompile forces what the package compiles on first use
// rather than at initialisation, so a malformed one fails here, not in a
// user's process.
func TestLazyTablesCompile(t *testing.T) {
	for _, re := range []func() *regexp.Regexp{jqEnvRE, interpEnvRE} {
		if re().String() == "" {
			t.Fatal("empty regular expression")
		}
	}
	if len(openSSLCommands()) == 0 {
		t.Fatal("no openssl commands")
	}
}
