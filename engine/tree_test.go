package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// The settings layers' test tree (settings/layers_test.go), for the
// engine's end-to-end tests that decide with rules in real files.

// tree is a real directory tree with the layers' places: managed, project
// (.permopa/) and user directories.
type tree struct {
	root, proj, managed, user, home string
	environ                         []string
}

func newTree(t *testing.T) *tree {
	t.Helper()
	root := t.TempDir()
	tr := &tree{
		root: root, proj: filepath.Join(root, "proj"), managed: filepath.Join(root, "etc", "permopa"),
		user: filepath.Join(root, "home", ".config", "permopa"), home: filepath.Join(root, "home"),
		environ: []string{},
	}
	for _, d := range []string{tr.proj, tr.managed, tr.user} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// npm test, the tests' command allowed by rule, runs this script:
	// permopa reads it (docs/shell.md, "Scripts"), and one it cannot read
	// is uncertain under the deny rules.
	if err := os.WriteFile(filepath.Join(tr.proj, "package.json"), []byte(`{"scripts": {"test": "echo ok", "build": "echo built"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return tr
}

func (tr *tree) opts() settings.LayerOptions {
	return settings.LayerOptions{ManagedDir: tr.managed, ProjectDir: tr.proj, UserDir: tr.user, Home: tr.home, Cwd: tr.proj, Environ: tr.environ}
}

func (tr *tree) write(t *testing.T, path, content string) string {
	t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(tr.proj, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(path, tr.proj+string(filepath.Separator)) {
		// The tree is the user's own project, trusted as the user would
		// (`permopa trust`) after each edit: these tests are about what
		// its rules mean (settings/trust_test.go holds what an untrusted
		// project's files may do).
		trustProject(t, tr.user, tr.proj)
	}
	return path
}

// trustProject records the user's trust in project's settings files as
// they are now (settings.RecordTrust, as `permopa trust` does).
func trustProject(t testing.TB, userDir, project string) {
	t.Helper()
	digests, err := settings.ProjectFileDigests(project)
	if err != nil {
		return // a file broken on purpose: nothing to trust
	}
	if err := settings.RecordTrust(userDir, project, digests); err != nil {
		t.Fatal(err)
	}
}

// attach builds an engine on the tree's layers; problems are returned, not fatal.
func (tr *tree) attach(t *testing.T) (*engine.Engine, *settings.Layers, []error) {
	t.Helper()
	eng, err := newEngine(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	l := settings.NewLayers(tr.opts())
	problems := l.Attach(context.Background(), eng)
	return eng, l, problems
}

func bashCall(dir, cmd string) map[string]any {
	return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": dir}
}

func decide(eng *engine.Engine, in map[string]any) permission.Decision {
	return eng.Decide(context.Background(), in)
}
