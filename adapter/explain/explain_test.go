package explain_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/permopa/permopa/adapter/explain"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

func denyRuleContext(rules map[string][]map[string]any) map[string]any {
	return map[string]any{"deny_rules": rules}
}

// The explanation of a denied compound command names the leaf and the rule
// that denied it.
func TestExplainDeniedCompoundNamesLeafAndRule(t *testing.T) {
	t.Parallel()
	eng := testEngine(t)
	in := map[string]any{
		"tool_name":       "Bash",
		"tool_input":      map[string]any{"command": "git status && sudo rm -rf build; echo done"},
		"cwd":             "/tmp/permopa-ws",
		"permission_mode": "default",
		"permission_context": denyRuleContext(map[string][]map[string]any{
			"Bash": {{"tool_name": "Bash", "rule_content": "rm -rf:*", "behavior": "DENY"}},
		}),
	}
	ex, err := explain.Decide(context.Background(), eng, in)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Decision.Behavior != "DENY" || ex.Decision.Step != "deny_rule" {
		t.Fatalf("decision %+v", ex.Decision)
	}
	p := ex.Points[0]
	if p.Step != "deny_rule" || p.Status != "decided" || p.Rule == nil || p.Rule.String() != "Bash(rm -rf:*)" {
		t.Fatalf("point 1: %+v", p)
	}
	if len(p.Leaves) != 1 || p.Leaves[0] != 1 {
		t.Fatalf("leaves hit: %v, want [1] (the rm leaf)", p.Leaves)
	}
	var out bytes.Buffer
	if err := ex.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, s := range []string{
		"Decision: DENY at deny_rule",
		"rule: Bash(rm -rf:*) from permission_context",
		"hits leaf 2: rm -rf build   (through sudo)",
		"leaf 1: git status",
		"not reached",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("explanation lacks %q:\n%s", s, text)
		}
	}
}

// A Read deny rule denies `cat .env`: the explanation names the leaf that reads it.
func TestExplainPathRuleLeaf(t *testing.T) {
	t.Parallel()
	eng := testEngine(t)
	in := map[string]any{
		"tool_name":  "Bash",
		"tool_input": map[string]any{"command": "ls; cat ./.env | wc -l"},
		"cwd":        "/tmp/permopa-ws",
		"permission_context": denyRuleContext(map[string][]map[string]any{
			"Read": {{"tool_name": "Read", "rule_content": "./.env", "behavior": "DENY"}},
		}),
	}
	ex, err := explain.Decide(context.Background(), eng, in)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Decision.Step != "deny_rule" || len(ex.Points[0].Leaves) != 1 || ex.Points[0].Leaves[0] != 1 {
		t.Fatalf("decision %+v, leaves %v", ex.Decision, ex.Points[0].Leaves)
	}
}

// An ASK explains why the command is not read-only and suggests the rule.
func TestExplainAskSuggestion(t *testing.T) {
	t.Parallel()
	ex, err := explain.Decide(context.Background(), testEngine(t), map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": "npm install --ignore-scripts left-pad && git log"}, "cwd": "/tmp/permopa-ws",
	})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_ = ex.WriteText(&out)
	for _, s := range []string{"> 6 mode fallback", "3 read-only     passed      not read-only: npm", "Bash(npm install:*)", "permopa rules add --project /tmp/permopa-ws --destination local 'Bash(npm install:*)'"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("explanation lacks %q:\n%s", s, out.String())
		}
	}
	if ex.Points[3].Status != "passed" || ex.Points[4].Status != "passed" {
		t.Errorf("points 4 and 5: %+v %+v", ex.Points[3], ex.Points[4])
	}
}

// In EXPLORE, the tool check and allow rules are skipped; an unknown mode is an error.
func TestExplainSkippedAndError(t *testing.T) {
	t.Parallel()
	eng := testEngine(t)
	ex, err := explain.Decide(context.Background(), eng, map[string]any{
		"tool_name": "Write", "tool_input": map[string]any{"file_path": "/tmp/permopa-ws/a.go"}, "permission_mode": "plan",
	})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Mode != "EXPLORE" || ex.Points[3].Status != "skipped" || ex.Points[4].Status != "skipped" || ex.Points[5].Status != "decided" {
		t.Fatalf("%+v", ex.Points)
	}
	ex, err = explain.Decide(context.Background(), eng, map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}, "permission_mode": "yolo",
	})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Decision.Step != "error" || len(ex.InputErrors) != 1 || !strings.Contains(ex.InputErrors[0], "yolo") {
		t.Fatalf("%+v", ex)
	}
}

