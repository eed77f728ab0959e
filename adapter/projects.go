package adapter

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// MaxCwdProjects is how many project directories a ProjectCache keeps
// loaded; the least recently used one is dropped (and read again by its
// next call) beyond it.
const MaxCwdProjects = 256

// ProjectCache applies to each call the rules of its cwd's project, as
// `permopa hook` does for a call made there and an OPA server does with
// settings.projects: <cwd>/.permopa/settings.local.* and settings.*, read
// with settings.NewProjectLayers (so what they loosen counts only once the
// user trusts the project) into the engine's Settings.Projects[cwd]. It is
// what `permopa decide` and the Go API (Decide) use so that a call naming
// another project is decided with that project's rules (docs/api.md). The
// engine's own layers' project (Skip) is not loaded twice. Safe for
// concurrent use.
type ProjectCache struct {
	eng *engine.Engine
	// Skip is the project directory whose files the engine's own layers
	// already read (permopa decide's working directory).
	skip    string
	userDir string
	max     int

	mu      sync.Mutex
	entries map[string]*list.Element
	lru     *list.List // of *cwdProject, most recently used first
}

type cwdProject struct {
	key     string
	mu      sync.Mutex
	layers  *settings.Layers
	loaded  bool
	evicted bool
	stamp   []cwdStamp
	blocked *permission.Decision
}

type cwdStamp struct {
	exists bool
	size   int64
	mtime  time.Time
}

// NewProjectCache returns a cache loading into eng the project rules of
// each call's cwd; skip is a project directory the engine's layers already
// read ("" for none), userDir the user settings directory whose trusted
// projects count ("": none is trusted).
func NewProjectCache(eng *engine.Engine, skip, userDir string) *ProjectCache {
	if skip != "" {
		skip = filepath.Clean(skip)
	}
	return &ProjectCache{eng: eng, skip: skip, userDir: userDir, max: MaxCwdProjects, entries: map[string]*list.Element{}, lru: list.New()}
}

// Decide decides input after loading its cwd's project rules; a project
// whose settings cannot be read whole is a DENY (code
// project_settings_unreadable), as on a server.
func (pc *ProjectCache) Decide(ctx context.Context, input any) permission.Decision {
	if d := pc.Prepare(ctx, cwdOf(input)); d != nil {
		return *d
	}
	return pc.eng.Decide(ctx, input)
}

// DecideJSON is Decide for an input still to be parsed.
func (pc *ProjectCache) DecideJSON(ctx context.Context, doc []byte) permission.Decision {
	var v struct {
		Cwd any `json:"cwd"`
	}
	_ = json.Unmarshal(doc, &v)
	cwd, _ := v.Cwd.(string)
	if d := pc.Prepare(ctx, cwd); d != nil {
		return *d
	}
	return pc.eng.DecideJSON(ctx, doc)
}

func cwdOf(input any) string {
	if in, ok := input.(map[string]any); ok {
		s, _ := in["cwd"].(string)
		return s
	}
	return ""
}

// Prepare makes sure the rules of cwd's project are in the engine's
// settings, current with its files and the user's trust. It returns a
// fail-closed decision when they cannot be read whole, nil otherwise (also
// for a cwd that is not a clean absolute path, or has no .permopa).
func (pc *ProjectCache) Prepare(ctx context.Context, cwd string) *permission.Decision {
	if pc == nil || cwd == "" || !filepath.IsAbs(cwd) || filepath.Clean(cwd) != cwd || cwd == pc.skip {
		return nil
	}
	if st, err := os.Stat(filepath.Join(cwd, ".permopa")); err != nil || !st.IsDir() {
		pc.drop(ctx, cwd)
		return nil
	}
	pr := pc.get(ctx, cwd)
	pr.mu.Lock()
	for pr.evicted {
		// Dropped between get and here: a fresh entry reads it again (a
		// call is never decided without its project's deny rules).
		pr.mu.Unlock()
		pr = pc.get(ctx, cwd)
		pr.mu.Lock()
	}
	defer pr.mu.Unlock()
	stamp := pc.stamps(cwd)
	if pr.loaded && sameCwdStamps(pr.stamp, stamp) {
		return pr.blocked
	}
	var problems []error
	if !pr.loaded {
		problems = pr.layers.Attach(ctx, pc.eng)
		pr.loaded = true
	} else {
		problems = pr.layers.Reload(ctx)
	}
	pr.stamp = stamp
	pr.blocked = nil
	var msgs []string
	for _, p := range problems {
		var sp *settings.Problem
		switch {
		case settings.UnreadableFile(p):
			msgs = append(msgs, p.Error())
		case errors.As(p, &sp) && sp.Behavior != "" && sp.Behavior != permission.Allow:
			msgs = append(msgs, p.Error())
		}
	}
	if len(msgs) > 0 {
		d := permission.FailClosed(permission.CodeProjectSettingsUnreadable, fmt.Sprintf(
			"settings of project %s: a deny or ask rule may be missing, so no call from it is let through until this is fixed: %s",
			cwd, strings.Join(msgs, "; ")))
		pr.blocked, pr.stamp = &d, nil
	}
	return pr.blocked
}

// stamps are the size and mtime of the project's .permopa directory and
// files and of the user's trust file: a change reads the project again.
func (pc *ProjectCache) stamps(cwd string) []cwdStamp {
	files := append([]string{filepath.Join(cwd, ".permopa")}, settings.ProjectFiles(cwd)...)
	if tf := settings.TrustFile(pc.userDir); tf != "" {
		files = append(files, tf)
	}
	out := make([]cwdStamp, len(files))
	for i, f := range files {
		if info, err := os.Stat(f); err == nil {
			out[i] = cwdStamp{exists: true, size: info.Size(), mtime: info.ModTime()}
		}
	}
	return out
}

func sameCwdStamps(a, b []cwdStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].exists != b[i].exists || a[i].size != b[i].size || !a[i].mtime.Equal(b[i].mtime) {
			return false
		}
	}
	return true
}

func (pc *ProjectCache) get(ctx context.Context, key string) *cwdProject {
	pc.mu.Lock()
	if el, ok := pc.entries[key]; ok {
		pc.lru.MoveToFront(el)
		pc.mu.Unlock()
		return el.Value.(*cwdProject)
	}
	pr := &cwdProject{key: key, layers: settings.NewProjectLayers(key, key)}
	pr.layers.SetUserDir(pc.userDir)
	pc.entries[key] = pc.lru.PushFront(pr)
	var victim *cwdProject
	if pc.lru.Len() > pc.max {
		el := pc.lru.Back()
		victim = el.Value.(*cwdProject)
		pc.lru.Remove(el)
		delete(pc.entries, victim.key)
	}
	pc.mu.Unlock()
	if victim != nil {
		pc.evict(ctx, victim)
	}
	return pr
}

func (pc *ProjectCache) drop(ctx context.Context, key string) {
	pc.mu.Lock()
	el, ok := pc.entries[key]
	if ok {
		pc.lru.Remove(el)
		delete(pc.entries, key)
	}
	pc.mu.Unlock()
	if ok {
		pc.evict(ctx, el.Value.(*cwdProject))
	}
}

func (pc *ProjectCache) evict(ctx context.Context, pr *cwdProject) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.evicted = true
	if pr.loaded {
		_ = pc.eng.RemoveProject(ctx, pr.key)
	}
}

// Len is the number of projects loaded.
func (pc *ProjectCache) Len() int {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.lru.Len()
}
