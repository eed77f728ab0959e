package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/permopa/permopa/settings"
)

// chainProject is one project whose .permopa/ files decide the calls made
// in a directory (settings.ProjectChain): what its files contribute.
type chainProject struct {
	dir        string
	link       string // where dir/.permopa leads when it is a symbolic link
	files      int    // settings files it has
	trusted    bool   // every file it has is trusted as it is now
	untrusted  []settings.Untrusted
	unreadable []error
}

// projectChain is dir's own project (when it has settings files) and
// every enclosing one, nearest first, each trusted or not on its own
// (docs/rules.md, "Enclosing projects"), as the hooks and `permopa
// decide` read them for a call made in dir.
func projectChain(dir, userDir string) []chainProject {
	trust, _ := settings.ReadTrust(userDir)
	var out []chainProject
	for i, p := range append([]string{dir}, settings.ProjectChain(dir, userDir, "")...) {
		digests, err := settings.ProjectFileDigests(p)
		if i == 0 && err == nil && len(digests) == 0 {
			continue // the directory itself is no project
		}
		c := chainProject{dir: p, files: len(digests), trusted: err == nil && len(digests) > 0}
		if fi, lerr := os.Lstat(filepath.Join(p, ".permopa")); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			c.link, _ = filepath.EvalSymlinks(filepath.Join(p, ".permopa"))
			if c.link == "" {
				c.link, _ = os.Readlink(filepath.Join(p, ".permopa"))
			}
		}
		for rel, d := range digests {
			if !trust.Trusts(p, filepath.Join(p, filepath.FromSlash(rel)), d) {
				c.trusted = false
			}
		}
		l := settings.NewProjectLayers(p, p)
		l.SetUserDir(userDir)
		s, problems := l.Load()
		c.untrusted = s.Untrusted
		if err != nil {
			c.unreadable = append(c.unreadable, err)
		}
		for _, pr := range problems {
			if err == nil && (settings.UnreadableFile(pr) || errors.Is(pr, fs.ErrPermission)) {
				c.unreadable = append(c.unreadable, pr)
			}
		}
		out = append(out, c)
	}
	return out
}

// writeProjectChain writes projectChain(dir, userDir), one project a
// line (prefix first), then what each untrusted one leaves out.
func writeProjectChain(out io.Writer, prefix, dir, userDir string) {
	chain := projectChain(dir, userDir)
	if len(chain) == 0 {
		return
	}
	fmt.Fprintf(out, "%sthe .permopa/ settings that decide calls made in %s, nearest first (deny and ask rules count from each; what loosens, only from a trusted one):\n", prefix, dir)
	for _, c := range chain {
		name := filepath.Join(c.dir, ".permopa")
		if c.link != "" {
			name += " (a link to " + c.link + ")"
		}
		switch {
		case len(c.unreadable) > 0:
			fmt.Fprintf(out, "%s  %s: cannot be read, so every call made below %s is denied until it is fixed:\n", prefix, name, c.dir)
			for _, e := range c.unreadable {
				fmt.Fprintf(out, "%s    %v\n", prefix, e)
			}
		case c.files == 0:
			fmt.Fprintf(out, "%s  %s: holds no settings file\n", prefix, name)
		case c.trusted:
			fmt.Fprintf(out, "%s  %s: trusted: its settings apply in full\n", prefix, name)
		case len(c.untrusted) == 0:
			fmt.Fprintf(out, "%s  %s: untrusted, and it holds only what tightens: its settings apply in full\n", prefix, name)
		default:
			fmt.Fprintf(out, "%s  %s: not trusted: what loosens is left out until you review it with `permopa trust %s`:\n", prefix, name, c.dir)
			for _, u := range c.untrusted {
				fmt.Fprintf(out, "%s    %s\n", prefix, u)
			}
		}
	}
}
