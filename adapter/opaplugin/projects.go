package opaplugin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/adapter/internal/projectlayers"
	"github.com/permopa/permopa/adapter/internal/projectlru"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// MaxProjects is how many project directories the plugin keeps loaded
// (settings.projects); the least recently used one is dropped (and read
// again by its next check) beyond it.
const MaxProjects = projectlru.Max

// projects loads, per cwd, the rules of project directories into the
// engine's settings (settings.Settings.Projects), keyed by the input's cwd
// string exactly as the policy looks it up. It is bound to one engine.
type projects struct {
	eng   *engine.Engine
	roots []string // cleaned, symlinks resolved where they exist
	// userDir is the user settings directory whose trusted projects
	// decide what a project's files may loosen (settings/trust.go).
	userDir string
	warn    func(string, ...any)
	// loaded holds the projects, at most MaxProjects (the bound and
	// eviction adapter.ProjectCache shares); the quick test of the
	// eviction lowers its Max (projects_test.go), filling 256 projects
	// costing seconds.
	loaded *projectlayers.Cache[project]
}

// project is what was read of one cwd's project.
type project struct {
	// watched are the files stat'ed at each check: the .permopa directory
	// (whose mtime changes when a file in it is created, removed or
	// renamed over) and the files that existed when it was loaded (whose
	// mtime or size changes when they are edited in place).
	watched []string
	real    string      // the cwd with symlinks resolved, when loaded
	stamp   []fileStamp // watched as stat'ed when loaded
	// markers: settings.ChainMarkers(key) as stat'ed when loaded.
	markers []fileStamp
	blocked *permission.Decision
}

type fileStamp struct {
	exists bool
	size   int64
	mtime  time.Time
	mode   os.FileMode
}

func newProjects(eng *engine.Engine, cfg ProjectsConfig, userDir string, warn func(string, ...any)) *projects {
	if !cfg.FromCwd {
		return nil
	}
	ps := &projects{eng: eng, userDir: userDir, warn: warn, loaded: projectlayers.New[project](eng, userDir)}
	for _, r := range cfg.Roots {
		r = filepath.Clean(r)
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		}
		ps.roots = append(ps.roots, r)
	}
	return ps
}

