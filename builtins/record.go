package builtins

import (
	"context"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	tdbuiltins "github.com/open-policy-agent/opa/v1/topdown/builtins"
)

// Call is one call of a non-deterministic built-in (one that reads the
// file system) and what it answered.
type Call struct {
	Name     string
	Operands []*ast.Term
	Result   *ast.Term
}

// Recording collects, in order, the calls of permopa's non-deterministic
// built-ins made by the evaluations whose context carries it (Record). An
// evaluation's answer is a function of its input, its data and these
// answers: the engine's decision cache (docs/architecture.md, "Repeated
// calls") keeps a decision only with its recording and serves it again
// only when Replay gets the same answers from the file system.
type Recording struct {
	Calls []Call
}

type recordingKey struct{}

// Record returns ctx carrying a fresh Recording: evaluations under it
// append their non-deterministic built-in calls to it. One evaluation at a
// time may use a Recording (an OPA evaluation calls built-ins from one
// goroutine).
func Record(ctx context.Context) (context.Context, *Recording) {
	r := &Recording{}
	return context.WithValue(ctx, recordingKey{}, r), r
}

func record(bctx topdown.BuiltinContext, name string, ops []*ast.Term, t *ast.Term) {
	if bctx.Context == nil {
		return
	}
	if r, ok := bctx.Context.Value(recordingKey{}).(*Recording); ok {
		r.Calls = append(r.Calls, Call{Name: name, Operands: ops, Result: t})
	}
}

// Replay calls again, in order and with one fresh per-evaluation memo as an
// evaluation has, every call of the recording, and reports whether each
// answers as recorded: then an evaluation of the same input over the same
// data would take the same course now. An error or a different answer is
// false.
func (r *Recording) Replay(ctx context.Context) bool {
	if len(r.Calls) == 0 {
		return true
	}
	bctx := topdown.BuiltinContext{Context: ctx, Cache: tdbuiltins.Cache{}}
	for _, c := range r.Calls {
		f, ok := nondeterministic[c.Name]
		if !ok {
			return false
		}
		t, err := f(bctx, c.Operands)
		if err != nil || t == nil || !t.Equal(c.Result) {
			return false
		}
	}
	return true
}

// nondeterministic are the implementations Replay may call again, by name:
// permopa's built-ins that read the file system. They have no side effect.
var nondeterministic = func() map[string]impl {
	m := map[string]impl{}
	for _, b := range all() {
		if b.decl.Nondeterministic {
			m[b.decl.Name] = b.impl
		}
	}
	m[scriptFilesCall] = bashScriptFiles // no built-in of its own: recorded by the bash built-ins
	return m
}()

// Recorded reports whether calls of the built-in name are recorded by
// Record and replayed by Replay.
func Recorded(name string) bool {
	_, ok := nondeterministic[name]
	return ok
}
