package paths

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestReadDirUnsortedNeverOpensAFIFO: a walk opens only directories. A
// FIFO where a directory was (swapped in after its parent was read) is an
// error at once, as os.Open's *fs.PathError ("open NAME: not a
// directory"), and never a wait for a writer that may not come.
func TestReadDirUnsortedNeverOpensAFIFO(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("O_DIRECTORY is the Linux version's (readdir_linux.go)")
	}
	d := t.TempDir()
	fifo := filepath.Join(d, "p")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := readDirUnsorted(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Op != "open" || pe.Path != fifo || !errors.Is(err, syscall.ENOTDIR) {
			t.Errorf("readDirUnsorted(FIFO) = %v, want open %s: not a directory", err, fifo)
		}
	case <-time.After(5 * time.Second):
		// Unblock the open (a writer) so the test ends.
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("readDirUnsorted(FIFO) waits for a writer")
	}
	// The errors a walk tells apart: gone (skipped) and unreadable.
	if _, err := readDirUnsorted(filepath.Join(d, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v, want not exist", err)
	} else if pe, ok := err.(*fs.PathError); !ok || pe.Op != "open" {
		t.Errorf("missing: %#v, want an *fs.PathError of open", err)
	}
	for i := range 3 {
		touch(t, filepath.Join(d, fmt.Sprint(i)))
	}
	if es, err := readDirUnsorted(d); err != nil || len(es) != 4 {
		t.Errorf("readDirUnsorted(%s) = %d entries, %v; want 4", d, len(es), err)
	}
}

// BenchmarkListTree walks a project of 40 directories and 400 files, the
// size of a find | xargs walk's tree (ListTreeWithin).
func BenchmarkListTree(b *testing.B) {
	root := b.TempDir()
	for i := range 40 {
		dir := filepath.Join(root, fmt.Sprintf("d%d/e%d", i/8, i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 10 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(j)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	tree := Tree{Root: ResolvePath(root, "/", root), Hidden: true}
	b.ResetTimer()
	for b.Loop() {
		if l := ListTreeWithin(tree, MaxTreeEntries); !l.Complete || len(l.Entries) != 445 {
			b.Fatalf("listing: complete %v, %d entries (%s)", l.Complete, len(l.Entries), l.Why)
		}
	}
}
