//go:build slow

package bash

import (
	"testing"

	"github.com/permopa/permopa/builtins/flagspec"
)

// TestShellStateBuiltinsAgainstBashAll runs every case of shellStateCases
// that is read-only or bites in the real bash, in all its hosts' shapes, and
// every shopt option the analyser accepts at the end of the shell, both
// ways (docs/shell.md, "Shell state").
func TestShellStateBuiltinsAgainstBashAll(t *testing.T) {
	t.Parallel()
	for _, c := range shellStateCases {
		if c.readOnly || c.bites && !c.quick {
			proveShellStateCase(t, c)
		}
	}
	for _, o := range shoptOptionsForTest() {
		if flagspec.ShoptOptionAtEnd(o) {
			for _, f := range []string{"-s", "-u"} {
				proveShellStateCase(t, shellStateCase{class: "shopt", cmd: "shopt " + f + " " + o, readOnly: true})
			}
		}
	}
}
