package engine

import (
	"context"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/permopa/permopa/permission"
)

// EvalCounts is what one evaluation of the decision did, from OPA's trace
// events (BENCHMARKS.md, "Per kind against the floor"): rule bodies entered
// (else branches and functions included), expressions evaluated, and the
// built-in calls among them (permopa's own apart), with rule indexing on
// as in Decide.
type EvalCounts struct {
	Rules, Exprs, Builtins, PermopaBuiltins int
	Calls                                   map[string]int // built-in calls by name
}

type countTracer struct{ c *EvalCounts }

func (countTracer) Enabled() bool { return true }

func (countTracer) Config() topdown.TraceConfig { return topdown.TraceConfig{} }

func (t countTracer) TraceEvent(ev topdown.Event) {
	switch ev.Op {
	case topdown.EnterOp:
		if _, ok := ev.Node.(*ast.Rule); ok {
			t.c.Rules++
		}
	case topdown.EvalOp:
		x, ok := ev.Node.(*ast.Expr)
		if !ok {
			return
		}
		t.c.Exprs++
		if !x.IsCall() {
			return
		}
		op := x.Operator()
		if len(op) > 0 && op[0].Value.Compare(ast.DefaultRootDocument.Value) == 0 {
			return // a function of the policy
		}
		t.c.Builtins++
		t.c.Calls[op.String()]++
		if strings.HasPrefix(op.String(), "permopa.") {
			t.c.PermopaBuiltins++
		}
	}
}

// DecideCounted is Decide with EvalCounts.
func (e *Engine) DecideCounted(ctx context.Context, input any) (permission.Decision, EvalCounts) {
	c := EvalCounts{Calls: map[string]int{}}
	d := e.decideBounded(ctx, input, rego.EvalQueryTracer(countTracer{&c}))
	return d, c
}
