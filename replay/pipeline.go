package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/permopa/permopa/internal/decisionlog"
)

// window bounds the records read and not yet collected: memory stays
// bounded however long the logs are, and however long one decision takes.
const window = 4096

type job struct {
	seq int
	rec *decisionlog.Record
	err error
}

type done struct {
	seq int
	res *result
}

// read reads the sources in order and sends every record and line error
// to out, numbered. It returns the names read and the values skipped.
type readStats struct {
	files   []string
	skipped int
}

// pipeline reads the sources, has workers run work on the records, and
// hands the results to collect in log order. Line errors go to collect too,
// in order, as results with err set.
func pipeline(ctx context.Context, sources []Source, ropts decisionlog.ReaderOptions, workers int,
	work func(context.Context, *decisionlog.Record) *result, collect func(*result) error,
	onFile func(string), onSkipped func(int)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan job, 2*workers)
	results := make(chan done, 2*workers)
	tokens := make(chan struct{}, window)

	var readErr error
	var stats readStats
	go func() {
		defer close(jobs)
		seq := 0
		send := func(j job) bool {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return false
			}
			j.seq = seq
			seq++
			select {
			case jobs <- j:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for _, src := range sources {
			rc, err := src.Open()
			if err != nil {
				readErr = err
				cancel()
				return
			}
			r, err := decisionlog.NewReader(rc, src.Name, ropts)
			if err != nil {
				rc.Close()
				readErr = err
				cancel()
				return
			}
			stats.files = append(stats.files, src.Name)
			for {
				rec, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				var le *decisionlog.LineError
				if err != nil && !errors.As(err, &le) {
					readErr = fmt.Errorf("reading %s: %w", src.Name, err)
					r.Close()
					rc.Close()
					cancel()
					return
				}
				if !send(job{rec: rec, err: err}) {
					r.Close()
					rc.Close()
					return
				}
			}
			stats.skipped += r.Skipped
			r.Close()
			rc.Close()
		}
	}()

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				var res *result
				if j.err != nil {
					res = &result{err: j.err}
				} else {
					res = work(ctx, j.rec)
				}
				select {
				case results <- done{seq: j.seq, res: res}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	pending := map[int]*result{}
	next := 0
	var collectErr error
	for d := range results {
		if collectErr != nil {
			continue // drain
		}
		pending[d.seq] = d.res
		for {
			res, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-tokens
			if err := collect(res); err != nil {
				collectErr = err
				cancel()
				break
			}
		}
	}
	for _, f := range stats.files {
		onFile(f)
	}
	onSkipped(stats.skipped)
	switch {
	case collectErr != nil:
		return collectErr
	case readErr != nil:
		return readErr
	}
	return ctx.Err()
}
