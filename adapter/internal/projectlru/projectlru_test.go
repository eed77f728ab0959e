package projectlru

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/permopa/permopa/engine"
)

// newProject writes a project directory whose settings deny one command.
func newProject(t *testing.T, root string, i int) string {
	t.Helper()
	dir := filepath.Join(root, fmt.Sprint("p", i))
	if err := os.MkdirAll(filepath.Join(dir, ".permopa"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".permopa", "settings.yaml"), []byte("permissions:\n  deny: [\"Bash(git push:*)\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func load(t *testing.T, ctx context.Context, c *Cache[int], key string) (wasLoaded bool) {
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

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// The one bound and eviction of adapter.ProjectCache and the OPA plugin's
// projects: at most Max kept, the least recently used dropped and its rules
// taken out of the engine's settings, a used one kept, a dropped one read
// again (unloaded, its state fresh) by its next use, Drop taking a project
// out at once, and a project dropped while others wait for it never handed
// out.
func TestBoundAndEviction(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.WithDecisionOnly())
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	c := New[int](eng, t.TempDir())
	if c.Max != 256 || Max != 256 {
		t.Fatalf("the bound is %d (Max %d), docs/api.md and docs/opa.md say 256", c.Max, Max)
	}
	c.Max = 3
	var dirs []string
	for i := range 5 {
		dirs = append(dirs, newProject(t, root, i))
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
	load(t, ctx, c, dirs[3])
	if n := c.Len(); n != 3 {
		t.Fatalf("%d projects kept, want 3", n)
	}
	want := []string{dirs[0], dirs[2], dirs[3]}
	if got := keys(eng.Settings().Projects); !slices.Equal(got, want) {
		t.Fatalf("projects in the engine's settings: %v, want %v (p1, used least recently, dropped)", got, want)
	}
	// p1 again: read afresh, with fresh state; p2 goes.
	pr := c.Lock(ctx, dirs[1])
	if pr.Loaded() || pr.State != 0 {
		t.Errorf("an evicted project comes back loaded=%v state=%d", pr.Loaded(), pr.State)
	}
	pr.Unlock()
	load(t, ctx, c, dirs[1])
	want = []string{dirs[0], dirs[1], dirs[3]}
	if got := keys(eng.Settings().Projects); !slices.Equal(got, want) {
		t.Fatalf("after p1 came back: %v, want %v", got, want)
	}
	c.Drop(ctx, dirs[0])
	c.Drop(ctx, dirs[4]) // never kept: nothing happens
	if got, n := keys(eng.Settings().Projects), c.Len(); n != 2 || !slices.Equal(got, []string{dirs[1], dirs[3]}) {
		t.Fatalf("after Drop: %d kept, settings %v", n, got)
	}

	// Many users of few keys under a bound of 1: every Lock returns a
	// project that is kept (not evicted), and the engine never holds
	// more than the bound once all are done (run with -race).
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
	if n, m := c.Len(), len(eng.Settings().Projects); n > 1 || m > 1 {
		t.Errorf("after concurrent use: %d kept, %d in the settings; bound 1", n, m)
	}
}
