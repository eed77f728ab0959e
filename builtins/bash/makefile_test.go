package bash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// makeFixture writes a project for make's cases.
func makeFixture(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"Makefile": "RM_RF = rm -rf\nall: build\nbuild:\n\tgo build ./...\nclean:\n\t@-$(RM_RF) build\n" +
			"push:\n\tgit push origin main && echo done\ndeep:\n\t$(MAKE) -C lib wipe\nsub:\n\t$(MAKE) -C lib X=1\nself:\n\t$(MAKE) self\n" +
			"gen:\n\techo $(shell id)\n.PHONY: all build clean push sub self gen\n",
		"lib/Makefile": "X ?= echo safe\nall:\n\t$(X) lib\nwipe:\n\trm -fr out\n",
		"level.mk":     "ifeq ($(MAKELEVEL),0)\ngo: ; $(MAKE) -f level.mk inner\nelse\ninner: ; echo nested $(MAKELEVEL)\nendif\n",
		"cc.mk":        "go: ; $(CC) -v\n",
		"env.mk":       "ifeq ($(DEPLOY),1)\ngo: ; rm -rf ~\nelse\ngo: ; echo quiet $(V)\nendif\n",
	}
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// make's recipes are leaves deny rules see, under a wrapper naming the
// makefile, line and target; what the reader cannot model is uncertain.
func TestMakeRecipesAreLeaves(t *testing.T) {
	dir := makeFixture(t)
	cases := []struct {
		cmd       string
		leaves    []string // argv of each leaf, space-joined
		scripts   []string // Leaf.Script of each leaf
		uncertain string   // a substring of a leaf's RunsUnknown
	}{
		{cmd: "make", leaves: []string{"go build ./..."}, scripts: []string{"Makefile:4 target build"}},
		{cmd: "make clean", leaves: []string{"rm -rf build"}, scripts: []string{"Makefile:6 target clean"}},
		{cmd: "make push", leaves: []string{"git push origin main", "echo done"}, scripts: []string{"Makefile:8 target push", "Makefile:8 target push"}},
		{cmd: "make sub", leaves: []string{"1 lib"}, scripts: []string{"lib/Makefile:3 target all"}},
		{cmd: "make -C lib", leaves: []string{"echo safe lib"}, scripts: []string{"lib/Makefile:3 target all"}},
		{cmd: "make -C lib X=true", leaves: []string{"true lib"}, scripts: []string{"lib/Makefile:3 target all"}},
		{cmd: "cd lib && gmake", leaves: []string{"cd lib", "echo safe lib"}, scripts: []string{"", "lib/Makefile:3 target all"}},
		{cmd: "make -f env.mk", uncertain: "the variable \"DEPLOY\" is defined nowhere"},
		{cmd: "DEPLOY=1 make -f env.mk", leaves: []string{"rm -rf /home/u"}, scripts: []string{"env.mk:2 target go"}},
		{cmd: "env DEPLOY=2 V=3 make -f env.mk", leaves: []string{"echo quiet 3"}, scripts: []string{"env.mk:4 target go"}},
		{cmd: "DEPLOY=2 make -f env.mk", leaves: []string{"echo quiet"}, scripts: []string{"env.mk:4 target go"}},
		{cmd: "export DEPLOY=1; make -f env.mk", uncertain: "export ran earlier"},
		{cmd: "set -a; DEPLOY=1; make -f env.mk", uncertain: "set ran earlier"},
		{cmd: "set -o allexport; make -f env.mk", uncertain: "set ran earlier"},
		{cmd: "declare -x DEPLOY=1; make -f env.mk", uncertain: "declare ran earlier"},
		{cmd: ". ./env.sh; make -f env.mk", uncertain: "ran earlier"},
		{cmd: "set -eu; make clean", leaves: []string{"set -eu", "rm -rf build"}, scripts: []string{"", "Makefile:6 target clean"}},
		{cmd: "declare x=1; make clean", leaves: []string{"declare x=1", "rm -rf build"}, scripts: []string{"", "Makefile:6 target clean"}},
		{cmd: "sudo make clean", uncertain: "sudo runs make"},
		{cmd: "make -f level.mk", leaves: []string{"echo nested 1"}, scripts: []string{"level.mk:4 target inner"}},
		{cmd: "MAKEFLAGS=--eval=x make", uncertain: "MAKEFLAGS"},
		{cmd: "env MAKEFILES=evil.mk make", uncertain: "MAKEFILES in make's environment"},
		{cmd: "make -f cc.mk", leaves: []string{"cc -v"}, scripts: []string{"cc.mk:1 target go"}},
		{cmd: "CC=clang make -f cc.mk", leaves: []string{"clang -v"}, scripts: []string{"cc.mk:1 target go"}},
		{cmd: "make gen", uncertain: "$(shell …)"},
		{cmd: "make self", uncertain: "runs itself again"},
		{cmd: "make $T", uncertain: "only known at run time"},
		{cmd: "/tmp/evil/make clean", uncertain: "not the system's make"},
		{cmd: "/usr/bin/make clean", leaves: []string{"rm -rf build"}, scripts: []string{"Makefile:6 target clean"}},
		{cmd: "make -f /etc/passwd", uncertain: "outside the working directories"},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			a := Analyze(c.cmd, Options{Cwd: dir, Home: "/home/u"})
			if a.ReadOnly {
				t.Fatalf("make is never read-only")
			}
			if c.uncertain != "" {
				found := false
				for _, lf := range a.Leaves {
					found = found || strings.Contains(lf.RunsUnknown, c.uncertain)
				}
				if !found {
					t.Fatalf("no leaf is uncertain with %q: %s", c.uncertain, dumpLeaves(a))
				}
				return
			}
			if len(a.Leaves) != len(c.leaves) {
				t.Fatalf("leaves: %s, want %q", dumpLeaves(a), c.leaves)
			}
			for i, lf := range a.Leaves {
				if got := strings.Join(lf.Argv, " "); got != c.leaves[i] && !strings.HasSuffix(got, " "+c.leaves[i]) {
					t.Errorf("leaf %d: %q, want %q", i, got, c.leaves[i])
				}
				if lf.Script != c.scripts[i] {
					t.Errorf("leaf %d: Script %q, want %q", i, lf.Script, c.scripts[i])
				}
				if lf.RunsUnknown != "" {
					t.Errorf("leaf %d uncertain: %s", i, lf.RunsUnknown)
				}
			}
		})
	}
}

