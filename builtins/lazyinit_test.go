package builtins

import "testing"

// TestLazyTablesCompile forces what the package builds on first use rather
// than at initialisation, so a type it cannot encode fails here.
func TestLazyTablesCompile(t *testing.T) {
	if analysisEncoder() == nil {
		t.Fatal("no encoder for bash.Analysis")
	}
}
