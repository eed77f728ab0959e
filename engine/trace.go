package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/permopa/permopa/permission"
)

// Compiler is the compiler whose rules the decision query evaluates: the
// rules DecideTraced reports are its rules (`permopa replay` analyses them
// to tell whether a decision read an input field a decision log masked).
// It is shared and read-only: engines over the embedded policy alone share
// one compile (New), a shared engine's belongs to the OPA server. Read its
// rules or evaluate against it (rego.Compiler with no modules); never
// compile modules into it, which would change every engine's policy.
func (e *Engine) Compiler() *ast.Compiler { return e.compiler.Load() }

// BundleRevisions are the manifest revisions of the bundles New loaded
// (WithBundles), by path; "" for a bundle without one.
func (e *Engine) BundleRevisions() map[string]string {
	out := make(map[string]string, len(e.bundleRevisions))
	for k, v := range e.bundleRevisions {
		out[k] = v
	}
	return out
}

// DecideTraced is Decide that also calls enter with every rule (else
// branches and functions included) whose body the evaluation enters. Rule
// indexing is off for it: an index lookup reads input values without
// entering the rules it skips, and a caller asking which rules read a field
// must see every rule that could have. It is slower than Decide and
// decides the same, under the same deadline and concurrency cap (a DENY
// with code timeout past it); enter is not called once DecideTraced has
// returned, even while an abandoned evaluation is still winding down. The
// observer (SetObserver) does not see it.
func (e *Engine) DecideTraced(ctx context.Context, input any, enter func(*ast.Rule)) permission.Decision {
	var mu sync.Mutex
	returned := false
	defer func() {
		mu.Lock()
		returned = true
		mu.Unlock()
	}()
	tracer := ruleTracer(func(r *ast.Rule) {
		mu.Lock()
		defer mu.Unlock()
		if !returned {
			enter(r)
		}
	})
	return e.decideBounded(ctx, input, rego.EvalQueryTracer(tracer), rego.EvalRuleIndexing(false))
}

// ruleTracer passes the rules of Enter events on.
type ruleTracer func(*ast.Rule)

func (ruleTracer) Enabled() bool { return true }

func (ruleTracer) Config() topdown.TraceConfig { return topdown.TraceConfig{} }

func (t ruleTracer) TraceEvent(ev topdown.Event) {
	if ev.Op != topdown.EnterOp {
		return
	}
	if r, ok := ev.Node.(*ast.Rule); ok {
		t(r)
	}
}

// SetObserver makes every later Decide call observe with the input and
// the decision, after deciding (nil: none). `permopa decide --log` writes
// its decision log from it. The observer must not keep or change the
// input; a panic in it is recovered and the decision returned unchanged.
func (e *Engine) SetObserver(observe func(input any, d permission.Decision)) {
	if observe == nil {
		e.observer.Store(nil)
		return
	}
	e.observer.Store(&observe)
}

// observe calls the observer, if any, with the decision *d; nothing it
// does changes the decision.
func (e *Engine) observe(input any, d *permission.Decision) {
	obs := e.observer.Load()
	if obs == nil {
		return
	}
	defer func() { _ = recover() }()
	(*obs)(input, *d)
}

// InputValue is an input as Decide receives it (a Go value decoded by
// encoding/json, an ast.Value, or JSON text still to be parsed, of any
// type whose underlying type is []byte) as plain Go values, for writing
// it out.
func InputValue(input any) (any, error) {
	switch v := input.(type) {
	case ast.Value:
		return ast.JSON(v)
	case []byte:
		return decodeJSON(v)
	}
	if rv := reflect.ValueOf(input); rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
		return decodeJSON(rv.Bytes())
	}
	return input, nil
}

func decodeJSON(b []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