func TestBashAnalysis(t *testing.T) {
	t.Parallel()
	a, err := explain.BashAnalysis(context.Background(), testEngine(t), "timeout 5 find . -name '*.go' -delete", "/tmp/permopa-ws")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	explain.WriteBashAnalysis(&b, a)
	for _, s := range []string{"not read-only", "leaf 1: find . -name '*.go' -delete   (through timeout)", "-delete"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("analysis lacks %q:\n%s", s, b.String())
		}
	}
}

// Point 5 says what covers each leaf, and which leaf no allow rule covers.
func TestExplainAllowCoverage(t *testing.T) {
	t.Parallel()
	allow := func(contents ...string) map[string]any {
		var rs []map[string]any
		for _, c := range contents {
			rs = append(rs, map[string]any{"tool_name": "Bash", "rule_content": c, "behavior": "ALLOW"})
		}
		return map[string]any{"allow_rules": map[string][]map[string]any{"Bash": rs}}
	}
	in := map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": "npm run build && git status && sudo make install"},
		"cwd": "/tmp/permopa-ws", "permission_context": allow("npm run:*", "make install"),
	}
	ex, err := explain.Decide(context.Background(), testEngine(t), in)
	if err != nil {
		t.Fatal(err)
	}
	cov := ex.Points[4].Coverage
	if ex.Decision.Step != "mode_fallback" || len(cov) != 3 || cov[0].Rule == nil || cov[1].By != "read-only" || cov[2].By != "" {
		t.Fatalf("decision %s, coverage %+v", ex.Decision.Step, cov)
	}
	var out bytes.Buffer
	_ = ex.WriteText(&out)
	if !strings.Contains(out.String(), "leaf 3 make install   (through sudo > make): NOT covered by any allow rule") {
		t.Errorf("coverage text:\n%s", out.String())
	}
	in["tool_input"] = map[string]any{"command": "npm run build && git status"}
	ex, _ = explain.Decide(context.Background(), testEngine(t), in)
	if ex.Decision.Step != "allow_rule" || ex.Points[4].Coverage[0].By != "Bash(npm run:*) from permission_context" {
		t.Fatalf("%s %+v", ex.Decision.Step, ex.Points[4].Coverage)
	}
}

// explain says when a read-only command reads from the network, names the
// caches it may write, and, when network_reads is ask, that the setting
// kept it from being read-only.
func TestExplainNetworkRead(t *testing.T) {
	t.Parallel()
	in := map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": "npm view react version"},
		"cwd": "/tmp/permopa-ws", "permission_mode": "plan",
	}
	ex, err := explain.Decide(context.Background(), testEngine(t), in)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_ = ex.WriteText(&out)
	for _, s := range []string{"Decision: ALLOW at read_only", "a network read (npm view", "network_reads: allow",
		"own cache and logs", "/root/.npm/_logs"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("explanation lacks %q:\n%s", s, out.String())
		}
	}

	eng, err := engine.New(context.Background(), engine.WithSettings(settings.Settings{Home: "/root", Cwd: "/tmp/permopa-ws", NetworkReads: "ask"}))
	if err != nil {
		t.Fatal(err)
	}
	ex, err = explain.Decide(context.Background(), eng, in)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	_ = ex.WriteText(&out)
	if ex.Decision.Behavior != "DENY" || !ex.NetworkReadAsked {
		t.Fatalf("decision %+v, asked %v", ex.Decision, ex.NetworkReadAsked)
	}
	if s := "reads from the network (npm view) and the setting network_reads is ask"; !strings.Contains(out.String(), s) {
		t.Errorf("explanation lacks %q:\n%s", s, out.String())
	}
}

