package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// extraQueries caches the queries Evaluate prepared, by query text.
type extraQueries struct {
	mu      sync.Mutex
	queries map[string]*rego.PreparedEvalQuery
}

// Evaluate evaluates an additional query (for explanations and tools, not
// for decisions) against the same policy and store as Decide, with input as
// the input document. Each distinct query string is prepared once per
// engine. The result is, for the first result of the query, the map of its
// variable bindings when the query binds variables (`x := data.a.b`), else
// the value of its first expression; nil when the query is undefined.
func (e *Engine) Evaluate(ctx context.Context, query string, input any) (any, error) {
	pq, err := e.prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	var opt rego.EvalOption
	switch v := input.(type) {
	case ast.Value:
		opt = rego.EvalParsedInput(v)
	default:
		val, err := ast.InterfaceToValue(input)
		if err != nil {
			return nil, fmt.Errorf("input: %w", err)
		}
		opt = rego.EvalParsedInput(val)
	}
	rs, err := pq.Eval(ctx, opt)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, nil
	}
	if len(rs[0].Bindings) > 0 {
		out := make(map[string]any, len(rs[0].Bindings))
		for k, v := range rs[0].Bindings {
			out[k] = v
		}
		return out, nil
	}
	if len(rs[0].Expressions) == 0 {
		return nil, nil
	}
	return rs[0].Expressions[0].Value, nil
}

func (e *Engine) prepare(ctx context.Context, query string) (*rego.PreparedEvalQuery, error) {
	e.extra.mu.Lock()
	defer e.extra.mu.Unlock()
	if pq, ok := e.extra.queries[query]; ok {
		return pq, nil
	}
	if len(e.regoOpts) == 0 {
		return nil, fmt.Errorf("engine was not built by New")
	}
	if e.decisionOnly {
		return nil, fmt.Errorf("preparing %q: the engine was built to decide only (WithDecisionOnly), without the policy's explanation", query)
	}
	opts := make([]func(*rego.Rego), 0, len(e.regoOpts)+1)
	opts = append(opts, e.regoOpts...)
	opts = append(opts, rego.Query(query))
	pq, err := rego.New(opts...).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("preparing %q: %w", query, err)
	}
	if e.extra.queries == nil {
		e.extra.queries = map[string]*rego.PreparedEvalQuery{}
	}
	e.extra.queries[query] = &pq
	return &pq, nil
}
