// Package projectlru keeps the projects whose rules are loaded into an
// engine (settings.Settings.Projects, one settings.Layers each), at most a
// bound of them, dropping the least recently used one beyond it and taking
// its rules out of the engine's settings. It is the one implementation of
// that bound and eviction for adapter.ProjectCache (`permopa decide`, the Go
// API) and the OPA plugin's settings.projects (adapter/opaplugin); each
// keeps what it checks before reloading a project in the entry's State.
package projectlru

import (
	"container/list"
	"context"
	"sync"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// Max is how many projects a Cache keeps loaded by default
// (adapter.MaxCwdProjects, opaplugin.MaxProjects).
const Max = 256

// Cache is a bounded set of loaded projects, most recently used first.
// Safe for concurrent use.
type Cache[S any] struct {
	eng     *engine.Engine
	userDir string
	// Max is the bound (the package's Max unless a test lowers it before
	// the first use).
	Max int

	mu      sync.Mutex // guards entries and lru
	entries map[string]*list.Element
	lru     *list.List // of *Project[S], most recently used first
}

// Project is one project's layers, keyed as the policy looks its rules up.
// Its lock (Lock, Cache.Lock) serialises loading it and evicting it.
type Project[S any] struct {
	Key    string
	Layers *settings.Layers
	// State is the owner's record of what it read (stamps, the decision of
	// a project whose settings cannot be read), guarded by the lock.
	State S

	eng     *engine.Engine
	mu      sync.Mutex
	loaded  bool
	evicted bool
}

// New returns an empty cache loading projects into eng; userDir is the
// user settings directory whose trusted projects count ("": none).
func New[S any](eng *engine.Engine, userDir string) *Cache[S] {
	return &Cache[S]{eng: eng, userDir: userDir, Max: Max, entries: map[string]*list.Element{}, lru: list.New()}
}

// Lock returns key's project locked, created (unloaded) when it is not
// kept, and marks it used last; creating one beyond Max drops the least
// recently used. A project dropped between finding it and locking it is
// never returned: a fresh entry reads its files again, so no call is
// decided without its project's deny rules. The caller unlocks it.
func (c *Cache[S]) Lock(ctx context.Context, key string) *Project[S] {
	for {
		pr := c.get(ctx, key)
		pr.mu.Lock()
		if !pr.evicted {
			return pr
		}
		pr.mu.Unlock()
	}
}

// Get is key's project, as Lock finds or creates it, not locked.
func (c *Cache[S]) Get(ctx context.Context, key string) *Project[S] { return c.get(ctx, key) }

func (c *Cache[S]) get(ctx context.Context, key string) *Project[S] {
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		c.lru.MoveToFront(el)
		c.mu.Unlock()
		return el.Value.(*Project[S])
	}
	// The key's own .permopa and every enclosing one (docs/rules.md,
	// "Enclosing projects"), found now: an owner that sees the chain change
	// drops the project so that it is found again.
	pr := &Project[S]{Key: key, Layers: settings.NewProjectChainLayers(key, key, c.userDir), eng: c.eng}
	c.entries[key] = c.lru.PushFront(pr)
	var victim *Project[S]
	if c.lru.Len() > c.Max {
		el := c.lru.Back()
		victim = el.Value.(*Project[S])
		c.lru.Remove(el)
		delete(c.entries, victim.Key)
	}
	c.mu.Unlock()
	if victim != nil {
		c.evict(ctx, victim)
	}
	return pr
}

// Drop forgets key's project and takes its rules out of the settings.
func (c *Cache[S]) Drop(ctx context.Context, key string) {
	c.mu.Lock()
	el, ok := c.entries[key]
	if ok {
		c.lru.Remove(el)
		delete(c.entries, key)
	}
	c.mu.Unlock()
	if ok {
		c.evict(ctx, el.Value.(*Project[S]))
	}
}

// evict takes a dropped project's rules out of the settings, under its
// lock: a load in progress finishes first (and is then removed), a later
// one sees evicted and starts afresh.
func (c *Cache[S]) evict(ctx context.Context, pr *Project[S]) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.evicted = true
	if pr.loaded {
		_ = c.eng.RemoveProject(ctx, pr.Key)
	}
}

// Len is the number of projects kept.
func (c *Cache[S]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Loaded reports whether the project's rules have been read into the
// engine (Load); call it with the project locked.
func (pr *Project[S]) Loaded() bool { return pr.loaded }

// Load reads the project's files into the engine's settings: attaching its
// layers the first time, reloading them after. It returns their problems.
// Call it with the project locked.
func (pr *Project[S]) Load(ctx context.Context) []error {
	if !pr.loaded {
		pr.loaded = true
		return pr.Layers.Attach(ctx, pr.eng)
	}
	return pr.Layers.Reload(ctx)
}

// Unlock unlocks a project Lock returned.
func (pr *Project[S]) Unlock() { pr.mu.Unlock() }
