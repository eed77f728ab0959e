// Package lru holds the small bounded caches of permopa's built-ins.
//
// The caches sit on the hot path of every decision and are read from many
// goroutines at once, so reads take no lock: a Cache is a sync.Map behind an
// atomic pointer, and when it holds more than its bound the whole generation is
// dropped and a fresh one starts. That is cruder than a true LRU but has no
// shared write on a hit, and a working set that fits the bound stays cached.
package lru

import (
	"sync"
	"sync/atomic"
)

// Cache is a bounded, concurrency-safe map. The zero value is not usable; call New.
type Cache[K comparable, V any] struct {
	max int64
	gen atomic.Pointer[generation]
}

type generation struct {
	m sync.Map
	n atomic.Int64
}

// New returns a cache that holds at most max entries (max < 1 means 1).
func New[K comparable, V any](max int) *Cache[K, V] {
	if max < 1 {
		max = 1
	}
	c := &Cache[K, V]{max: int64(max)}
	c.gen.Store(&generation{})
	return c
}

// Get returns the value stored for k.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	v, ok := c.gen.Load().m.Load(k)
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}

// Put stores v for k. When the cache is full, every entry is dropped first.
func (c *Cache[K, V]) Put(k K, v V) { c.PutWeighted(k, v, 1) }

// PutWeighted stores v for k, counting it as w entries (w < 1 counts 1), so
// that a cache of compiled rule lists can be bounded by the number of rules
// rather than of lists.
func (c *Cache[K, V]) PutWeighted(k K, v V, w int) {
	if w < 1 {
		w = 1
	}
	g := c.gen.Load()
	if _, loaded := g.m.Swap(k, v); loaded {
		return
	}
	if g.n.Add(int64(w)) > c.max {
		fresh := &generation{}
		fresh.m.Store(k, v)
		fresh.n.Store(int64(w))
		c.gen.CompareAndSwap(g, fresh)
	}
}

// Len returns the weight of the entries in the current generation.
func (c *Cache[K, V]) Len() int { return int(c.gen.Load().n.Load()) }

// Clear drops every entry.
func (c *Cache[K, V]) Clear() { c.gen.Store(&generation{}) }
