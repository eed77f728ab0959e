package bash

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

func shapes(n int) map[string]string {
	return map[string]string{
		"cmdsubst":   strings.Repeat("$(", n/2) + strings.Repeat(")", n/2),
		"echo-subst": strings.Repeat("echo $(", n/7) + "x" + strings.Repeat(")", n/7),
		"pipeline":   strings.Repeat("a|", n/2) + "a",
		"andchain":   strings.Repeat("a&&", n/3) + "a",
		"words":      "echo" + strings.Repeat(" a", n/2),
		"parens":     strings.Repeat("(", n/2) + "a" + strings.Repeat(")", n/2),
		"arith":      "((" + strings.Repeat("(", n/2) + "1" + strings.Repeat(")", n/2) + "))",
		"braces":     strings.Repeat("{ ", n/2) + "a" + strings.Repeat(";}", n/2),
		"paramexp":   "echo " + strings.Repeat("${x:-", n/5) + "y" + strings.Repeat("}", n/5),
		"heredoc":    "cat <<EOF\n" + strings.Repeat("line of text $x\n", n/16) + "EOF",
		"quotes":     "echo " + strings.Repeat(`"$(`, n/3) + strings.Repeat(`)"`, n/3),
	}
}

func TestScratchShapes(t *testing.T) {
	if os.Getenv("SCRATCH") == "" {
		t.Skip()
	}
	for _, n := range []int{1000, 10000, 30000} {
		for name, s := range shapes(n) {
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			t0 := time.Now()
			_, err := parse(s)
			pd := time.Since(t0)
			runtime.ReadMemStats(&m1)
			palloc := m1.TotalAlloc - m0.TotalAlloc
			t0 = time.Now()
			a := analyze(s, Options{Cwd: "/p", Home: "/h", MaxLength: 1 << 21})
			ad := time.Since(t0)
			runtime.ReadMemStats(&m0)
			t.Logf("%6d %-10s parse %8v %8dKB err=%v | analyze %8v %8dKB leaves=%d reasons=%.80q", n, name, pd, palloc/1024, err != nil, ad, (m0.TotalAlloc-m1.TotalAlloc)/1024, len(a.Leaves), a.Reasons)
		}
	}
}