// inside reports whether dir (resolved) is one of the roots or below one.
func (ps *projects) inside(dir string) bool {
	for _, r := range ps.roots {
		if dir == r || strings.HasPrefix(dir, r+string(filepath.Separator)) || r == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// keyOf is the key of input's project: its project_dir when that is a
// string, else its cwd (the key the policy looks up), when it is a clean
// absolute path whose resolved directory is inside a root; "" otherwise
// (the check then gets no project rules).
func (ps *projects) keyOf(input any) (key, real string) {
	in, _ := input.(map[string]any)
	cwd, ok := in["project_dir"].(string)
	if !ok {
		cwd, _ = in["cwd"].(string)
	}
	if cwd == "" || !filepath.IsAbs(cwd) || filepath.Clean(cwd) != cwd {
		return "", ""
	}
	real, err := filepath.EvalSymlinks(cwd)
	if err != nil || !ps.inside(real) {
		// No longer a project (a symlink changed, the directory went):
		// its rules, if it had some, stop applying.
		ps.loaded.Drop(context.Background(), cwd)
		return "", ""
	}
	return cwd, real
}

// prepare makes sure the rules of input's project are in the engine's
// settings, up to date with its files. It returns a fail-closed decision
// when that project's files cannot be read whole, nil otherwise (also for
// a check with no project).
func (ps *projects) prepare(ctx context.Context, input any) *permission.Decision {
	key, real := ps.keyOf(input)
	if key == "" {
		return nil
	}
	proj := ps.loaded.Lock(ctx, key)
	if proj.Loaded() && !sameStamps(proj.State.markers, stampFiles(settings.ChainMarkers(key))) {
		// An enclosing .permopa appeared or went: the project's layers
		// (settings.NewProjectChainLayers) are found when it is created.
		proj.Unlock()
		ps.loaded.Drop(ctx, key)
		proj = ps.loaded.Lock(ctx, key)
	}
	defer proj.Unlock()
	pr := &proj.State
	if proj.Loaded() && pr.real == real && sameStamps(pr.stamp, stampFiles(pr.watched)) {
		return pr.blocked
	}
	// Stat'ed before reading: a change during the read is seen next time.
	pr.markers = stampFiles(settings.ChainMarkers(key))
	pr.watched = []string{filepath.Join(key, ".permopa")}
	if tf := settings.TrustFile(ps.userDir); tf != "" {
		// Trusting the project (or revoking) changes what its files count for.
		pr.watched = append(pr.watched, tf)
	}
	// The key's files and those of every enclosing project, whose deny and
	// ask rules apply too (docs/rules.md, "Enclosing projects").
	for _, dir := range append([]string{key}, settings.ProjectChain(key, ps.userDir, "")...) {
		for _, f := range settings.ProjectFiles(dir) {
			if _, err := os.Lstat(f); err == nil {
				pr.watched = append(pr.watched, f)
			}
		}
	}
	pr.real, pr.stamp = real, stampFiles(pr.watched)
	problems := proj.Load(ctx)
	for _, p := range problems {
		ps.warn("permopa: settings of project %s: %v", key, p)
	}
	pr.blocked = blockingDecision(key, problems)
	if pr.blocked != nil {
		// Read again next time, whatever the stamps say.
		pr.stamp = nil
	}
	return pr.blocked
}

// blockingDecision is the DENY of a project whose settings cannot be
// trusted: a file that cannot be read or parsed, a deny or ask rule that
// cannot be read (adapter.BlockingProblems), or settings the store refused.
// Invalid allow rules are left out, as the local hook does.
func blockingDecision(key string, problems []error) *permission.Decision {
	var msgs []string
	for _, p := range problems {
		var sp *settings.Problem
		switch {
		case !errors.As(p, &sp):
		case sp.Behavior == permission.Allow:
			continue // only makes permopa ask more
		case sp.Lint() && sp.Behavior == "":
			continue // a rule read as written that may not mean what it looks like (docs/rules.md)
		}
		// A file that cannot be read (even one whose last good rules are
		// kept: the local hook blocks on it too), a deny or ask rule that
		// cannot be read, or settings the store refused.
		msgs = append(msgs, p.Error())
	}
	if len(msgs) == 0 {
		return nil
	}
	d := permission.FailClosed(permission.CodeProjectSettingsUnreadable, fmt.Sprintf(
		"settings of project %s: a deny or ask rule may be missing, so no call from it is let through until this is fixed: %s",
		key, strings.Join(msgs, "; ")))
	return &d
}

// layersFor returns the layers of the call's project, loaded and current,
// for a confirmation to write to; nil when the call has no project.
func (ps *projects) layersFor(ctx context.Context, c adapter.Call) (*settings.Layers, *permission.Decision) {
	input := map[string]any{"cwd": c.Cwd}
	key, _ := ps.keyOf(input)
	if key == "" {
		return nil, nil
	}
	if d := ps.prepare(ctx, input); d != nil {
		return nil, d
	}
	return ps.loaded.Get(ctx, key).Value, nil
}

// Len is the number of projects loaded.
func (ps *projects) Len() int {
	return ps.loaded.Len()
}

// stampFiles stats the files: a change of size, mtime or mode (or a file
// appearing or going) makes the project be read again. mtime is as fine
// as the file system keeps it: an edit that keeps the size within the same
// tick can go unseen until the next change.
func stampFiles(files []string) []fileStamp {
	out := make([]fileStamp, len(files))
	for i, f := range files {
		if info, err := os.Stat(f); err == nil {
			out[i] = fileStamp{exists: true, size: info.Size(), mtime: info.ModTime(), mode: info.Mode()}
		}
	}
	return out
}

func sameStamps(a, b []fileStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].exists != b[i].exists || a[i].size != b[i].size || a[i].mode != b[i].mode || !a[i].mtime.Equal(b[i].mtime) {
			return false
		}
	}
	return true
}
