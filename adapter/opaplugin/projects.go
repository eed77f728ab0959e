package opaplugin

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// MaxProjects is how many project directories the plugin keeps loaded
// (settings.projects); the least recently used one is dropped (and read
// again by its next check) beyond it.
const MaxProjects = 256

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
	// max is MaxProjects; the quick test of the eviction lowers it
	// (projects_test.go), filling 256 projects costing seconds.
	max int

	mu      sync.Mutex // guards entries and lru
	entries map[string]*list.Element
	lru     *list.List // of *project, most recently used first
}

// project is one cwd's layers and what was read from them.
type project struct {
	key string
	// mu serialises stat, load and eviction of this project.
	mu     sync.Mutex
	layers *settings.Layers
	files  []string // settings.ProjectFiles(key)
	// watched are the files stat'ed at each check: the .permopa directory
	// (whose mtime changes when a file in it is created, removed or
	// renamed over) and the files that existed when it was loaded (whose
	// mtime or size changes when they are edited in place).
	watched []string
	loaded  bool
	evicted bool
	real    string      // the cwd with symlinks resolved, when loaded
	stamp   []fileStamp // watched as stat'ed when loaded
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
	ps := &projects{eng: eng, userDir: userDir, warn: warn, max: MaxProjects, entries: map[string]*list.Element{}, lru: list.New()}
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
		ps.drop(context.Background(), cwd)
		return "", ""
	}
	return cwd, real
}

// drop forgets key's project and takes its rules out of the settings.
func (ps *projects) drop(ctx context.Context, key string) {
	ps.mu.Lock()
	el, ok := ps.entries[key]
	if ok {
		ps.lru.Remove(el)
		delete(ps.entries, key)
	}
	ps.mu.Unlock()
	if ok {
		ps.evict(ctx, el.Value.(*project))
	}
}

// evict takes a dropped project's rules out of the settings, under its
// lock: a load in progress finishes first (and is then removed), a later
// one sees evicted and starts afresh.
func (ps *projects) evict(ctx context.Context, pr *project) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.evicted = true
	if pr.loaded {
		_ = ps.eng.RemoveProject(ctx, pr.key)
	}
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
	pr := ps.get(ctx, key)
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.evicted {
		// Dropped between get and here: its rules are out of the settings,
		// and a fresh entry reads them again.
		pr = ps.get(ctx, key)
		pr.mu.Lock()
		defer pr.mu.Unlock()
	}
	if pr.loaded && pr.real == real && sameStamps(pr.stamp, stampFiles(pr.watched)) {
		return pr.blocked
	}
	// Stat'ed before reading: a change during the read is seen next time.
	pr.watched = []string{filepath.Join(key, ".permopa")}
	if tf := settings.TrustFile(ps.userDir); tf != "" {
		// Trusting the project (or revoking) changes what its files count for.
		pr.watched = append(pr.watched, tf)
	}
	for _, f := range pr.files {
		if _, err := os.Lstat(f); err == nil {
			pr.watched = append(pr.watched, f)
		}
	}
	pr.real, pr.stamp = real, stampFiles(pr.watched)
	var problems []error
	if !pr.loaded {
		problems = pr.layers.Attach(ctx, ps.eng)
		pr.loaded = true
	} else {
		problems = pr.layers.Reload(ctx)
	}
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

// get returns key's entry, creating it (and dropping the least recently
// used one beyond MaxProjects) as needed.
func (ps *projects) get(ctx context.Context, key string) *project {
	ps.mu.Lock()
	if el, ok := ps.entries[key]; ok {
		ps.lru.MoveToFront(el)
		ps.mu.Unlock()
		return el.Value.(*project)
	}
	pr := &project{key: key, layers: settings.NewProjectLayers(key, key), files: settings.ProjectFiles(key)}
	pr.layers.SetUserDir(ps.userDir)
	ps.entries[key] = ps.lru.PushFront(pr)
	var victim *project
	if ps.lru.Len() > ps.max {
		el := ps.lru.Back()
		victim = el.Value.(*project)
		ps.lru.Remove(el)
		delete(ps.entries, victim.key)
	}
	ps.mu.Unlock()
	if victim != nil {
		ps.evict(ctx, victim)
	}
	return pr
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
	return ps.get(ctx, key).layers, nil
}

// Len is the number of projects loaded.
func (ps *projects) Len() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.lru.Len()
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
