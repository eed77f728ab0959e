package main

import "io"

// doctorProjectTrust notes every .permopa/ that decides the calls made in
// the project (its own and every enclosing one, nearest first), whether
// what it loosens counts (trusted) and what is left out while it is not
// (settings/trust.go, docs/rules.md "Trusted projects", "Enclosing
// projects"), each with its file and line. It is a note, not a failed
// check: leaving it out only tightens.
func (t target) doctorProjectTrust(out io.Writer) {
	project := t.project
	if project == "" {
		project = t.proc.getwd()
	}
	if project == "" {
		return
	}
	// The user directory the hook reads (adapter.LoadCwdSettings).
	userDir := (&layerFlags{proc: t.proc}).layers().UserDir()
	writeProjectChain(out, "note ", project, userDir)
}
