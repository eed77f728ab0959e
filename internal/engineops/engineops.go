// Package engineops holds what permopa's own OPA server plugin
// (adapter/opaplugin) and command (cmd/permopa) need of the engine beyond
// the embedder API of docs/api.md: an engine over OPA's manager's store and
// compiler (Shared), the evaluator pool its checks run on (Go), the
// cache-hit report of its decision log, the store path of the settings
// document and the bundles that own a path, and an input as plain values
// for a decision log. Package engine imports this one and registers the
// shared engine's operations at init, so they stay out of `go doc ./engine`
// (docs/api.md, "Go API") without a second implementation.
package engineops

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/storage"

	"github.com/permopa/permopa/permission"
)

// SettingsPath is where an engine keeps the settings document in its
// store: data.permopa.settings. No bundle may own it.
var SettingsPath = storage.MustParsePath("/permopa/settings")

// Shared are the operations of an engine whose store and compiler belong to
// someone else: OPA's plugins.Manager when permopa runs as an OPA server.
// E is *engine.Engine and O engine.Option; package engine registers them
// (RegisterShared) and its users take them with SharedOf.
type Shared[E, O any] struct {
	// New builds an engine over store and compiler. The policy is whatever
	// the compiler holds (the embedded default, bundles, files); the engine
	// prepares the decision query against it, writes the settings document
	// to SettingsPath in the store, and decides exactly as engine.New's
	// engines do, failing closed when the compiler has no decision. Call
	// Recompile whenever the manager's compiler changes.
	New func(ctx context.Context, store storage.Store, compiler *ast.Compiler, opts ...O) (E, error)
	// Recompile prepares the decision query again against a new compiler
	// (a bundle or policy change in the manager). Decisions in flight
	// finish with the query they started with. It refuses an engine that
	// owns its policy (built by engine.New).
	Recompile func(e E, ctx context.Context, compiler *ast.Compiler) error
	// DecideIn is Decide inside a store transaction the caller opened (the
	// plugin reads bundle revisions for the decision log from the same
	// snapshot). The deadline stops the evaluation at its next step, but
	// DecideIn returns only when the evaluation does, since it reads txn
	// until then: a caller that must answer by a deadline runs DecideIn
	// apart (Go) and keeps txn open until it returns. txn must be a read
	// transaction when the decision cache is on.
	DecideIn func(e E, ctx context.Context, txn storage.Transaction, input any) permission.Decision
}

var shared any

// RegisterShared is called once, by package engine's init.
func RegisterShared[E, O any](s Shared[E, O]) { shared = s }

// SharedOf returns the operations package engine registered; it panics
// when E and O are not the types engine registered them for, which only a
// change of engine's types can cause (its tests call it).
func SharedOf[E, O any]() Shared[E, O] {
	s, ok := shared.(Shared[E, O])
	if !ok {
		panic(fmt.Sprintf("engineops: shared engine operations are %T, not for %T", shared, s))
	}
	return s
}

type cacheHitKey struct{}

// WithCacheHitReport returns ctx and a function that says whether a
// decision made under ctx was answered from the engine's decision cache
// (the OPA plugin marks such checks in its decision log).
func WithCacheHitReport(ctx context.Context) (context.Context, func() bool) {
	hit := new(atomic.Bool)
	return context.WithValue(ctx, cacheHitKey{}, hit), hit.Load
}

// ReportCacheHit is called by the engine when it answers from its cache.
func ReportCacheHit(ctx context.Context) {
	if h, ok := ctx.Value(cacheHitKey{}).(*atomic.Bool); ok {
		h.Store(true)
	}
}

// BundleOwning names the activated bundle whose manifest roots cover path
// (or path's parent), "" when none does. A bundle without roots covers
// every path.
func BundleOwning(ctx context.Context, store storage.Store, txn storage.Transaction, path storage.Path) (string, error) {
	return bundleOwning(ctx, store, txn, path, true)
}

// ExplicitBundleOwning is BundleOwning for bundles whose manifest names
// roots: a bundle without roots is left out.
func ExplicitBundleOwning(ctx context.Context, store storage.Store, txn storage.Transaction, path storage.Path) (string, error) {
	return bundleOwning(ctx, store, txn, path, false)
}

func bundleOwning(ctx context.Context, store storage.Store, txn storage.Transaction, path storage.Path, rootless bool) (string, error) {
	names, err := bundle.ReadBundleNamesFromStore(ctx, store, txn)
	if err != nil {
		if storage.IsNotFound(err) {
			return "", nil
		}
		return "", err
	}
	for _, name := range names {
		roots, err := bundle.ReadBundleRootsFromStore(ctx, store, txn, name)
		if err != nil {
			if storage.IsNotFound(err) {
				continue
			}
			return "", err
		}
		for _, r := range roots {
			if r == "" {
				if rootless {
					return name, nil
				}
				continue
			}
			root, ok := storage.ParsePath("/" + strings.Trim(r, "/"))
			if !ok {
				continue
			}
			if path.HasPrefix(root) || root.HasPrefix(path) {
				return name, nil
			}
		}
	}
	return "", nil
}
