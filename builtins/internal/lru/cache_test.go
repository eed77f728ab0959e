package lru

import (
	"sync"
	"testing"
)

func TestBounded(t *testing.T) {
	c := New[int, int](3)
	for i := range 3 {
		c.Put(i, i*10)
	}
	for i := range 3 {
		if v, ok := c.Get(i); !ok || v != i*10 {
			t.Fatalf("Get(%d) = %d, %v", i, v, ok)
		}
	}
	c.Put(1, 11) // replacing does not grow
	if c.Len() != 3 {
		t.Fatalf("Len = %d", c.Len())
	}
	c.Put(3, 30) // over the bound: a fresh generation with just 3
	if _, ok := c.Get(0); ok || c.Len() != 1 {
		t.Fatalf("not reset: len %d", c.Len())
	}
	if v, _ := c.Get(3); v != 30 {
		t.Fatal("lost the new entry")
	}
	c.PutWeighted(4, 40, 5) // heavier than the bound alone: kept, alone
	if v, ok := c.Get(4); !ok || v != 40 || c.Len() != 5 {
		t.Fatalf("weighted: %d %v len %d", v, ok, c.Len())
	}
	c.Clear()
	if _, ok := c.Get(4); ok {
		t.Fatal("Clear kept an entry")
	}
}

func TestConcurrent(t *testing.T) {
	c := New[int, int](100)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10000 {
				k := (i * (g + 1)) % 300
				c.Put(k, k)
				if v, ok := c.Get(k); ok && v != k {
					t.Errorf("Get(%d) = %d", k, v)
				}
			}
		}()
	}
	wg.Wait()
	if c.Len() > 200 {
		t.Errorf("Len = %d, far over the bound", c.Len())
	}
}
