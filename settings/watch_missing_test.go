package settings_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/permopa/permopa/permission"
)

// TestWatchSeesDirectoriesCreatedLater: a settings directory missing more
// than one level down when watching starts (~/.config/permopa on an account
// without ~/.config, a project's .permopa under a directory made later) is
// seen once it is created with its file.
func TestWatchSeesDirectoriesCreatedLater(t *testing.T) {
	tr := newTree(t)
	if err := os.RemoveAll(filepath.Join(tr.home, ".config")); err != nil {
		t.Fatal(err)
	}
	eng, l, _ := tr.attach(t)
	reloads := make(chan []error, 16)
	if err := l.Watch(context.Background(), func(p []error) { reloads <- p }); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if d := decide(eng, bashCall(tr.proj, "npm test")); d.Behavior == permission.Deny {
		t.Fatalf("denied before any rule: %+v", d)
	}
	tr.write(t, filepath.Join(tr.user, "settings.yaml"), "permissions:\n  deny: [\"Bash(npm test)\"]\n")
	waitReload(t, reloads, func([]error) bool {
		return decide(eng, bashCall(tr.proj, "npm test")).Behavior == permission.Deny
	})
}
