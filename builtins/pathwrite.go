package builtins

import (
	"path"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/permopa/permopa/builtins/paths"
)

var (
	keyWrites         = ast.StringTerm("writes")
	keyRemoves        = ast.StringTerm("removes")
	keyProtectedPaths = ast.StringTerm("protected_paths")
	keyProtected      = ast.StringTerm("protected")
	keyCodeRunning    = ast.StringTerm("code_running")
)

const writesDoc = "`writes` (boolean: the paths are written, so also look on disk for what a write " +
	"would change: a git repository that is not a .git directory, and judge a glob by every name it could " +
	"make); `removes` (boolean, with `writes`: the paths are removed or renamed away, so a directory holding " +
	"protected settings is protected too); `protected_paths` (array of strings: settings files and " +
	"directories the engine reads, protected with everything below them, and above them with `removes`)"

// writeCheck is what permopa.path.check adds for paths that are written
// (option writes): the protected settings, including the files the engine
// really reads and the directories that hold them, and git repositories on
// disk that a write would change or complete (paths/git.go).
type writeCheck struct {
	bctx      topdown.BuiltinContext
	cl        *paths.Classifier
	protected []paths.Resolved
	probe     *paths.DirProbe
	home      string
	// removes: the paths are removed or renamed, with what they hold.
	removes bool
}

func newWriteCheck(bctx topdown.BuiltinContext, o opts, cl *paths.Classifier, cwd, home string) (*writeCheck, error) {
	t := o.obj.Get(keyWrites)
	if t == nil || t.Value.Compare(ast.Boolean(true)) != 0 {
		return nil, nil
	}
	pp, err := o.strings(keyProtectedPaths)
	if err != nil {
		return nil, err
	}
	wc := &writeCheck{bctx: bctx, cl: cl, probe: dirProbe(bctx)}
	if t := o.obj.Get(keyRemoves); t != nil && t.Value.Compare(ast.Boolean(true)) == 0 {
		wc.removes = true
		wc.home = paths.Abs("~", cwd, home)
	}
	for _, p := range pp {
		if p != "" {
			wc.protected = append(wc.protected, resolve(bctx, p, cwd, home))
		}
	}
	return wc, nil
}

// check adds the write-side findings to the classification of r: d, c and
// reason as classified; prot when r is protected settings.
func (wc *writeCheck) check(r paths.Resolved, d, c bool, reason string) (bool, bool, string) {
	forms := []paths.Resolved{r}
	if paths.HasGlob(r.Abs) {
		// A written glob may name files that do not exist yet (split's
		// output names): what it could name, and what it names now.
		if gd, gc, gr := wc.cl.ClassifyGlob(r.Abs); gd && !d {
			d, reason = true, gr
			c = c || gc
		}
		forms = append(forms, expand(wc.bctx, r.Abs).paths...)
	}
	for _, f := range forms {
		if pr, ok := wc.protectedReason(f); ok {
			return true, true, pr
		}
	}
	if !d {
		for _, p := range distinct(r) {
			if gr, ok := paths.GitWrite(p, wc.probe); ok {
				return true, false, gr
			}
		}
	}
	return d, false, reason
}

// protectedReason says why writing r writes protected settings: it is one
// or lies in one, or it is a settings file (or directory) the engine reads
// or lies in one; and for a removal (removing or renaming a directory
// removes what it holds), it holds one of those, or it is an existing
// directory directly holding a project's or a home's protected settings.
// Copying into a directory, touching it or changing its mode leaves what it
// holds alone.
func (wc *writeCheck) protectedReason(r paths.Resolved) (string, bool) {
	for _, p := range distinct(r) {
		if pr, ok := wc.cl.Protected(p); ok {
			return pr, true
		}
		broad := !wc.removes || wc.broad(p)
		for _, pp := range wc.protected {
			for _, q := range distinct(pp) {
				if paths.Within(p, q) {
					return "`" + q + "` (settings permopa reads)", true
				}
				if !broad && paths.Within(q, p) {
					return "holds `" + q + "` (settings permopa reads)", true
				}
			}
		}
		if broad {
			continue
		}
		if name, ok := paths.HoldsProtected(p); ok {
			return "holds `" + name + "` (permission settings of permopa or an agent host)", true
		}
	}
	return "", false
}

// broad reports the directories whose removal is a critical removal
// rather than a write of what they hold: /, a top-level directory, the
// home directory and its parents. Removing them is judged as such (a safety
// ASK that BYPASS skips, as the decision matrix says), not as self-protection.
func (wc *writeCheck) broad(p string) bool {
	return p == "/" || path.Dir(p) == "/" || paths.Within(wc.home, p)
}

func distinct(r paths.Resolved) []string {
	if r.Real == r.Abs || r.Real == "" {
		return []string{r.Abs}
	}
	return []string{r.Abs, r.Real}
}
