package bash

import (
	"strconv"
	"testing"
)

const compound = "ls -la src | grep foo && git diff --stat"

// BenchmarkAnalyzeCompound measures a typical three-part compound, cached
// (the common case: the policy asks several questions about one call) and
// uncached (real parsing and analysis).
func BenchmarkAnalyzeCompound(b *testing.B) {
	b.Run("cached", func(b *testing.B) {
		Analyze(compound, conformanceOpts)
		b.ReportAllocs()
		for b.Loop() {
			Analyze(compound, conformanceOpts)
		}
	})
	b.Run("uncached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			analyze(compound, conformanceOpts)
		}
	})
	b.Run("parse-only", func(b *testing.B) {
		// The floor: mvdan.cc/sh parsing alone, for comparison.
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parse(compound); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("distinct", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			Analyze(compound+" "+strconv.Itoa(i), conformanceOpts)
		}
	})
}

func benchPatterns(b *testing.B, n int) []*Pattern {
	pats := make([]*Pattern, 0, n)
	for i := 0; len(pats) < n; i++ {
		for _, c := range []string{"tool" + strconv.Itoa(i) + " run:*", "npm run build" + strconv.Itoa(i), "make target" + strconv.Itoa(i) + " *"} {
			if len(pats) < n {
				p, err := CompilePattern(c)
				if err != nil {
					b.Fatal(err)
				}
				pats = append(pats, p)
			}
		}
	}
	return pats
}

// BenchmarkMatchAny matches a three-leaf compound against n deny patterns
// that all miss (the common case), through the slice API (which indexes
// slices of 64 patterns or more itself, remembering recent ones) and
// through an explicit PatternSet.
func BenchmarkMatchAny(b *testing.B) {
	a := analyze(compound, conformanceOpts)
	for _, n := range []int{10, 10000} {
		pats := benchPatterns(b, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if a.MatchAny(pats) >= 0 {
					b.Fatal("unexpected hit")
				}
			}
		})
		set := NewPatternSet(pats)
		b.Run(strconv.Itoa(n)+"-indexed", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if a.MatchAnySet(set) >= 0 {
					b.Fatal("unexpected hit")
				}
			}
		})
	}
}

// BenchmarkMatchAnyFlagAware matches leaves of the rules' own programs
// (git push, rm) against n flag-aware deny patterns that all miss: each
// leaf is parsed once per analysis, and the index looks up only the rules
// whose program, subcommand and first option the leaf carries.
func BenchmarkMatchAnyFlagAware(b *testing.B) {
	a := analyze("git push origin main && rm -f x.o && git reset --soft HEAD~1", conformanceOpts)
	for _, n := range []int{10, 10000} {
		pats := make([]*Pattern, 0, n)
		for i := 0; len(pats) < n; i++ {
			for _, c := range []string{"git push --force origin b" + strconv.Itoa(i) + ":*", "rm -rf dir" + strconv.Itoa(i) + ":*",
				"git reset --hard v" + strconv.Itoa(i), "git push origin v" + strconv.Itoa(i) + ":*"} {
				if len(pats) < n {
					p, err := CompilePattern(c)
					if err != nil || p.canon == nil {
						b.Fatalf("%q: %v, flag-aware %v", c, err, p != nil && p.canon != nil)
					}
					pats = append(pats, p)
				}
			}
		}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if a.MatchAny(pats) >= 0 {
					b.Fatal("unexpected hit")
				}
			}
		})
		set := NewPatternSet(pats)
		b.Run(strconv.Itoa(n)+"-indexed", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if a.MatchAnySet(set) >= 0 {
					b.Fatal("unexpected hit")
				}
			}
		})
	}
}

// BenchmarkPathological analyses each pathological shape (limits_test.go)
// at 30 KB and 1 MB: each is refused (or, for here-documents, analysed) in
// bounded time and memory. Before the limits, 30 KB of "$(" took seconds
// and about 1 GB.
func BenchmarkPathological(b *testing.B) {
	for _, p := range pathologicalShapes {
		for _, n := range []int{30 << 10, 1 << 20} {
			cmd := p.make(n)
			b.Run(p.name+"-"+strconv.Itoa(n>>10)+"KB", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					analyze(cmd, conformanceOpts)
				}
			})
		}
	}
}
