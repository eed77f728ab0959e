package bash

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzAnalyze: no panic (the recover in analyze would hide one, so an
// "internal error" fails), never read-only when bash cannot parse the
// input, a limit is never read-only, code in strings bash evaluates is
// never read-only, the matching functions hold up, and suggestions
// round-trip. Seeds include the evaluated strings and pathological shapes.
func FuzzAnalyze(f *testing.F) {
	for _, c := range rmBypasses {
		f.Add(c)
	}
	for _, c := range evaluatedStrings {
		f.Add(c.with("rm -rf x"))
	}
	for _, p := range pathologicalShapes {
		f.Add(p.make(200)) // small: the fuzzer grows them
	}
	pats := []*Pattern{}
	for _, c := range []string{"rm:*", "git status", "npm run *", "* --force", "", "sudo:*", "a*b c"} {
		p, err := CompilePattern(c)
		if err != nil {
			f.Fatal(err)
		}
		pats = append(pats, p)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		a := analyze(cmd, conformanceOpts)
		for _, r := range a.Reasons {
			if r == "internal error" {
				t.Fatalf("analyze panicked on %q", cmd)
			}
		}
		_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
		if err != nil && a.ReadOnly {
			t.Fatalf("%q does not parse (%v) but was judged read-only", cmd, err)
		}
		if a.ReadOnly && !a.Analysable {
			t.Fatalf("%q read-only but not analysable", cmd)
		}
		if a.LimitExceeded != "" && (a.ReadOnly || a.Analysable || !a.Truncated) {
			t.Fatalf("%q exceeds %s but read-only=%v analysable=%v", cmd, a.LimitExceeded, a.ReadOnly, a.Analysable)
		}
		// A string bash evaluates that holds a substitution is never read-only.
		if a.ReadOnly && strings.Contains(cmd, "$(") {
			for _, l := range a.Leaves {
				for _, wr := range l.Wrappers {
					if wr == labelSubscript || wr == labelArith || strings.HasPrefix(wr, "value of ") {
						t.Fatalf("%q read-only with code in an evaluated string", cmd)
					}
				}
			}
		}
		a.MatchAny(pats)
		a.MatchAnySet(NewPatternSet(pats))
		a.Covered(pats)
		checkRoundTrip(t, cmd, a)
		if p, err := CompilePattern(cmd); err == nil {
			for _, l := range a.Leaves {
				p.Match(l.Argv)
			}
			p.Match(strings.Fields(cmd))
		}
	})
}
