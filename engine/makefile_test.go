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

// makeProject is a project whose makefiles hide denied commands behind
// targets, variables, includes and nested makes (issue 27).
func makeProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"Makefile": `include mk/vars.mk
all: build
build:
	go build ./...
clean:
	@-rm -rf build
release:
	$(GIT) $(PUSH) origin main
deep:
	$(MAKE) -C sub wipe
.PHONY: all build clean release deep
`,
		"mk/vars.mk":   "GIT = git\nPUSH = push --force\n",
		"sub/Makefile": "wipe:\n\trm -fr out\n",
		"other.mk":     "go:\n\techo one && rm -Rf cache\n",
		"shell.mk":     "STAMP := $(shell date)\ngo:\n\techo $(STAMP)\n",
		"env.mk":       "go:\n\t$(DEPLOY) prod\n",
	}
	for p, c := range files {
		writeModeFile(t, filepath.Join(dir, p), c, 0o644)
	}
	return dir
}

func makeEngine(t *testing.T, allow ...string) *engine.Engine {
	t.Helper()
	var rules []permission.Rule
	add := func(behavior string, contents ...string) {
		for _, c := range contents {
			c := c
			rules = append(rules, permission.Rule{ToolName: "Bash", RuleContent: &c, Behavior: behavior, Source: "userSettings", Layer: "user"})
		}
	}
	add("DENY", "rm -rf:*", "git push --force:*")
	add("ALLOW", allow...)
	eng, err := newEngine(context.Background(), engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/", Rules: rules}))
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

func decideIn(eng *engine.Engine, dir, cmd, mode string) permission.Decision {
	return eng.Decide(context.Background(), map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
		"cwd": dir, "permission_mode": mode,
	})
}

// A deny rule holds through make in every mode: the recipe's command is
// judged as if typed, flag-aware, and the decision names the makefile,
// line and target. An allow rule for make does not lift it.
func TestMakeRecipesHitDenyRulesEveryMode(t *testing.T) {
	t.Parallel()
	dir := makeProject(t)
	for _, eng := range []*engine.Engine{makeEngine(t), makeEngine(t, "make:*")} {
		cases := []struct{ cmd, rule, where string }{
			{"make clean", "Bash(rm -rf:*)", "Makefile:6 target clean"},
			{"make -s -k clean", "Bash(rm -rf:*)", "Makefile:6 target clean"},
			{"make release", "Bash(git push --force:*)", "Makefile:8 target release"},
			{"make deep", "Bash(rm -rf:*)", "sub/Makefile:2 target wipe"},
			{"make -C sub", "Bash(rm -rf:*)", "sub/Makefile:2 target wipe"},
			{"cd sub && make wipe", "Bash(rm -rf:*)", "sub/Makefile:2 target wipe"},
			{"make -f other.mk", "Bash(rm -rf:*)", "other.mk:2 target go"},
			{"make --file=other.mk go", "Bash(rm -rf:*)", "other.mk:2 target go"},
			{"timeout 60 make all clean", "Bash(rm -rf:*)", "Makefile:6 target clean"},
		}
		for _, c := range cases {
			for _, mode := range allModes {
				d := decideIn(eng, dir, c.cmd, mode)
				if d.Behavior != permission.Deny || d.Step != permission.StepDenyRule || d.MatchedRule == nil || d.MatchedRule.String() != c.rule {
					t.Errorf("%s: %q: %s/%s by %v (%s), want DENY by %s", mode, c.cmd, d.Behavior, d.Step, d.MatchedRule, d.Reason, c.rule)
					continue
				}
				if !strings.Contains(d.Reason+" "+d.Message, c.where) {
					t.Errorf("%s: %q: the decision does not name %s: %s / %s", mode, c.cmd, c.where, d.Reason, d.Message)
				}
			}
		}
	}
}

// A makefile the reader cannot model leaves make uncertain: every deny
// rule could match, a safety ASK where someone can answer, DENY where
// nobody can, whatever allow rule names make.
func TestUnmodelledMakefilesAreUncertainEveryMode(t *testing.T) {
	t.Parallel()
	dir := makeProject(t)
	for _, eng := range []*engine.Engine{makeEngine(t), makeEngine(t, "make:*")} {
		for _, cmd := range []string{
			"make -f shell.mk",        // $(shell) runs while make reads
			"make -f env.mk",          // a variable only the environment defines
			"make -f missing.mk",      // make would build it
			"make --eval='x: ; :' go", // makefile code on the command line
			"make -C $DIR",            // a directory only known at run time
			"export X=1; make build",  // an environment the reader does not see
		} {
			for _, mode := range allModes {
				d := decideIn(eng, dir, cmd, mode)
				want := uncertainDenyBehavior[mode]
				if d.Behavior != want || d.Step != permission.StepDenyRuleUncertain || !d.BypassImmune {
					t.Errorf("%s: %q: %s/%s (%s), want %s for a deny rule that could match", mode, cmd, d.Behavior, d.Step, d.Reason, want)
				}
			}
		}
	}
}

// What make runs decides the rest: recipes without a denied command are
// allowed by an allow rule for the target, asked for without one, and
// never read-only (the makefile can change before it runs).
func TestMakeWithoutDeniedCommands(t *testing.T) {
	t.Parallel()
	dir := makeProject(t)
	cases := []struct {
		allow      []string
		cmd, mode  string
		behavior   string
		notReadOnl bool
	}{
		{[]string{"make build"}, "make build", "default", permission.Allow, true},
		{[]string{"make:*"}, "make", "default", permission.Allow, true},
		{nil, "make build", "default", permission.Ask, true},
		{nil, "make build", "dontAsk", permission.Deny, true},
		{nil, "make build", "plan", permission.Deny, true},
		{nil, "make build", "bypassPermissions", permission.Allow, true},
	}
	for _, c := range cases {
		eng := makeEngine(t, c.allow...)
		d := decideIn(eng, dir, c.cmd, c.mode)
		if d.Behavior != c.behavior || d.Step == permission.StepReadOnly || d.Step == permission.StepDenyRuleUncertain {
			t.Errorf("%s %v: %q: %s/%s (%s), want %s", c.mode, c.allow, c.cmd, d.Behavior, d.Step, d.Reason, c.behavior)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "build")); err == nil {
		t.Fatal("a decision ran make")
	}
}