// explain shows what the decision matched, not a re-match of the rule's
// words: a flag-aware deny hit names its leaf, and a leaf that writes a
// file by redirection is not covered by a rule for its program.
func TestExplainLeavesAsTheDecisionMatches(t *testing.T) {
	t.Parallel()
	eng := testEngine(t)
	ex, err := explain.Decide(context.Background(), eng, map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": "ls && rm -fr build"}, "cwd": "/tmp/permopa-ws",
		"permission_context": denyRuleContext(map[string][]map[string]any{
			"Bash": {{"tool_name": "Bash", "rule_content": "rm -rf:*", "behavior": "DENY"}},
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Decision.Step != "deny_rule" || len(ex.Points[0].Leaves) != 1 || ex.Points[0].Leaves[0] != 1 {
		t.Fatalf("decision %s, leaves %v", ex.Decision.Step, ex.Points[0].Leaves)
	}
	ex, err = explain.Decide(context.Background(), eng, map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": "echo hi > out.txt && npm test"}, "cwd": "/tmp/permopa-ws",
		"permission_context": map[string]any{"allow_rules": map[string][]map[string]any{
			"Bash": {{"tool_name": "Bash", "rule_content": "npm test", "behavior": "ALLOW"}},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cov := ex.Points[4].Coverage
	if ex.Decision.Step == "allow_rule" || len(cov) != 2 || cov[0].By != "" || cov[1].Rule == nil {
		t.Fatalf("decision %s, coverage %+v", ex.Decision.Step, cov)
	}
}

var (
	defaultEngineOnce sync.Once
	defaultEngine     *engine.Engine
	defaultEngineErr  error
)

// testEngine is one engine with the default policy, shared by the tests.
func testEngine(t *testing.T) *engine.Engine {
	t.Helper()
	defaultEngineOnce.Do(func() {
		defaultEngine, defaultEngineErr = engine.New(context.Background(),
			engine.WithSettings(settings.Settings{Home: "/root", Cwd: "/tmp/permopa-ws"}))
	})
	if defaultEngineErr != nil {
		t.Fatal(defaultEngineErr)
	}
	return defaultEngine
}

// The explanation names the check that decided (docs/api.md, "Check ids"),
// in the decision, the decided point and the text, and the check a mode
// passed over (BYPASS skips a safety ASK that does not protect settings).
func TestExplainNamesTheCheck(t *testing.T) {
	t.Parallel()
	eng := testEngine(t)
	cases := []struct {
		command, mode, check string
		want                 []string
	}{
		{"printenv", "default", "environment_dump", []string{
			"Decision: ASK at tool_check", "Check:    environment_dump", "      check: environment_dump"}},
		{"cat ~/.ssh/id_rsa", "dontAsk", "credential_read", []string{
			"Decision: DENY at tool_check", "Check:    credential_read"}},
		{"printenv", "bypassPermissions", "", []string{
			"the tool check environment_dump says ASK (safety, bypass-immune)", "BYPASS ignores it"}},
	}
	for _, c := range cases {
		in := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": c.command},
			"cwd": "/tmp/permopa-ws", "permission_mode": c.mode}
		ex, err := explain.Decide(context.Background(), eng, in)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Decision.Check != c.check {
			t.Errorf("%s in %s: check %q, want %q", c.command, c.mode, ex.Decision.Check, c.check)
		}
		var out bytes.Buffer
		if err := ex.WriteText(&out); err != nil {
			t.Fatal(err)
		}
		for _, s := range c.want {
			if !strings.Contains(out.String(), s) {
				t.Errorf("%s in %s: the explanation lacks %q:\n%s", c.command, c.mode, s, out.String())
			}
		}
		if c.check == "" && strings.Contains(out.String(), "Check:") {
			t.Errorf("%s in %s: a decision without a check names one:\n%s", c.command, c.mode, out.String())
		}
	}
}

// The rule suggested for a command that runs scripts shows what they hold
// now: accepting it allows whatever they hold when they run (issue 27).
func TestExplainScriptSuggestionShowsWhatRuns(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts": {"build": "tsc -p . && cp -r static dist"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(context.Background(), engine.WithSettings(settings.Settings{Home: "/root", Cwd: dir}))
	if err != nil {
		t.Fatal(err)
	}
	ex, err := explain.Decide(context.Background(), eng, map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": "npm run build"}, "cwd": dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_ = ex.WriteText(&out)
	want := "  Bash(npm run build)\n    allows the scripts it runs as they are when they run; now:\n" +
		"      package.json:1 script build: tsc -p .; cp -r static dist\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("explanation lacks %q:\n%s", want, out.String())
	}
}
