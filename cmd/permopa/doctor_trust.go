package main

import (
	"fmt"
	"io"
	"os"

	"github.com/permopa/permopa/settings"
)

// doctorProjectTrust notes what the project's own permopa settings files
// set that the hook leaves out while the user does not trust the project
// (settings/trust.go, docs/rules.md "Trusted projects"), each with its file
// and line. It is a note, not a failed check: leaving it out only tightens.
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
	exists := false
	for _, f := range settings.ProjectFiles(project) {
		if _, err := os.Lstat(f); err == nil {
			exists = true
		}
	}
	if !exists {
		return
	}
	l := settings.NewProjectLayers(project, project)
	l.SetUserDir(userDir)
	s, _ := l.Load()
	if len(s.Untrusted) == 0 {
		fmt.Fprintf(out, "note %s: the project's permopa settings apply in full (trusted, or they only tighten)\n", project)
		return
	}
	fmt.Fprintf(out, "note %s: the project's permopa settings are not trusted; left out until you review them with `permopa trust %s`:\n", project, project)
	for _, u := range s.Untrusted {
		fmt.Fprintf(out, "note   %s\n", u)
	}
}
