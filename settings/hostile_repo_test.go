package settings_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// A repository cloned inside a project (proj/evil) links its .permopa, or
// one file of it, to the enclosing project's or to the user's settings.
// Read once through the link, the file counted as evil's only: the
// enclosing project's "/secrets/**" deny rule then meant evil/secrets, and
// proj/secrets was readable from evil (docs/rules.md, "Enclosing
// projects"). Each file keeps its own layer, its own base and its own trust.
func TestLinkedPermopaKeepsEnclosingRules(t *testing.T) {
	cases := []struct {
		name  string
		plant func(t *testing.T, tr *tree, evil string)
	}{
		{"no link", func(t *testing.T, tr *tree, evil string) {}},
		{".permopa -> ../.permopa", func(t *testing.T, tr *tree, evil string) {
			symlink(t, "../.permopa", filepath.Join(evil, ".permopa"))
		}},
		{".permopa -> absolute enclosing .permopa", func(t *testing.T, tr *tree, evil string) {
			symlink(t, filepath.Join(tr.proj, ".permopa"), filepath.Join(evil, ".permopa"))
		}},
		{"settings.yaml -> enclosing settings.yaml", func(t *testing.T, tr *tree, evil string) {
			mkdir(t, filepath.Join(evil, ".permopa"))
			symlink(t, "../../.permopa/settings.yaml", filepath.Join(evil, ".permopa", "settings.yaml"))
		}},
		{"settings.local.yaml -> enclosing settings.yaml", func(t *testing.T, tr *tree, evil string) {
			mkdir(t, filepath.Join(evil, ".permopa"))
			symlink(t, filepath.Join(tr.proj, ".permopa", "settings.yaml"), filepath.Join(evil, ".permopa", "settings.local.yaml"))
		}},
		{".permopa -> the user's settings directory", func(t *testing.T, tr *tree, evil string) {
			symlink(t, tr.user, filepath.Join(evil, ".permopa"))
		}},
		{"settings.yaml -> the user's settings.yaml", func(t *testing.T, tr *tree, evil string) {
			mkdir(t, filepath.Join(evil, ".permopa"))
			symlink(t, filepath.Join(tr.user, "settings.yaml"), filepath.Join(evil, ".permopa", "settings.yaml"))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := newTree(t)
			tr.write(t, ".permopa/settings.yaml", "permissions:\n  deny: [\"Read(/secrets/**)\"]\n  allow: [\"Bash(npm test)\"]\n")
			tr.write(t, "secrets/key", "k")
			tr.trust(t, tr.proj)
			tr.write(t, filepath.Join(tr.user, "settings.yaml"), "permissions:\n  allow: [\"Bash(git push:*)\"]\n")
			evil := filepath.Join(tr.proj, "evil")
			mkdir(t, evil)
			c.plant(t, tr, evil)
			eng, err := engine.New(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			opts := tr.opts()
			opts.ProjectDir, opts.Cwd = evil, evil
			l := settings.NewLayers(opts)
			problems := l.Attach(context.Background(), eng)
			read := map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": filepath.Join(tr.proj, "secrets", "key")}, "cwd": evil, "permission_mode": "default"}
			if d := decide(eng, read); d.Behavior != permission.Deny {
				t.Errorf("Read of the enclosing project's secrets from %s: %s (%s), want DENY by its rule Read(/secrets/**); problems %v", evil, d.Behavior, d.Message, problems)
			}
			// The user's own and the trusted project's allow rules count as
			// theirs, whatever the link.
			for _, cmd := range []string{"git push origin main", "npm test"} {
				if d := decide(eng, bashCall(evil, cmd)); d.Behavior != permission.Allow {
					t.Errorf("%s: %s (%s), want ALLOW by its trusted rule; problems %v", cmd, d.Behavior, d.Message, problems)
				}
			}
			// The hook's per-cwd layers (adapter's project cache) read the
			// same way.
			chain := settings.NewProjectChainLayers(evil, evil, tr.user)
			s, _ := chain.Load()
			if !ruleFrom(s, "Read(/secrets/**)", "deny", filepath.Join(tr.proj, ".permopa", "settings.yaml")) {
				t.Errorf("project chain of %s: the enclosing deny rule is not the enclosing project's: %v", evil, s.Rules)
			}
		})
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
