package builtins

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gobwas/glob"
)

// The glob set answers what matching each pattern in turn answers (what
// glob.match over every rule did before): random patterns and subjects of
// a small alphabet, so that prefixes, suffixes, delimiters and escapes
// collide often.
func TestGlobSetAgreesWithSequentialMatching(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func(alphabet string, n int) string {
		var b strings.Builder
		for range rng.IntN(n + 1) {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for _, spec := range []globSpec{
		{},
		{delims: []rune{'.'}},
		{stars: true},
		{stars: true, delims: []rune{'"'}},
		{prefix: "d:", lower: true, delims: []rune{'.'}},
	} {
		for round := range 500 {
			var pats []string
			var compiled []*glob.Pattern // the sequential reference, nil: never matches
			for len(pats) < 1+rng.IntN(40) {
				p := word(`aAb.*?"[]{},\d:`, 7)
				if rng.IntN(3) == 0 {
					p = "d:" + p
				}
				src, ok := strings.CutPrefix(p, spec.prefix)
				if !ok {
					pats, compiled = append(pats, p), append(compiled, nil)
					continue
				}
				if spec.lower {
					src = strings.ToLower(src)
				}
				if spec.stars {
					parts := strings.Split(src, "*")
					for i := range parts {
						parts[i] = glob.QuoteMeta(parts[i])
					}
					src = strings.Join(parts, "*")
				}
				g, err := glob.Compile(src, spec.delims...)
				if err != nil {
					continue // a list with a pattern that does not compile is an error
				}
				pats, compiled = append(pats, p), append(compiled, g)
			}
			set, err := newGlobSet(pats, spec)
			if err != nil {
				t.Fatalf("%+v %q: %v", spec, pats, err)
			}
			for range 30 {
				subject := word(`ab.",\:`, 6)
				var want []int
				for i, g := range compiled {
					if g != nil && g.Match(subject) {
						want = append(want, i)
					}
				}
				wantFirst := -1
				if len(want) > 0 {
					wantFirst = want[0]
				}
				if got := set.first(subject); got != wantFirst {
					t.Fatalf("round %d %+v: first(%q) over %q = %d, want %d", round, spec, subject, pats, got, wantFirst)
				}
				if got := set.all(subject); !slices.Equal(got, want) {
					t.Fatalf("round %d %+v: all(%q) over %q = %v, want %v", round, spec, subject, pats, got, want)
				}
			}
		}
	}
}
