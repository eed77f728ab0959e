package engine_test

import (
	"bufio"
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// TestCheckedPolicyDecidesTheSame holds WithCheckedPolicy and
// WithDecisionOnly (the embedded policy compiled without OPA's check-only
// stages and without the explanation, as a cold hook process compiles it)
// to the engine compiled with every check and every module: the same decision,
// field for field, for every case of the decision matrix in every mode it
// names, and for every command of the Bash tables (the read-only table and
// the real-world corpus) with docs/usage.md's rules, in default and
// acceptEdits mode.
func TestCheckedPolicyDecidesTheSame(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pair := func(s settings.Settings) (full, checked *engine.Engine) {
		t.Helper()
		// The reference: the embedded policy fully checked, compiled
		// once for the package (newEngine).
		full, err := newEngine(ctx, engine.WithSettings(s))
		if err != nil {
			t.Fatal(err)
		}
		// As adapter.NewHookEngine builds it.
		checked, err = engine.New(ctx, engine.WithSettings(s), engine.WithCheckedPolicy(), engine.WithDecisionOnly())
		if err != nil {
			t.Fatal(err)
		}
		return full, checked
	}
	same := func(what string, full, checked *engine.Engine, input map[string]any) {
		t.Helper()
		want, got := full.Decide(ctx, input), checked.Decide(ctx, input)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: checked policy decided\n%+v\nthe fully checked one\n%+v", what, got, want)
		}
	}

	full, checked := pair(settings.Settings{Home: "/root", Cwd: "/tmp/permopa-ws"})
	// The explanation is left out, and a query that would read it is
	// refused rather than answered from part of the policy.
	if rules := checked.Compiler().GetRules(ast.MustParseRef("data.permopa.policy.explanation")); len(rules) != 0 {
		t.Errorf("the decision-only engine compiled the explanation (%d rules)", len(rules))
	}
	if v, err := checked.Evaluate(ctx, "data.permopa.policy.explanation", map[string]any{"tool_name": "Read"}); err == nil {
		t.Errorf("Evaluate on a decision-only engine answered %v, want an error", v)
	}
	if rules := full.Compiler().GetRules(ast.MustParseRef("data.permopa.policy.explanation")); len(rules) == 0 {
		t.Error("the full engine has no explanation")
	}
	// The first case of each tool and deciding step quick; every case
	// with -tags slow (.ci/run, docs/development.md "The quick suite").
	quick := quickFirst{}
	for _, c := range loadMatrix(t) {
		if !quick.take(matrixKind(c)) {
			continue
		}
		same("matrix "+c.ID, full, checked, c.raw)
	}

	s, problems, err := settings.LoadSettingsFile("testdata/readme-rules.yaml", settings.SourceProject)
	if err != nil || len(problems) > 0 {
		t.Fatalf("settings: %v %v", err, problems)
	}
	s.Home, s.Cwd = "/home/u", "/w"
	full, checked = pair(s)
	cmds := bashTable(t, "../builtins/bash/testdata/bash-readonly.tsv")
	cmds = append(cmds, bashTable(t, "../builtins/bash/testdata/realworld.tsv")...)
	if len(cmds) < 3000 {
		t.Fatalf("only %d commands in the Bash tables", len(cmds))
	}
	for i, cmd := range cmds {
		modes := []string{"default", "acceptEdits"}
		switch {
		case slowTests: // -tags slow: every command in both modes
		case i%48 == 0:
		default:
			// A deterministic sample (one command in 48, in both
			// modes) keeps the quick suite quick: each is two
			// decisions per mode.
			continue
		}
		for _, mode := range modes {
			same(mode+" "+cmd, full, checked, map[string]any{
				"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
				"cwd": "/w", "permission_mode": mode,
			})
		}
	}
}

// bashTable is the first column of a Bash table (tab-separated, # comments,
// a header line naming the column "command").
func bashTable(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "command\t") {
			continue
		}
		cmd, _, _ := strings.Cut(line, "\t")
		cmds = append(cmds, cmd)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}
