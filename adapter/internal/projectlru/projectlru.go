// Package projectlru keeps the projects whose rules are loaded into an
// engine, at most a bound of them, dropping the least recently used one
// beyond it and taking its rules out. It is the one implementation of that
// bound and eviction for adapter.ProjectCache (`permopa decide`, the Go
// API) and the OPA plugin's settings.projects (adapter/opaplugin); each
// keeps what it checks before reloading a project in the entry's State.
//
// What a project is, how it is loaded and how its rules are taken out is
// the Loader's (adapter/internal/projectlayers: settings layers in an
// engine), so that this package imports neither the engine nor the
// settings and its test links no OPA (docs/development.md, "The quick
// suite"). builtins/internal/lru is not this cache: it takes no lock on a
// hit and drops a whole generation when full, right for the built-ins' hot
// path and wrong for projects (every project read again at once), while
// this one's lock per hit and per-entry eviction would slow the built-ins.
package projectlru

import (
	"container/list"
	"context"
	"sync"
)

// Max is how many projects a Cache keeps loaded by default
// (adapter.MaxCwdProjects, opaplugin.MaxProjects).
const Max = 256

// Loader is what a Cache does to a project's value V.
type Loader[V any] struct {
	// Open makes the value of key's project, not loaded yet.
	Open func(key string) V
	// Load reads the project's files into the owner's engine, first
	// being true the first time, and returns their problems.
	Load func(ctx context.Context, v V, first bool) []error
	// Remove takes a loaded project's rules out of the owner's engine.
	Remove func(ctx context.Context, key string)
}

// Cache is a bounded set of loaded projects, most recently used first.
// Safe for concurrent use.
type Cache[V, S any] struct {
	loader Loader[V]
	// Max is the bound (the package's Max unless a test lowers it before
	// the first use).
	Max int

	mu      sync.Mutex // guards entries, lru and removing
	entries map[string]*list.Element
	lru     *list.List // of *Project[V, S], most recently used first
	// removing holds the keys whose dropped project's rules are being
	// taken out, each with a channel closed when that is done: a project
	// of the same key is created only after it, so that the old one's
	// Remove cannot take out the rules the new one loaded (the owner's
	// engine keys rules by project, not by entry).
	removing map[string]chan struct{}
}

// Project is one project's value (V), keyed as the policy looks its rules
// up. Its lock (Lock, Cache.Lock) serialises loading it and evicting it.
type Project[V, S any] struct {
	Key   string
	Value V
	// State is the owner's record of what it read (stamps, the decision of
	// a project whose settings cannot be read), guarded by the lock.
	State S

	loader  *Loader[V]
	mu      sync.Mutex
	loaded  bool
	evicted bool
}

// New returns an empty cache of projects made, loaded and removed by l.
func New[V, S any](l Loader[V]) *Cache[V, S] {
	return &Cache[V, S]{loader: l, Max: Max, entries: map[string]*list.Element{}, lru: list.New(), removing: map[string]chan struct{}{}}
}

// Lock returns key's project locked, created (unloaded) when it is not
// kept, and marks it used last; creating one beyond Max drops the least
// recently used. A project dropped between finding it and locking it is
// never returned: a fresh entry reads its files again, so no call is
// decided without its project's deny rules. The caller unlocks it.
func (c *Cache[V, S]) Lock(ctx context.Context, key string) *Project[V, S] {
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
func (c *Cache[V, S]) Get(ctx context.Context, key string) *Project[V, S] { return c.get(ctx, key) }

func (c *Cache[V, S]) get(ctx context.Context, key string) *Project[V, S] {
	c.mu.Lock()
	for {
		if el, ok := c.entries[key]; ok {
			c.lru.MoveToFront(el)
			c.mu.Unlock()
			return el.Value.(*Project[V, S])
		}
		done, ok := c.removing[key]
		if !ok {
			break
		}
		// key's dropped project is still being taken out: wait for it.
		c.mu.Unlock()
		<-done
		c.mu.Lock()
	}
	// Opened now: an owner that sees what Open found change (the
	// enclosing projects, docs/rules.md) drops the project so that it is
	// opened again.
	pr := &Project[V, S]{Key: key, Value: c.loader.Open(key), loader: &c.loader}
	c.entries[key] = c.lru.PushFront(pr)
	var victim *Project[V, S]
	var done chan struct{}
	if c.lru.Len() > c.Max {
		el := c.lru.Back()
		victim = el.Value.(*Project[V, S])
		done = c.unlink(el)
	}
	c.mu.Unlock()
	if victim != nil {
		c.evict(ctx, victim, done)
	}
	return pr
}

// unlink forgets el's project (c.mu held) and marks its key as being
// removed until the returned channel is closed (evict).
func (c *Cache[V, S]) unlink(el *list.Element) chan struct{} {
	pr := el.Value.(*Project[V, S])
	c.lru.Remove(el)
	delete(c.entries, pr.Key)
	done := make(chan struct{})
	c.removing[pr.Key] = done
	return done
}

// Drop forgets key's project and takes its rules out.
func (c *Cache[V, S]) Drop(ctx context.Context, key string) {
	c.mu.Lock()
	el, ok := c.entries[key]
	var done chan struct{}
	if ok {
		done = c.unlink(el)
	}
	c.mu.Unlock()
	if ok {
		c.evict(ctx, el.Value.(*Project[V, S]), done)
	}
}

// evict takes a dropped project's rules out, under its lock: a load in
// progress finishes first (and is then removed), a later one sees evicted
// and starts afresh. Closing done lets a new project of the key be made.
func (c *Cache[V, S]) evict(ctx context.Context, pr *Project[V, S], done chan struct{}) {
	pr.mu.Lock()
	pr.evicted = true
	if pr.loaded {
		c.loader.Remove(ctx, pr.Key)
	}
	pr.mu.Unlock()
	c.mu.Lock()
	delete(c.removing, pr.Key)
	c.mu.Unlock()
	close(done)
}

// Len is the number of projects kept.
func (c *Cache[V, S]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Loaded reports whether the project's rules have been loaded (Load); call
// it with the project locked.
func (pr *Project[V, S]) Loaded() bool { return pr.loaded }

// Load reads the project's files into the owner's engine (the Loader's
// Load, first the first time) and returns their problems. Call it with
// the project locked.
func (pr *Project[V, S]) Load(ctx context.Context) []error {
	first := !pr.loaded
	pr.loaded = true
	return pr.loader.Load(ctx, pr.Value, first)
}

// Unlock unlocks a project Lock returned.
func (pr *Project[V, S]) Unlock() { pr.mu.Unlock() }
