package bash

import (
	"strings"
	"testing"

	"github.com/permopa/permopa/builtins/flagspec"
)

// TestCodeRunnersDrift holds the analyser's lists to the vocabulary's one
// table of programs that run code (flagspec.RunsCode): each is suggested
// only as its exact words, an interpreter or shell given no operand gets
// no suggestion, a shell's -c script is analysed so that a deny rule sees
// its commands, and RunsCode (what settings and replay read) names each.
func TestCodeRunnersDrift(t *testing.T) {
	t.Parallel()
	rm, err := CompilePattern("rm:*")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range flagspec.CodeRunners() {
		kind, why := flagspec.RunsCode(p)
		if RunsCode(p) != why || RunsCode("/usr/bin/"+p) != why {
			t.Errorf("RunsCode(%s) = %q, want %q", p, RunsCode(p), why)
		}
		if !exactOnly[p] {
			t.Errorf("%s runs code but a prefix rule may be suggested for it", p)
		}
		if rule, ok := suggestFor([]string{p, "build", "x"}); ok && strings.HasSuffix(rule, "*") {
			t.Errorf("%s: suggested %q, a prefix for a program that %s", p, rule, why)
		}
		switch kind {
		case flagspec.Interpreter, flagspec.ShellCode:
			if !interpreters[p] || shells[p] {
				t.Errorf("%s: not treated as an interpreter", p)
			}
		case flagspec.Shell:
			if !shells[p] || interpreters[p] {
				t.Errorf("%s: not treated as a shell", p)
			}
			a := Analyze(p+" -c 'rm -rf x'", Options{Cwd: "/w"})
			if a.MatchAny([]*Pattern{rm}) != 0 {
				t.Errorf("%s -c 'rm -rf x': the deny rule rm:* does not see rm", p)
			}
		default:
			if interpreters[p] || shells[p] {
				t.Errorf("%s: a %v treated as an interpreter or shell", p, kind)
			}
		}
		if kind == flagspec.Interpreter || kind == flagspec.Shell {
			if s := Analyze(p, Options{Cwd: "/w"}).Suggest(); s != nil {
				t.Errorf("%s reads its program from stdin, yet a rule is suggested: %q", p, s)
			}
		}
	}
	for p := range bashLike {
		if kind, _ := flagspec.RunsCode(p); kind != flagspec.Shell {
			t.Errorf("%s: parsed as bash but not a shell of the vocabulary", p)
		}
	}
	if RunsCode("ls") != "" || RunsCode("") != "" {
		t.Errorf("RunsCode(ls) = %q, RunsCode(\"\") = %q", RunsCode("ls"), RunsCode(""))
	}
}
