package projectlru

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// rules stands for the owner's engine: the keys whose rules are in it and
// how often each was opened and loaded. The engine's own side (settings
// layers attached, reloaded, removed) is adapter/internal/projectlayers',
// proven on a real engine by adapter.ProjectCache's and the OPA plugin's
// tests.
type rules struct {
	mu     sync.Mutex
	in     map[string]bool
	opened map[string]int
	// attached counts the loads with first set, reloaded the others.
	attached, reloaded map[string]int
}

// value is a project's value: its key and which opening of it it is.
type value struct {
	key     string
	opening int
}

func newRules() *rules {
	return &rules{in: map[string]bool{}, opened: map[string]int{}, attached: map[string]int{}, reloaded: map[string]int{}}
}

func (r *rules) loader() Loader[value] {
	return Loader[value]{
		Open: func(key string) value {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.opened[key]++
			return value{key, r.opened[key]}
		},
		Load: func(_ context.Context, v value, first bool) []error {
			r.mu.Lock()
			defer r.mu.Unlock()
			if first {
				r.attached[v.key]++
			} else {
				r.reloaded[v.key]++
			}
			r.in[v.key] = true
			return nil
		},
		Remove: func(_ context.Context, key string) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if !r.in[key] {
				panic(key + " removed while not loaded")
			}
			delete(r.in, key)
		},
	}
}

func (r *rules) keys() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k := range r.in {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func load(t *testing.T, ctx context.Context, c *Cache[value, int], key string) (wasLoaded bool) {
	t.Helper()
	pr := c.Lock(ctx, key)
	defer pr.Unlock()
	wasLoaded = pr.Loaded()
	if problems := pr.Load(ctx); len(problems) > 0 {
		t.Fatalf("%s: %v", key, problems)
	}
	pr.State++
	return wasLoaded
}

// The one bound and eviction of adapter.ProjectCache and the OPA plugin's
// projects: at most Max kept, the least recently used dropped and its rules
// taken out, a used one kept, a dropped one opened and read again
// (unloaded, its state fresh) by its next use, Drop taking a project out
// at once, and a project dropped while others wait for it never handed
// out.
func TestBoundAndEviction(t *testing.T) {
	ctx := context.Background()
	r := newRules()
	c := New[value, int](r.loader())
	if c.Max != 256 || Max != 256 {
		t.Fatalf("the bound is %d (Max %d), docs/api.md and docs/opa.md say 256", c.Max, Max)
	}
	c.Max = 3
	var dirs []string
	for i := range 5 {
		dirs = append(dirs, fmt.Sprint("/p", i))
	}
	for _, d := range dirs[:3] {
		if load(t, ctx, c, d) {
			t.Fatalf("%s loaded before its first use", d)
		}
	}
	// p0 used again: p1 is now the least recently used.
	if !load(t, ctx, c, dirs[0]) {
		t.Fatal("p0 was not kept")
	}
	if r.attached[dirs[0]] != 1 || r.reloaded[dirs[0]] != 1 || r.opened[dirs[0]] != 1 {
		t.Fatalf("p0 kept: opened %d, attached %d, reloaded %d times; want 1, 1, 1", r.opened[dirs[0]], r.attached[dirs[0]], r.reloaded[dirs[0]])
	}
	load(t, ctx, c, dirs[3])
	if n := c.Len(); n != 3 {
		t.Fatalf("%d projects kept, want 3", n)
	}
	want := []string{dirs[0], dirs[2], dirs[3]}
	if got := r.keys(); !slices.Equal(got, want) {
		t.Fatalf("projects whose rules are loaded: %v, want %v (p1, used least recently, dropped)", got, want)
	}
	// p1 again: opened and read afresh, with fresh state; p2 goes.
	pr := c.Lock(ctx, dirs[1])
	if pr.Loaded() || pr.State != 0 || pr.Value != (value{dirs[1], 2}) {
		t.Errorf("an evicted project comes back loaded=%v state=%d value=%v", pr.Loaded(), pr.State, pr.Value)
	}
	pr.Unlock()
	load(t, ctx, c, dirs[1])
	if r.attached[dirs[1]] != 2 || r.reloaded[dirs[1]] != 0 {
		t.Errorf("p1 read back by a reload of its old layers: attached %d, reloaded %d", r.attached[dirs[1]], r.reloaded[dirs[1]])
	}
	want = []string{dirs[0], dirs[1], dirs[3]}
	if got := r.keys(); !slices.Equal(got, want) {
		t.Fatalf("after p1 came back: %v, want %v", got, want)
	}
	c.Drop(ctx, dirs[0])
	c.Drop(ctx, dirs[4]) // never kept: nothing happens
	if got, n := r.keys(), c.Len(); n != 2 || !slices.Equal(got, []string{dirs[1], dirs[3]}) {
		t.Fatalf("after Drop: %d kept, loaded %v", n, got)
	}
	// A project created and dropped before its first load has no rules to
	// take out (Remove panics on a key that is not loaded).
	c.Lock(ctx, dirs[4]).Unlock()
	c.Drop(ctx, dirs[4])

	// Many users of few keys under a bound of 1: every Lock returns a
	// project that is kept (not evicted), and no more than the bound is
	// loaded once all are done (run with -race).
	c.Max = 1
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				key := dirs[(g+i)%len(dirs)]
				pr := c.Lock(ctx, key)
				if pr.evicted {
					t.Errorf("%s handed out evicted", key)
				}
				pr.Load(ctx)
				pr.Unlock()
				if i%5 == 0 {
					c.Drop(ctx, key)
				}
			}
		})
	}
	wg.Wait()
	if n, m := c.Len(), len(r.keys()); n > 1 || m > 1 {
		t.Errorf("after concurrent use: %d kept, %d loaded; bound 1", n, m)
	}
}

// A project dropped while a new one of the same key is made: the new one
// is made only once the old one's rules are out, so the old one's Remove
// cannot take out the rules the new one loaded (the owner's engine keys
// rules by project). Without the wait, the next call of that project was
// decided without its rules.
func TestEvictionFinishesBeforeTheKeyComesBack(t *testing.T) {
	ctx := context.Background()
	r := newRules()
	l := r.loader()
	entered, release := make(chan struct{}), make(chan struct{})
	remove := l.Remove
	l.Remove = func(ctx context.Context, key string) {
		if key == "/p0" {
			close(entered)
			<-release
		}
		remove(ctx, key)
	}
	c := New[value, int](l)
	c.Max = 1
	load(t, ctx, c, "/p0")
	evicted := make(chan struct{})
	go func() {
		defer close(evicted)
		pr := c.Lock(ctx, "/p1") // drops /p0, whose Remove waits
		pr.Unlock()
	}()
	<-entered
	back := make(chan struct{})
	go func() {
		defer close(back)
		pr := c.Lock(ctx, "/p0")
		pr.Load(ctx)
		pr.Unlock()
	}()
	select {
	case <-back:
		t.Error("/p0 made and loaded again while its old rules were being taken out")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-evicted
	<-back
	if got := r.keys(); !slices.Equal(got, []string{"/p0"}) {
		t.Fatalf("rules loaded after /p0 came back: %v, want [/p0]", got)
	}
}
