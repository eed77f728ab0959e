package main

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"sync"
	"time"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/permission"
)

// callLog is the --log file of decide and the hooks: one decision log
// event per call (docs/replay.md). Events are written by a goroutine of
// their own, so that a slow or failing file never holds a decision back:
// when it falls behind, events are dropped and counted. Every fault of the
// log is a warning on stderr, given once; logging never changes a decision.
type callLog struct {
	path    string
	source  string
	bundles func() map[string]string
	stderr  io.Writer

	events  chan logItem
	done    chan struct{}
	start   sync.Once
	mu      sync.Mutex
	closed  bool
	dropped int
	warned  int
}

type logItem struct {
	input  any
	result any
}

// logBacklog is how many events may wait for the file.
const logBacklog = 4096

func newCallLog(path, source string, stderr io.Writer, bundles func() map[string]string) *callLog {
	if path == "" {
		return nil
	}
	return &callLog{path: path, source: source, bundles: bundles, stderr: stderr,
		events: make(chan logItem, logBacklog), done: make(chan struct{})}
}

// warn reports a fault of the log on stderr (the first few: a file that
// fails fails every event).
func (l *callLog) warn(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.warned++; l.warned <= 3 {
		fmt.Fprintf(l.stderr, "permopa: %v (calls are decided all the same)\n", err)
	}
}

// log queues the event of one call; input is the call as decided (decoded
// JSON or an ast.Value), result its decision. It never blocks.
func (l *callLog) log(input any, result any) {
	if l == nil {
		return
	}
	l.start.Do(func() { go l.write() })
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	select {
	case l.events <- logItem{detach(input), result}:
	default:
		l.dropped++
	}
}

// detach returns an input the writer may keep: an input still to be
// parsed (decide's line, a byte slice) is copied, since the caller reuses
// its buffer for the next line once Decide returns (engine.SetObserver:
// the observer must not keep the input). Decoded values and ast.Values
// are not changed after a decision and are kept as they are.
func detach(input any) any {
	if rv := reflect.ValueOf(input); rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
		return bytes.Clone(rv.Bytes())
	}
	return input
}

// write opens the file (at the first call, when the engine and its bundle
// revisions are known) and appends the queued events.
func (l *callLog) write() {
	defer close(l.done)
	var revs map[string]string
	if l.bundles != nil {
		revs = l.bundles()
	}
	w, err := decisionlog.Open(l.path, decisionlog.WriterOptions{Source: l.source, Bundles: revs})
	if err != nil {
		l.warn(err)
	}
	if w != nil {
		defer w.Close()
	}
	for it := range l.events {
		if w == nil {
			continue
		}
		in, err := engine.InputValue(it.input)
		if err != nil {
			l.warn(fmt.Errorf("decision log: %v", err))
			continue
		}
		if err := w.Log(in, it.result); err != nil {
			l.warn(err)
		}
	}
}

// decision is the observer engines call (decide --log).
func (l *callLog) decision(input any, d permission.Decision) { l.log(input, d) }

// hookDecision is the observer hooks call (hook --log).
func (l *callLog) hookDecision(input map[string]any, d permission.Decision) { l.log(input, d) }

// close waits, at most wait, for the queued events to be written.
func (l *callLog) close(wait time.Duration) {
	if l == nil {
		return
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	close(l.events)
	dropped := l.dropped
	l.mu.Unlock()
	finished := false
	l.start.Do(func() { close(l.done) }) // nothing was logged
	select {
	case <-l.done:
		finished = true
	case <-time.After(wait):
	}
	if !finished {
		l.warn(fmt.Errorf("decision log %s: not written within %v; events lost", l.path, wait))
	}
	if dropped > 0 {
		l.warn(fmt.Errorf("decision log %s: %d events dropped (the file could not keep up)", l.path, dropped))
	}
}

const logFlagUsage = "append one decision log event per call to this file (mode 0600, its directory created 0700 when missing; file contents and edits masked), for 'permopa replay' and 'permopa insights'"
