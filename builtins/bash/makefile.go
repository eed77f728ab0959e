package bash

import (
	"path"

	"github.com/permopa/permopa/builtins/scriptfile/makefile"
)

// make and gmake are read by the makefile reader (docs/shell.md,
// "Makefiles"): their recipe lines are walked as the scripts of
// scripts.go.
func init() {
	scriptReaders["make"] = makefile.Reader
	scriptReaders["gmake"] = makefile.Reader
}

// envSetters change the environment of the commands after them in the
// same shell (export NAME, declare -x, set -a, a sourced file, eval).
var envSetters = map[string]bool{
	"export": true, "declare": true, "typeset": true, "set": true, "source": true, ".": true,
	"eval": true, "readonly": true, "local": true,
}

// envChanged says why a program run now may see environment variables
// this command set earlier out of a reader's sight: an export or the like
// walked before it. "" when none was.
func (w *walker) envChanged() string {
	for i := range w.res.Leaves {
		if p := path.Base(w.res.Leaves[i].Program); envSetters[p] {
			return p + " ran earlier in this command and may have changed the environment"
		}
	}
	return ""
}
