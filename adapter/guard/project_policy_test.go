package guard_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/adapter/guard"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// ProjectPolicy decides each call with its cwd's project rules: the deny
// rules at once, the allow rules once the user trusts the project; a call
// elsewhere gets neither (issue 25).
func TestProjectPolicyReadsTheCallsProject(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	root, user := t.TempDir(), t.TempDir()
	proj := filepath.Join(root, "proj")
	os.MkdirAll(filepath.Join(proj, ".permopa"), 0o755)
	os.WriteFile(filepath.Join(proj, ".permopa", "settings.yaml"), []byte("permissions:\n  deny: [\"Bash(git push:*)\"]\n  allow: [\"Bash(make:*)\"]\n"), 0o644)
	policy := guard.ProjectPolicy(adapter.NewProjectCache(eng, "", user))
	decide := func(cwd, cmd string) string {
		c := adapter.Call{ToolName: "Bash", ToolInput: map[string]any{"command": cmd}, Cwd: cwd}
		return policy.Evaluate(ctx, guard.RequestFor(c)).Behavior
	}
	if got := decide(proj, "git push"); got != permission.Deny {
		t.Errorf("the project's deny rule: %s", got)
	}
	if got := decide(root, "git push"); got != permission.Ask {
		t.Errorf("another cwd: %s", got)
	}
	if got := decide(proj, "make all"); got != permission.Ask {
		t.Errorf("untrusted allow rule: %s", got)
	}
	digests, _ := settings.ProjectFileDigests(proj)
	if err := settings.RecordTrust(user, proj, digests); err != nil {
		t.Fatal(err)
	}
	if got := decide(proj, "make all"); got != permission.Allow {
		t.Errorf("trusted allow rule: %s", got)
	}
}
