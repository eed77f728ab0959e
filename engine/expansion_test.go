package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

var expansionModes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"}

func decideExpansion(eng *engine.Engine, cmd, mode string) permission.Decision {
	return eng.Decide(context.Background(), map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
		"cwd": "/w", "permission_mode": mode,
	})
}

// Commands in which bash runs "rm -rf x" while it evaluates a string as
// arithmetic or as a variable name (builtins/bash evaluate_test.go has the
// full table, each case checked against real bash).
var evaluatedCode = []string{
	`test -v 'a[$(rm -rf x)]'`,
	`[ -v 'a[$(rm -rf x)]' ]`,
	`test -v $'a[\x24(rm -rf x)]'`,
	`[[ -v 'a[$(rm -rf x)]' ]]`,
	`[[ 'a[$(rm -rf x)]' -eq 1 ]]`,
	`(( 'a[$(rm -rf x)]' ))`,
	`echo $(( 'a[$(rm -rf x)]' ))`,
	`let 'x=a[$(rm -rf x)]'`,
	`a=(1); echo ${a['$(rm -rf x)']}`,
	`x=abc; echo ${x:'$(rm -rf x)'}`,
	`x='a[$(rm -rf x)]'; echo $((x))`,
	`declare -i x='a[$(rm -rf x)]'`,
	`declare -a a='($(rm -rf x))'`,
	`declare -n r='a[$(rm -rf x)]'; echo $r`,
	`printf -v 'a[$(rm -rf x)]' y`,
	`read 'a[$(rm -rf x)]' <<< y`,
	`a=1; unset 'a[$(rm -rf x)]'`,
	`: {a['$(rm -rf x)']}>/dev/null`,
	`mapfile -C 'rm -rf x' -c 1 a <<< y`,
	`compgen -W '$(rm -rf x)' y`,
	`r='a[$(rm -rf x)]'; echo ${!r}`,
	`PS4='$(rm -rf x)'; set -x; :`,
	`bash -c "test -v 'a[\$(rm -rf x)]'"`,
	`echo $(test -v 'a[$(rm -rf x)]')`,
	`eval "let 'x=a[\$(rm -rf x)]'"`,
}

func expansionEngine(t *testing.T, rules ...permission.Rule) *engine.Engine {
	t.Helper()
	eng, err := newEngine(context.Background(), engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w", Rules: rules}))
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// A Bash(rm:*) deny rule sees the rm hidden in a string bash evaluates, in
// every mode.
func TestEvaluatedCodeMeetsDenyRules(t *testing.T) {
	t.Parallel()
	rm := "rm:*"
	eng := expansionEngine(t, permission.Rule{ToolName: "Bash", RuleContent: &rm, Behavior: "DENY", Source: "userSettings", Layer: "user"})
	for _, mode := range expansionModes {
		for _, cmd := range evaluatedCode {
			if d := decideExpansion(eng, cmd, mode); d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
				t.Errorf("%s: %q escaped the rm:* deny rule: %s/%s (%s)", mode, cmd, d.Behavior, d.Step, d.Message)
			}
		}
	}
}

// Without rules no mode takes such a command as read-only: a safety ASK
// where someone can answer, DENY where nobody can or in plan mode; BYPASS
// allows by its mode, as it allows any command no rule stops.
func TestEvaluatedCodeIsNeverReadOnly(t *testing.T) {
	t.Parallel()
	eng := expansionEngine(t)
	want := map[string]string{"default": permission.Ask, "acceptEdits": permission.Ask, "plan": permission.Deny, "dontAsk": permission.Deny, "bypassPermissions": permission.Allow}
	for _, mode := range expansionModes {
		for _, cmd := range evaluatedCode {
			d := decideExpansion(eng, cmd, mode)
			if d.Step == permission.StepReadOnly || d.Behavior != want[mode] {
				t.Errorf("%s: %q: %s/%s (%s), want %s and never read_only", mode, cmd, d.Behavior, d.Step, d.Message, want[mode])
			}
			if mode == "default" && !d.BypassImmune {
				t.Errorf("%q: a plain ASK, want a safety ASK (%s)", cmd, d.Message)
			}
		}
	}
}

// Input beyond the analyser's limits is denied with code limit_exceeded in
// every mode, whatever the rules allow.
func TestLimitsDenyInEveryMode(t *testing.T) {
	t.Parallel()
	eng := expansionEngine(t, permission.Rule{ToolName: "Bash", Behavior: "ALLOW", Source: "userSettings", Layer: "user"})
	inputs := map[string]string{
		"deep $( 30 KB":          strings.Repeat("$(", 15<<10/2) + strings.Repeat(")", 15<<10/2),
		"deep $( 1 MB":           strings.Repeat("$(", 1<<19) + strings.Repeat(")", 1<<19),
		"100k-part pipeline":     strings.Repeat("a|", 100_000) + "a",
		"100k && chain":          strings.Repeat("a&&", 100_000) + "a",
		"5k-part pipeline":       strings.Repeat("ls|", 5000) + "ls",
		"20k words":              "echo" + strings.Repeat(" a", 20_000),
		"deep ((((":              "((" + strings.Repeat("(", 10_000) + "1" + strings.Repeat(")", 10_000) + "))",
		"deep { { {":             strings.Repeat("{ ", 5000) + "a" + strings.Repeat(";}", 5000),
		"deep ${x:-${x:-":        "echo " + strings.Repeat("${x:-", 5000) + "y" + strings.Repeat("}", 5000),
		"huge heredoc":           "cat <<'EOF'\n" + strings.Repeat("text\n", 60_000) + "EOF",
		"deep script in bash -c": "bash -c '" + strings.Repeat("$(", 100) + strings.Repeat(")", 100) + "'",
	}
	for _, mode := range expansionModes {
		for name, cmd := range inputs {
			d := decideExpansion(eng, cmd, mode)
			if d.Behavior != permission.Deny || d.Step != permission.StepError || d.Code != "limit_exceeded" {
				t.Errorf("%s: %s: %s/%s code %q (%s)", mode, name, d.Behavior, d.Step, d.Code, d.Message)
			}
		}
	}
	// An ordinary command is still decided by the rules.
	if d := decideExpansion(eng, "make build", "default"); d.Behavior != permission.Allow {
		t.Errorf("make build: %s/%s", d.Behavior, d.Step)
	}
}
