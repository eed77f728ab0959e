package adapter

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// ProjectCache keeps at most max projects; a dropped one is read again by
// its next call, with its deny rules; an unreadable project blocks its
// calls only; a change of its files or of the user's trust is seen.
func TestProjectCacheBoundedAndCurrent(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	root, user := t.TempDir(), t.TempDir()
	pc := NewProjectCache(eng, "", user)
	pc.projects.Max = 3
	project := func(i int) string {
		dir := filepath.Join(root, fmt.Sprint("p", i))
		os.MkdirAll(filepath.Join(dir, ".permopa"), 0o755)
		os.WriteFile(filepath.Join(dir, ".permopa", "settings.yaml"), []byte("permissions:\n  deny: [\"Bash(git push:*)\"]\n  allow: [\"Bash(make:*)\"]\n"), 0o644)
		return dir
	}
	call := func(cwd, cmd string) map[string]any {
		return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": cwd}
	}
	var dirs []string
	for i := range 8 {
		dirs = append(dirs, project(i))
	}
	for round := range 2 {
		for _, d := range dirs {
			if got := pc.Decide(ctx, call(d, "git push")); got.Behavior != permission.Deny {
				t.Fatalf("round %d %s: %+v", round, d, got)
			}
			if n := pc.Len(); n > 3 {
				t.Fatalf("%d projects kept, max 3", n)
			}
		}
	}
	if n := len(eng.Settings().Projects); n > 3 {
		t.Errorf("%d projects in the engine's settings, max 3", n)
	}
	d := dirs[0]
	if got := pc.Decide(ctx, call(d, "make all")); got.Behavior != permission.Ask {
		t.Errorf("untrusted allow rule: %+v", got)
	}
	digests, _ := settings.ProjectFileDigests(d)
	if err := settings.RecordTrust(user, d, digests); err != nil {
		t.Fatal(err)
	}
	if got := pc.Decide(ctx, call(d, "make all")); got.Behavior != permission.Allow {
		t.Errorf("trusted allow rule: %+v", got)
	}
	os.WriteFile(filepath.Join(d, ".permopa", "settings.yaml"), []byte("permissions:\n  deny: [\"Bash(make:*)\"\n"), 0o644)
	if got := pc.Decide(ctx, call(d, "ls")); got.Behavior != permission.Deny || got.Code != permission.CodeProjectSettingsUnreadable {
		t.Errorf("unreadable project: %+v", got)
	}
	if got := pc.Decide(ctx, call(dirs[1], "ls")); got.Behavior != permission.Allow {
		t.Errorf("another project: %+v", got)
	}
	// A cwd that is not a clean absolute path gets no project rules.
	for _, cwd := range []string{d + "/", "p1", d + "/../p0"} {
		if got := pc.Decide(ctx, call(cwd, "git push")); got.Behavior != permission.Ask {
			t.Errorf("%q: %+v", cwd, got)
		}
	}
}
