package replay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// TestReplayProjectRulesBounded (issue 24): with ProjectRules every project
// a log names is loaded into the policy, and each one loaded made the next
// cost more (2,000 projects would take time and memory growing with their
// square: BENCHMARKS.md, "Replay with project rules"). Past MaxProjects the
// calls are decided without their project's rules, and the summary, the
// report and a warning say how many and from which line.
func TestReplayProjectRulesBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	userDir := filepath.Join(root, "user")
	var log bytes.Buffer
	for i := range 8 {
		dir := filepath.Join(root, fmt.Sprintf("p%d", i))
		if err := os.MkdirAll(filepath.Join(dir, ".permopa"), 0o755); err != nil {
			t.Fatal(err)
		}
		rules := "permissions:\n  allow: [\"Bash(npm test:*)\"]\n"
		if err := os.WriteFile(filepath.Join(dir, ".permopa", "settings.yaml"), []byte(rules), 0o644); err != nil {
			t.Fatal(err)
		}
		// The user trusts every project, as permopa trust records it: the
		// bound, not trust, is what leaves the last three out.
		digests, err := settings.ProjectFileDigests(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := settings.RecordTrust(userDir, dir, digests); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&log, `{"input":{"tool_name":"Bash","tool_input":{"command":"npm test"},"cwd":%q,"permission_mode":"default"},"result":{"behavior":"ASK","step":"mode_fallback"}}`+"\n", dir)
	}
	data := log.Bytes()
	src := Source{Name: "calls.log", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
	eng, err := engine.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	sum, err := Run(ctx, []Source{src}, Options{Candidate: eng, Jobs: 1, ProjectRules: true, MaxProjects: 5, UserDir: userDir,
		OnWarning: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	// The five projects loaded allow the call (ASK → ALLOW); the three past
	// the bound keep the policy's ASK.
	if sum.Behaviors["ASK → ALLOW"] != 5 || sum.Behaviors["ASK → ASK"] != 3 {
		t.Errorf("behaviors %v, want 5 ASK → ALLOW and 3 ASK → ASK", sum.Behaviors)
	}
	if sum.WithoutProjectRules != 3 || sum.WithoutProjectRulesFrom != "calls.log:6" || sum.MaxProjects != 5 {
		t.Errorf("%d calls without project rules from %q (max %d), want 3 from calls.log:6 (max 5)", sum.WithoutProjectRules, sum.WithoutProjectRulesFrom, sum.MaxProjects)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "more than 5 projects") || !strings.Contains(warnings[0], "calls.log:6") {
		t.Errorf("warnings %q, want one naming the bound and calls.log:6", warnings)
	}
	// With a base policy as well (Rebase), each project is loaded into
	// both engines and counts once against the bound.
	base, err := engine.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sum2, err := Run(ctx, []Source{src}, Options{Candidate: eng, Base: func(context.Context) (*engine.Engine, error) { return base, nil },
		Rebase: true, Jobs: 1, ProjectRules: true, MaxProjects: 5})
	if err != nil {
		t.Fatal(err)
	}
	if sum2.WithoutProjectRules != 3 || sum2.WithoutProjectRulesFrom != "calls.log:6" {
		t.Errorf("with a base policy: %d calls without project rules from %q, want 3 from calls.log:6", sum2.WithoutProjectRules, sum2.WithoutProjectRulesFrom)
	}
	var text bytes.Buffer
	if err := NewTextReport(&text, ReportOptions{}).Finish(sum); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "truncated: 3 calls decided without their project's rules, from calls.log:6 on") {
		t.Errorf("the report does not say what it left out:\n%s", text.String())
	}
}
