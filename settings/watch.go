package settings

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watchDebounce gathers the events of one save (editors write, rename and
// chmod in quick succession) into one reload.
const watchDebounce = 50 * time.Millisecond

type watcher struct {
	fs     *fsnotify.Watcher
	cancel context.CancelFunc
	done   chan struct{}
}

// Watch reloads the layers whenever one of their files changes, until ctx
// ends or Close is called; onReload (may be nil) gets each reload's
// problems, e.g. a file that broke and whose last good settings were
// kept. Directories are watched rather than files, so that files created
// later and files replaced by rename are seen; a directory created,
// removed or replaced later (a new .permopa/) is picked up through its parent.
func (l *Layers) Watch(ctx context.Context, onReload func([]error)) error {
	l.watchMu.Lock()
	defer l.watchMu.Unlock()
	if l.watch != nil {
		return nil
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &watcher{fs: fw, cancel: cancel, done: make(chan struct{})}
	l.watch = w
	watched := map[string]bool{}
	relevant := map[string]bool{}
	addWatches := func() {
		watch := func(d string) bool {
			if watched[d] {
				return true
			}
			if info, err := os.Stat(d); err == nil && info.IsDir() && fw.Add(d) == nil {
				watched[d] = true
			}
			return watched[d]
		}
		for _, ly := range l.layers {
			for _, f := range ly.files() {
				relevant[f] = true
				dir := filepath.Dir(f)
				relevant[dir] = true
				// The parent too, so that the directory being created,
				// removed or replaced is seen.
				watch(dir)
				watch(filepath.Dir(dir))
				// A directory missing more than one level down
				// (~/.config/permopa on a fresh account without ~/.config)
				// is seen being created from its nearest existing
				// ancestor.
				for d := filepath.Dir(dir); !watched[d] && filepath.Dir(d) != d; d = filepath.Dir(d) {
					relevant[d] = true
					if watch(filepath.Dir(d)) {
						break
					}
				}
			}
		}
	}
	if tf := TrustFile(l.opts.UserDir); tf != "" {
		// Trusting a project (or revoking) changes what its files count for.
		relevant[tf] = true
	}
	addWatches()
	go func() {
		defer close(w.done)
		defer fw.Close()
		var timer *time.Timer
		var fire <-chan time.Time
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-fw.Events:
				if !ok {
					return
				}
				if !relevant[ev.Name] {
					continue
				}
				if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
					delete(watched, ev.Name) // the kernel dropped its watch; re-added if it comes back
				}
				if timer == nil {
					timer = time.NewTimer(watchDebounce)
				} else {
					timer.Reset(watchDebounce)
				}
				fire = timer.C
			case err, ok := <-fw.Errors:
				if !ok {
					return
				}
				if onReload != nil {
					onReload([]error{err})
				}
			case <-fire:
				fire = nil
				addWatches()
				problems := l.Reload(ctx)
				if onReload != nil {
					onReload(problems)
				}
			}
		}
	}()
	return nil
}

// Close stops watching.
func (l *Layers) Close() error {
	l.watchMu.Lock()
	w := l.watch
	l.watch = nil
	l.watchMu.Unlock()
	if w != nil {
		w.cancel()
		<-w.done
	}
	return nil
}
