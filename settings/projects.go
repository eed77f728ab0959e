package settings

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// NewProjectLayers reads one project's own layers only: the local
// (dir/.permopa/settings.local.*) and shared (dir/.permopa/settings.*)
// project files, as NewLayers does with dir as ProjectDir, each rule
// with its source and file. Engines attached to it (Attach) get the rules,
// and nothing else, as Settings.Projects[key]: the rules of calls whose
// input cwd is key. The engine's other settings are left alone, so the
// merged layers' locks (allow_managed_rules_only) still hold over them.
// AddRules with the local or project destination writes dir's files. dir
// must be absolute. What the files loosen counts only once the user
// trusts the project (trust.go), as recorded in the user's settings
// directory of the process's environment (SetUserDir changes it).
func NewProjectLayers(dir, key string) *Layers {
	l := &Layers{opts: LayerOptions{ProjectDir: dir, Cwd: dir, UserDir: defaultUserDir(envMap(nil), "")}, projectKey: key}
	for _, ly := range projectDirLayers(dir) {
		ly.good = map[string]Settings{}
		l.layers = append(l.layers, ly)
	}
	return l
}

// NewProjectChainLayers is NewProjectLayers for the calls made in dir:
// dir's own layers, then those of every enclosing directory's .permopa
// (ProjectChain), each trusted or not on its own, all as
// Settings.Projects[key]. A call made in a subdirectory of a project is
// decided with the project's rules (docs/rules.md, "Enclosing
// projects"). userDir is the user settings directory (its trusted
// projects count; it is never read as a project). The directories are
// found now: ChainMarkers says what to watch for a change of them.
func NewProjectChainLayers(dir, key, userDir string) *Layers {
	l := NewProjectLayers(dir, key)
	l.opts.UserDir = userDir
	for _, anc := range ProjectChain(dir, userDir, "") {
		for _, ly := range projectDirLayers(anc) {
			ly.good = map[string]Settings{}
			l.layers = append(l.layers, ly)
		}
	}
	l.looked = ancestorMarkers(dir)
	return l
}

// projectDirLayers are the local and shared project layers of dir's
// .permopa, "/path" rules relative to dir.
func projectDirLayers(dir string) []*layer {
	dot := filepath.Join(dir, ".permopa")
	return []*layer{
		{source: SourceLocal, stems: []string{filepath.Join(dot, "settings.local")}, base: dir, project: dir},
		{source: SourceProject, stems: []string{filepath.Join(dot, "settings")}, base: dir, project: dir},
	}
}

// ProjectChain are the directories strictly above dir, nearest first, up
// to the file system's root, whose .permopa is a directory: the
// enclosing projects whose rules also apply to a call made in dir. The
// user and managed settings directories (userDir, managedDir; "" for
// none) are not projects, even where one is a parent's .permopa. dir
// must be absolute.
func ProjectChain(dir, userDir, managedDir string) []string {
	var out []string
	for _, marker := range ancestorMarkers(dir) {
		st, err := os.Stat(marker)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			// Neither absent nor a directory we can see (a symbolic link
			// loop, say): its layers report the error, and the call is
			// blocked rather than decided without its rules.
		case !st.IsDir() || sameDir(marker, userDir, st) || sameDir(marker, managedDir, st):
			continue
		}
		out = append(out, filepath.Dir(marker))
	}
	return out
}

// ChainMarkers are the .permopa paths of every directory strictly above
// dir, nearest first: a .permopa appearing or going at one of them changes
// ProjectChain(dir, …).
func ChainMarkers(dir string) []string { return ancestorMarkers(dir) }

func ancestorMarkers(dir string) []string {
	var out []string
	dir = filepath.Clean(dir)
	if !filepath.IsAbs(dir) {
		return nil
	}
	for {
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
		out = append(out, filepath.Join(dir, ".permopa"))
	}
}

// sameDir: marker (whose stat is st) is the directory other names.
func sameDir(marker, other string, st os.FileInfo) bool {
	if other == "" {
		return false
	}
	if filepath.Clean(other) == marker {
		return true
	}
	o, err := os.Stat(other)
	return err == nil && os.SameFile(o, st)
}

// ProjectFiles are the files NewProjectLayers(dir, …) reads, in order.
func ProjectFiles(dir string) []string {
	var out []string
	for _, ly := range NewProjectLayers(dir, dir).layers {
		out = append(out, ly.files()...)
	}
	return out
}

func applyProject(ctx context.Context, eng Target, key string, s Settings) error {
	return eng.UpdateSettings(ctx, func(cur *Settings) error {
		cur.SetProject(key, s.Rules)
		cur.SetProjectUntrusted(key, s.Untrusted)
		return nil
	})
}

// SetUserDir sets the user settings directory whose trusted projects the
// layers read (before the first Load).
func (l *Layers) SetUserDir(dir string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.opts.UserDir = dir
}