func dumpLeaves(a *Analysis) string {
	var b strings.Builder
	for _, lf := range a.Leaves {
		b.WriteString("[" + strings.Join(lf.Argv, " ") + " @" + lf.Script + " unknown=" + lf.RunsUnknown + "] ")
	}
	return b.String()
}

// Deny rules match recipe lines flag-aware, and the reason names where
// the command is written.
func TestMakeDenyRulesSeeRecipes(t *testing.T) {
	dir := makeFixture(t)
	rmrf, err := CompilePattern("rm -rf:*")
	if err != nil {
		t.Fatal(err)
	}
	push, _ := CompilePattern("git push:*")
	for _, c := range []struct {
		cmd    string
		pat    *Pattern
		reason string
	}{
		{"make clean", rmrf, "Makefile:6 target clean runs rm -rf build"},
		{"make deep", rmrf, "lib/Makefile:5 target wipe runs rm -fr out carries the rule's options (flag-aware match)"},
		{"make all clean", rmrf, "Makefile:6 target clean"},
		{"make push", push, "Makefile:8 target push runs git push origin main"},
	} {
		a := Analyze(c.cmd, Options{Cwd: dir, Home: "/home/u"})
		if a.MatchCertain([]*Pattern{c.pat}) != 0 {
			t.Errorf("%q: the deny rule does not match for certain: %s", c.cmd, dumpLeaves(a))
			continue
		}
		if r := a.MatchReason(c.pat); !strings.Contains(r, c.reason) {
			t.Errorf("%q: MatchReason %q, want %q", c.cmd, r, c.reason)
		}
	}
	// A rule about make's own words still matches, whatever the recipes.
	for _, c := range []struct{ cmd, rule string }{
		{"make build", "make build:*"}, {"make -C lib", "make -C lib"}, {"cd lib && make", "make:*"},
		{"make nothing-to-do", "make nothing-to-do"},
	} {
		p, err := CompilePattern(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		if a := Analyze(c.cmd, Options{Cwd: dir, Home: "/home/u"}); a.MatchAny([]*Pattern{p}) != 0 {
			t.Errorf("%q: the rule %s about make itself does not match: %s", c.cmd, c.rule, dumpLeaves(a))
		}
	}
	// Targets without the denied command do not match.
	a := Analyze("make build", Options{Cwd: dir, Home: "/home/u"})
	if a.MatchAny([]*Pattern{rmrf, push}) != -1 {
		t.Errorf("make build: a deny rule matches: %s", dumpLeaves(a))
	}
}

// A makefile changed after a decision is read again: the cached analysis
// is used only while the files it read, and the directories it listed for
// built-in rules, are unchanged.
func TestMakeAnalysisSeesChangedFiles(t *testing.T) {
	dir := makeFixture(t)
	opts := Options{Cwd: dir, Home: "/home/u"}
	if a := Analyze("make build", opts); strings.Contains(dumpLeaves(a), "rm") {
		t.Fatalf("unexpected: %s", dumpLeaves(a))
	}
	mk := filepath.Join(dir, "Makefile")
	data, _ := os.ReadFile(mk)
	if err := os.WriteFile(mk, []byte(strings.Replace(string(data), "go build ./...", "rm -rf ~", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if a := Analyze("make build", opts); !strings.Contains(dumpLeaves(a), "rm -rf /home/u") {
		t.Fatalf("the changed makefile was not read again: %s", dumpLeaves(a))
	}
	// A source file appearing makes a built-in rule apply to a target
	// without a recipe (CC is the makefile's).
	if err := os.WriteFile(mk, []byte("CC = rm -rf ~ ;\nall: prog\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if a := Analyze("make", opts); strings.Contains(dumpLeaves(a), "unknown=make") {
		t.Fatalf("unexpected uncertainty before prog.c exists: %s", dumpLeaves(a))
	}
	if err := os.WriteFile(filepath.Join(dir, "prog.c"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if a := Analyze("make", opts); !strings.Contains(dumpLeaves(a), "built-in implicit rule") {
		t.Fatalf("prog.c appeared and the analysis did not see it: %s", dumpLeaves(a))
	}
}

// BenchmarkAnalyzeMake: the analysis of make (reading the makefile and
// walking its recipe lines), uncached, beside the same command typed.
func BenchmarkAnalyzeMake(b *testing.B) {
	dir := makeFixture(b)
	opts := Options{Cwd: dir, Home: "/home/u"}
	for _, cmd := range []string{"rm -rf build", "make clean", "make sub"} {
		b.Run(cmd, func(b *testing.B) {
			for b.Loop() {
				if a := analyze(cmd, opts); len(a.Leaves) == 0 {
					b.Fatal("no leaves")
				}
			}
		})
	}
}
