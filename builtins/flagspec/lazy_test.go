package flagspec

import (
	"slices"
	"sync"
	"testing"
)

// TestLazyNodesConcurrent compiles every program's tree from fresh nodes
// in several goroutines at once (run with -race): each place in a tree is
// compiled once, by whichever goroutine reaches it first, and every
// goroutine sees the same node with the same options, subcommand path and
// hasCmdTree as the process-wide tree lookup returns.
func TestLazyNodesConcurrent(t *testing.T) {
	t.Parallel()
	fresh := map[*spec]*lazyNode{}
	names := map[*spec]string{}
	for prog, s := range registry {
		if fresh[s] == nil {
			fresh[s] = &lazyNode{tmpl: s, name: roots[prog].name}
			names[s] = prog
		}
	}
	type seen struct {
		node    *spec
		name    string
		defs    int
		hasCmd  bool
		subPath string
	}
	const workers = 4
	got := make([]map[string]seen, workers)
	var wg sync.WaitGroup
	for w := range workers {
		got[w] = map[string]seen{}
		wg.Go(func() {
			var walk func(key string, s *spec)
			walk = func(key string, s *spec) {
				got[w][key] = seen{s, s.name, len(s.defs), s.hasCmdTree(), s.subPath}
				words := make([]string, 0, len(s.subs))
				for word := range s.subs {
					words = append(words, word)
				}
				slices.Sort(words)
				if w%2 == 1 {
					slices.Reverse(words)
				}
				for _, word := range words {
					walk(key+" "+word, s.kid(word))
				}
			}
			for tmpl, root := range fresh {
				walk(names[tmpl], root.get())
			}
		})
	}
	wg.Wait()
	for key, want := range got[0] {
		for w := 1; w < workers; w++ {
			if got[w][key] != want {
				t.Errorf("%s: goroutine %d saw %+v, goroutine 0 %+v", key, w, got[w][key], want)
			}
		}
	}
	// The same answers as the process-wide nodes (compiled one at a time,
	// as invocations reach them).
	for prog, root := range fresh {
		var cmp func(key string, a, b *spec)
		cmp = func(key string, a, b *spec) {
			if a.name != b.name || a.subPath != b.subPath || len(a.defs) != len(b.defs) || a.hasCmdTree() != b.hasCmdTree() ||
				a.network != b.network || a.noAbbrev != b.noAbbrev || a.netAlways != b.netAlways {
				t.Errorf("%s: fresh node differs from lookup's", key)
			}
			for word := range a.subs {
				cmp(key+" "+word, a.kid(word), b.kid(word))
			}
		}
		cmp(names[prog], root.get(), lookup(names[prog]))
	}
	t.Logf("%d places in %d programs", len(got[0]), len(fresh))
	if len(got[0]) < 500 {
		t.Errorf("walked %d places, want the whole vocabulary", len(got[0]))
	}
}
