package main

import (
	"io"
	"os"
	"runtime/debug"
	"sync"
)

// coldGCPercent is the collector's percent while a short-lived command
// compiles the policy before its first answer: at the default 100 the
// collector runs cycles over the compile's heap that cost more CPU than
// the larger heap the process then holds, as for permopa-hook-local
// (BENCHMARKS.md, "Hooks").
const coldGCPercent = 400

// own reports whether p is the process's own directory and environment
// (main, or the test binary started as permopa): the collector's settings
// are the process's, so a command run in process by the tests leaves them
// alone.
func (p procEnv) own() bool {
	return p.Dir == "" && p.Environ == nil && p.Executable == "" && p.StartHook == nil
}

// coldGC raises the collector's percent to coldGCPercent for a command of
// the process's own that compiles the policy and then answers, and returns
// what puts the percent back (once; later calls do nothing). A GOGC in the
// environment wins: nothing is changed. A command that exits after its
// answer (a hook) need not call restore; one that may go on (a decide
// stream) calls it once the first answer is out, so that only the compile
// and the first answers run at the raised percent.
func (p procEnv) coldGC() (restore func()) {
	if !p.own() || os.Getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(coldGCPercent)
	var once sync.Once
	return func() { once.Do(func() { debug.SetGCPercent(prev) }) }
}

// afterFirstWrite is w, calling done after each write (done is coldGC's
// restore, which acts once): the first answer out ends the cold start.
type afterFirstWrite struct {
	w    io.Writer
	done func()
}

func (a afterFirstWrite) Write(b []byte) (int, error) {
	n, err := a.w.Write(b)
	a.done()
	return n, err
}
