package bash

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzAnalyze: no panic (the recover in analyze would hide one, so an
// "internal error" fails), never read-only when bash cannot parse the
// input, the matching functions hold up, and suggestions round-trip.
func FuzzAnalyze(f *testing.F) {
	for _, c := range rmBypasses {
		f.Add(c)
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
