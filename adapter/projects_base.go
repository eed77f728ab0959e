package adapter

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// baseWatch is what a ProjectCache knows of the engine's own layers (the
// working directory's project, the user's, managed, command line): the
// paths they are read from or looked for and their stamp when last read.
// A long-running `permopa decide` (an embedder's coprocess) read them once,
// so a deny rule added to its working directory's project, or trust
// revoked, went unseen while a call naming another project saw the same
// change at once (docs/rules.md, "Trusted projects").
type baseWatch struct {
	mu      sync.Mutex
	paths   []string
	stamp   string
	checked time.Time
	reload  func(context.Context) []string
}

// BaseCheckEvery is how often, at most, a ProjectCache stats the engine's
// own layers' files (WatchBase): a change is seen by the first decision
// made this long after the last check. Checking before every decision
// cost `permopa decide` ~80 µs a line (some 30 paths stat'ed twice), a
// fifth of a Read's decision (BENCHMARKS.md).
const BaseCheckEvery = 100 * time.Millisecond

// WatchBase makes the cache check, before a decision (at most every
// BaseCheckEvery), whether a file the engine's own layers come from changed (paths: settings.Layers
// SourcePaths); when one did, reload reads the layers again, applies them
// to the engine and returns the paths to watch from then on (an enclosing
// .permopa may have appeared).
func (pc *ProjectCache) WatchBase(paths []string, reload func(context.Context) []string) {
	if pc == nil {
		return
	}
	pc.base = &baseWatch{paths: paths, stamp: pathsStamp(paths), checked: time.Now(), reload: reload}
}

// refreshBase reloads the engine's own layers when their files changed.
func (pc *ProjectCache) refreshBase(ctx context.Context) {
	b := pc.base
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t := time.Now()
	if t.Sub(b.checked) < BaseCheckEvery {
		return
	}
	b.checked = t
	now := pathsStamp(b.paths)
	if now == b.stamp {
		return
	}
	// Stamped before the read: a change during it is seen next time.
	paths := b.reload(ctx)
	if slices.Equal(paths, b.paths) {
		b.stamp = now
	} else {
		b.paths, b.stamp = paths, pathsStamp(paths)
	}
}

// pathsStamp is the state of each path, its link's and its target's
// (fileStamp: type, mode, owner, inode, size, times).
func pathsStamp(paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		b.WriteString(p)
		b.WriteString(fileStamp(os.Lstat(p)))
		b.WriteString(fileStamp(os.Stat(p)))
		b.WriteByte(0)
	}
	return b.String()
}
