package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/util"

	"github.com/permopa/permopa/builtins"
	"github.com/permopa/permopa/internal/engineops"
	"github.com/permopa/permopa/settings"
)

// settingsPath is where an engine keeps the settings document in its
// store: data.permopa.settings.
var settingsPath = engineops.SettingsPath

// The shared engine's operations are the OPA plugin's, not an embedder's
// (docs/api.md, "Go API"): they are reached through engineops.SharedOf.
func init() {
	engineops.RegisterShared(engineops.Shared[*Engine, Option]{
		New:       newShared,
		Recompile: (*Engine).recompileShared,
		DecideIn:  (*Engine).decideIn,
	})
}

// newShared is engineops.Shared.New: an engine over a store and compiler
// that belong to OPA's plugins.Manager.
func newShared(ctx context.Context, store storage.Store, compiler *ast.Compiler, opts ...Option) (*Engine, error) {
	builtins.Register()
	c := config{query: DefaultQuery}
	for _, o := range opts {
		o(&c)
	}
	if len(c.paths) > 0 || len(c.bundles) > 0 {
		return nil, fmt.Errorf("a shared engine takes its policy from the compiler, not from paths or bundles")
	}
	if !c.settingsLoaded {
		c.settings = settings.Settings{}
	}
	c.settings.FillDefaults()
	e := &Engine{store: store, shared: true, settings: c.settings, timeout: c.timeoutOf(), slots: c.slots()}
	if err := e.writeSettings(ctx, c.settings.Document()); err != nil {
		return nil, err
	}
	if err := e.startCache(ctx, c); err != nil {
		return nil, err
	}
	if err := e.recompile(ctx, compiler, c.query); err != nil {
		return nil, err
	}
	e.armExpiry(c.settings, time.Now())
	e.untrusted.Store(untrustedOf(c.settings))
	return e, nil
}

// recompileShared is engineops.Shared.Recompile.
func (e *Engine) recompileShared(ctx context.Context, compiler *ast.Compiler) error {
	if !e.shared {
		return fmt.Errorf("recompile: the engine owns its policy (built by New)")
	}
	return e.recompile(ctx, compiler, e.queryText)
}

func (e *Engine) recompile(ctx context.Context, compiler *ast.Compiler, query string) error {
	regoOpts := []func(*rego.Rego){
		rego.Query(query),
		rego.StrictBuiltinErrors(true),
		rego.Compiler(compiler),
		rego.Store(e.store),
	}
	pq, err := rego.New(regoOpts...).PrepareForEval(ctx)
	if err != nil {
		return fmt.Errorf("preparing %s: %w", query, err)
	}
	e.extra.mu.Lock()
	e.regoOpts = regoOpts[1:]
	e.extra.queries = nil
	e.extra.mu.Unlock()
	e.queryText = query
	e.compiler.Store(compiler)
	e.query.Store(&pq)
	e.recompiled(compiler) // cache.go
	return nil
}

// Store is the store the engine reads settings and data from.
func (e *Engine) Store() storage.Store { return e.store }

// writeSettings replaces data.permopa.settings. In a shared store it first
// checks that no bundle's roots name the path: that bundle's next
// activation would silently replace the settings (OPA's data API refuses
// such writes; direct store writes are not checked). A bundle without
// roots owns the whole tree and erases the settings on each activation
// too; the writer (the OPA plugin) writes them again after each one, so
// such a bundle is not refused here.
func (e *Engine) writeSettings(ctx context.Context, d settings.Document) error {
	var doc any
	var err error
	if e.shared {
		// The plugin manager's store keeps Go values: give it those.
		doc, err = documentJSON(d)
	} else {
		doc, err = documentValue(d)
	}
	if err != nil {
		return err
	}
	return storage.Txn(ctx, e.store, storage.WriteParams, func(txn storage.Transaction) error {
		if e.shared {
			if owner, err := engineops.ExplicitBundleOwning(ctx, e.store, txn, settingsPath); err != nil {
				return err
			} else if owner != "" {
				return fmt.Errorf("writing settings: %s is owned by bundle %q; give that bundle other roots", settingsPath, owner)
			}
		}
		if err := storage.MakeDir(ctx, e.store, txn, settingsPath[:len(settingsPath)-1]); err != nil {
			return fmt.Errorf("writing settings: %w", err)
		}
		if err := e.store.Write(ctx, txn, storage.AddOp, settingsPath, doc); err != nil {
			return fmt.Errorf("writing settings: %w", err)
		}
		return nil
	})
}

// documentValue is the settings document as the value the store keeps:
// its JSON encoding (the document's one definition, settings.Document),
// parsed straight into an AST value (the store returns AST values on read).
func documentValue(d settings.Document) (ast.Value, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("writing settings: %w", err)
	}
	v, err := parseInput(b)
	if err != nil {
		return nil, fmt.Errorf("writing settings: %w", err)
	}
	return v, nil
}

// documentJSON is the settings document as plain JSON values.
func documentJSON(d settings.Document) (any, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("writing settings: %w", err)
	}
	var v any
	if err := util.UnmarshalJSON(b, &v); err != nil {
		return nil, fmt.Errorf("writing settings: %w", err)
	}
	return v, nil
}
