package paths

import (
	"io"
	"os"
	"sync"
	"syscall"
)

// gitIndexCache keeps the facts of the git indexes read, keyed by what
// changes whenever an index's content does (fileStamp): every git decision
// in a repository looks at its index (gitWorkTreeSubmodules), which in a
// large repository is tens of MiB to read and parse. Bounded: dropped whole
// when full.
var gitIndexCache struct {
	mu    sync.Mutex
	facts map[fileStamp]gitIndexFacts
}

const maxGitIndexCache = 64

// readGitIndexFacts reads and parses the index at p, or returns the facts
// of the same index read before. The stamp is taken from the open file
// before it is read: a write during the read changes the file's change
// time, so what was read under the old stamp is never found again.
func readGitIndexFacts(p string) (gitIndexFacts, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return gitIndexFacts{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return gitIndexFacts{}, err
	}
	if !fi.Mode().IsRegular() {
		return gitIndexFacts{}, errNotRegular
	}
	stamp, stamped := stampOf(fi)
	if stamped {
		gitIndexCache.mu.Lock()
		facts, ok := gitIndexCache.facts[stamp]
		gitIndexCache.mu.Unlock()
		if ok {
			return facts, nil
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIndexBytes+1))
	if err != nil {
		return gitIndexFacts{}, err
	}
	facts := parseGitIndex(data)
	if stamped {
		gitIndexCache.mu.Lock()
		if gitIndexCache.facts == nil || len(gitIndexCache.facts) >= maxGitIndexCache {
			gitIndexCache.facts = map[fileStamp]gitIndexFacts{}
		}
		gitIndexCache.facts[stamp] = facts
		gitIndexCache.mu.Unlock()
	}
	return facts, nil
}
