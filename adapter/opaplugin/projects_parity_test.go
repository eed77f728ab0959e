package opaplugin

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// The two per-call project caches, the Go API's (adapter.ProjectCache,
// which `permopa decide` and the hooks use) and a server's
// (settings.projects), see the same changes between two calls: trust
// recorded, a file edited after trust, trust revoked, an enclosing
// .permopa appearing, and a cwd that is a link retargeted to a project
// whose files have the same sizes and times. Each entry point answers the
// second call from the new state.
func TestProjectCachesSeeTheSameChanges(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	app := projectDir(t, filepath.Join(ws, "app"), "permissions:\n  deny: [\"Bash(git push:*)\"]\n  allow: [\"Bash(make:*)\"]\n", "")
	sub := filepath.Join(app, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// Two projects whose files differ only in what they deny, with the
	// same sizes and modification times.
	a1 := projectDir(t, filepath.Join(root, "a1"), "permissions:\n  deny: [\"Bash(git pull:*)\"]\n", "")
	a2 := projectDir(t, filepath.Join(root, "a2"), "permissions:\n  deny: [\"Bash(git push:*)\"]\n", "")
	when := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, p := range []string{
		filepath.Join(a1, ".permopa", "settings.yaml"), filepath.Join(a2, ".permopa", "settings.yaml"),
		filepath.Join(a1, ".permopa"), filepath.Join(a2, ".permopa"),
	} {
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(root, "cur")
	if err := os.Symlink(a1, link); err != nil {
		t.Fatal(err)
	}

	server := t.TempDir()
	user := filepath.Join(server, "user")
	h := start(t, newBundleServer(t), projectsConfig(server, root))
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pc := adapter.NewProjectCache(eng, "", user)
	entries := map[string]func(cwd, cmd string) permission.Decision{
		"server": func(cwd, cmd string) permission.Decision { return h.decide(t, bashIn(cwd, cmd)) },
		"Go API": func(cwd, cmd string) permission.Decision {
			return pc.Decide(context.Background(), map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": cwd})
		},
	}
	file := filepath.Join(app, ".permopa", "settings.yaml")
	steps := []struct {
		what   string
		change func()
		cwd    string
		cmd    string
		want   string
	}{
		{"untrusted", func() {}, sub, "make all", permission.Ask},
		{"untrusted deny", func() {}, sub, "git push origin main", permission.Deny},
		{"trusted", func() { trustProjects(t, user, app) }, sub, "make all", permission.Allow},
		{"edited after trust", func() {
			writeSettings(t, file, "permissions:\n  deny: [\"Bash(git push:*)\"]\n  allow: [\"Bash(make:*)\", \"Bash(curl:*)\"]\n")
		}, sub, "make all", permission.Ask},
		{"trusted again", func() { trustProjects(t, user, app) }, sub, "make all", permission.Allow},
		{"revoked", func() {
			if _, err := settings.RevokeTrust(user, app); err != nil {
				t.Fatal(err)
			}
		}, sub, "make all", permission.Ask},
		{"an enclosing .permopa appears", func() {
			projectDir(t, ws, "permissions:\n  deny: [\"Bash(make:*)\"]\n", "")
		}, sub, "make all", permission.Deny},
		{"the cwd's link, first", func() {}, link, "git push origin main", permission.Ask},
		{"the cwd's link retargeted", func() {
			if err := os.Remove(link); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(a2, link); err != nil {
				t.Fatal(err)
			}
		}, link, "git push origin main", permission.Deny},
	}
	for _, s := range steps {
		s.change()
		for name, decide := range entries {
			if d := decide(s.cwd, s.cmd); d.Behavior != s.want {
				t.Errorf("%s: %s: %s in %s: %s (%s), want %s", s.what, name, s.cmd, s.cwd, d.Behavior, d.Message, s.want)
			}
		}
	}
}
