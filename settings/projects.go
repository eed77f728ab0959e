package settings

import (
	"context"
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
	dot := filepath.Join(dir, ".permopa")
	for _, ly := range []*layer{
		{source: SourceLocal, stems: []string{filepath.Join(dot, "settings.local")}, base: dir, project: dir},
		{source: SourceProject, stems: []string{filepath.Join(dot, "settings")}, base: dir, project: dir},
	} {
		ly.good = map[string]Settings{}
		l.layers = append(l.layers, ly)
	}
	return l
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
