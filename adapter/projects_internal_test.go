package adapter

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	// The bound and eviction are adapter/internal/projectlru's; its
	// binding to the engine (adapter/internal/projectlayers) takes a
	// dropped project's rules out of the engine's settings: exactly the
	// three used last are in them.
	var inEngine []string
	for k := range eng.Settings().Projects {
		inEngine = append(inEngine, k)
	}
	slices.Sort(inEngine)
	if !slices.Equal(inEngine, dirs[5:]) {
		t.Errorf("projects in the engine's settings: %v, want the three used last %v", inEngine, dirs[5:])
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

// Issue 25: the Go API's per-call project cache applies to a call made in
// a subdirectory of a project the project's deny rules (docs/rules.md,
// "Enclosing projects"): when the subdirectory has no .permopa, when a
// planted one allows everything, and when the project's .permopa appears
// after the subdirectory's calls were first decided.
func TestProjectCacheEnclosingProject(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	root, user := t.TempDir(), t.TempDir()
	proj := filepath.Join(root, "proj")
	sub, loose := filepath.Join(proj, "sub"), filepath.Join(proj, "loose")
	for _, d := range []string{sub, filepath.Join(loose, ".permopa")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(loose, ".permopa", "settings.yaml"), []byte("permissions:\n  allow: [\"Bash\", \"Bash(rm -rf:*)\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pc := NewProjectCache(eng, "", user)
	call := func(cwd string) map[string]any {
		return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf ../victim"}, "cwd": cwd, "permission_mode": "bypassPermissions"}
	}
	for _, cwd := range []string{sub, loose} {
		if got := pc.Decide(ctx, call(cwd)); got.Behavior == permission.Deny {
			t.Fatalf("%s before the project has rules: %+v", cwd, got)
		}
	}
	ruleFile := filepath.Join(proj, ".permopa", "settings.json")
	if err := os.MkdirAll(filepath.Dir(ruleFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ruleFile, []byte(`{"permissions": {"deny": ["Bash(rm -rf:*)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cwd := range []string{sub, loose, filepath.Join(sub, "a", "b")} {
		got := pc.Decide(ctx, call(cwd))
		if got.Behavior != permission.Deny || got.MatchedRule == nil || got.MatchedRule.Layer != ruleFile {
			t.Errorf("%s: %+v, want DENY by %s", cwd, got, ruleFile)
		}
	}
}
