package bash

import (
	"github.com/permopa/permopa/builtins/paths"
)

// shimFileWritten says why a program PATH looks up (base == prog) may run
// what a file written earlier in the same command chooses: a version
// manager's shim reads .tool-versions, .python-version, mise's
// configuration; info and go read files of the project
// (paths.ConfigWriteMatters). The policy reads them when the call is
// decided, before this command writes them. "" when no such file was
// written.
func (w *walker) shimFileWritten(base, prog string) string {
	if base != prog || shellBuiltins[base] {
		return ""
	}
	why := func(p string) string {
		if paths.ShimChoiceFile(p) {
			return base + " may be a version manager's shim, which chooses the program from " + p + ", written earlier in this command"
		}
		return base + " reads its configuration from the project when the call is decided, and " + p + " is written earlier in this command"
	}
	for i := range w.res.Leaves {
		for _, p := range w.res.Leaves[i].Writes {
			if paths.ConfigWriteMatters(base, p) {
				return why(p)
			}
		}
	}
	for _, p := range w.orphanWrites {
		if paths.ConfigWriteMatters(base, p) {
			return why(p)
		}
	}
	return ""
}
