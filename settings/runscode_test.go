package settings_test

import (
	"testing"

	"github.com/permopa/permopa/builtins/flagspec"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// TestLintWarnsOnEveryCodeRunner holds rules lint to the vocabulary's one
// table of programs that run code (flagspec.RunsCode): an allow rule
// "Bash(p:*)", "Bash(p *)" or "Bash(p -x:*)" for any of them is wide, its
// exact words are not, and programs that run no code keep their words.
func TestLintWarnsOnEveryCodeRunner(t *testing.T) {
	t.Parallel()
	wide := func(content string) bool {
		r, err := settings.RuleFrom("Bash("+content+")", "allow")
		if err != nil {
			t.Fatalf("Bash(%s): %v", content, err)
		}
		for _, f := range settings.LintRules([]permission.Rule{r}) {
			if f.Kind == settings.CheckWide && f.Level == settings.LevelWarning {
				return true
			}
		}
		return false
	}
	for _, p := range flagspec.CodeRunners() {
		for _, c := range []string{p + ":*", p + " *", p + " -x:*", "/usr/bin/" + p + ":*"} {
			if !wide(c) {
				t.Errorf("Bash(%s): no wide warning, but %s", c, settings.WideBashRule(c))
			}
		}
		if wide(p + " -x y") {
			t.Errorf("Bash(%s -x y) is exact, yet reported wide", p)
		}
	}
	// The examples, and programs that run no code.
	for _, c := range []string{"nodejs:*", "julia:*", "tclsh:*", "java:*", "mksh:*", "parallel:*", "yash -c:*", "fakeroot:*"} {
		if !wide(c) {
			t.Errorf("Bash(%s) is not reported wide", c)
		}
	}
	for _, c := range []string{"ls:*", "git status:*", "npm run build", "cat:*", "rm -rf build"} {
		if wide(c) {
			t.Errorf("Bash(%s) is reported wide: %s", c, settings.WideBashRule(c))
		}
	}
}
