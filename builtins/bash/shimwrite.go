package bash

import (
	"github.com/permopa/permopa/builtins/paths"
)

// shimFileWritten says why a program PATH looks up (base == prog) may run
// what a file written earlier in the same command chooses: a version
// manager's shim reads .tool-versions, .python-version, mise's
// configuration (paths.ShimChoiceFile), which the policy reads when the
// call is decided, before this command writes them. "" when no such file
// was written.
func (w *walker) shimFileWritten(base, prog string) string {
	if base != prog || shellBuiltins[base] {
		return ""
	}
	for i := range w.res.Leaves {
		for _, p := range w.res.Leaves[i].Writes {
			if paths.ShimChoiceFile(p) {
				return base + " may be a version manager's shim, which chooses the program from " + p + ", written earlier in this command"
			}
		}
	}
	for _, p := range w.orphanWrites {
		if paths.ShimChoiceFile(p) {
			return base + " may be a version manager's shim, which chooses the program from " + p + ", written earlier in this command"
		}
	}
	return ""
}
