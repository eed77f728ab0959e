// Package projectlayers is the projects of adapter/internal/projectlru as
// the engine holds them: each project is its settings layers
// (settings.NewProjectChainLayers: the key's own .permopa and every
// enclosing one, docs/rules.md "Enclosing projects"), attached to the
// engine on its first load and reloaded after, and taken out of the
// engine's settings (Engine.RemoveProject) when it is dropped. It is the
// one binding of adapter.ProjectCache and the OPA plugin's
// settings.projects; their tests (adapter/projects_internal_test.go,
// adapter/opaplugin/projects_test.go) prove it on a real engine.
package projectlayers

import (
	"context"

	"github.com/permopa/permopa/adapter/internal/projectlru"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// Cache is a projectlru.Cache of settings layers whose owner's state is S.
type Cache[S any] = projectlru.Cache[*settings.Layers, S]

// New returns an empty cache loading projects into eng; userDir is the
// user settings directory whose trusted projects count ("": none).
func New[S any](eng *engine.Engine, userDir string) *Cache[S] {
	return projectlru.New[*settings.Layers, S](projectlru.Loader[*settings.Layers]{
		Open: func(key string) *settings.Layers {
			return settings.NewProjectChainLayers(key, key, userDir)
		},
		Load: func(ctx context.Context, l *settings.Layers, first bool) []error {
			if first {
				return l.Attach(ctx, eng)
			}
			return l.Reload(ctx)
		},
		Remove: func(ctx context.Context, key string) { _ = eng.RemoveProject(ctx, key) },
	})
}
