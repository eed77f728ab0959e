package bash

import (
	"path"
	"strings"

	"github.com/permopa/permopa/builtins/scriptfile/makefile"
)

// make and gmake are read by the makefile reader (docs/shell.md,
// "Makefiles"): their recipe lines are walked as the scripts of
// scripts.go.
func init() {
	scriptReaders["make"] = makefile.Reader
	scriptReaders["gmake"] = makefile.Reader
}

// envChanged says why a program run now may see environment variables
// this command set earlier out of a reader's sight: export, declare -x or
// typeset -x, set -a (allexport), a sourced file or eval walked before
// it. "" when none was.
func (w *walker) envChanged() string {
	for i := range w.res.Leaves {
		lf := &w.res.Leaves[i]
		p := path.Base(lf.Program)
		if exportsVariables(p, lf.Argv) {
			return p + " ran earlier in this command and may have changed the environment"
		}
	}
	return ""
}

// exportsVariables reports whether the builtin prog with argv may put
// variables in the environment of the commands after it.
func exportsVariables(prog string, argv []string) bool {
	switch prog {
	case "export", "source", ".", "eval":
		return true
	case "declare", "typeset", "set":
		flag := "x" // declare -x, typeset -x
		if prog == "set" {
			flag = "a" // set -a
		}
		for _, a := range argv[1:] {
			option := len(a) > 1 && (a[0] == '-' || a[0] == '+') && !strings.HasPrefix(a, "--")
			if strings.Contains(a, dyn) || a == "allexport" || option && strings.Contains(a[1:], flag) {
				return true
			}
		}
	}
	return false
}
