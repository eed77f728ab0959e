package bash

import (
	"os"
	"strings"
	"testing"
)

// TestDebugAnalyze prints the analysis of the commands in $BASH_ANALYZE
// (separated by lines "---"); it is a tool for investigating a verdict.
func TestDebugAnalyze(t *testing.T) {
	t.Parallel()
	cmds := os.Getenv("BASH_ANALYZE")
	if cmds == "" {
		t.Skip("set BASH_ANALYZE to commands separated by ---")
	}
	for _, c := range strings.Split(cmds, "\n---\n") {
		t.Logf("%q\n   %s", c, brief(analyze(c, conformanceOpts)))
	}
}
