package flagspec

import (
	"strings"
	"testing"
)

func BenchmarkJudge(b *testing.B) {
	cases := [][]string{
		{"git", "log", "--oneline", "-20"},
		{"ls", "-la"},
		{"grep", "-rn", "TODO", "src"},
		{"sort", "--outp=f", "a"},
	}
	for _, argv := range cases {
		b.Run(strings.Join(argv, "_"), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Judge(argv)
			}
		})
	}
}
