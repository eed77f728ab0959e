package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkHostileSettingsFiles measures reading (and refusing) hostile
// settings files: memory (B/op) and time per file (BENCHMARKS.md, "Hostile
// settings files").
//
// Run: go test -run XXX -bench HostileSettingsFiles -benchtime 3x ./settings
func BenchmarkHostileSettingsFiles(b *testing.B) {
	for _, c := range hostileSettings() {
		f := filepath.Join(b.TempDir(), "settings."+c.ext)
		if err := os.WriteFile(f, c.data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(strings.ReplaceAll(c.name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			b.ReportMetric(float64(len(c.data)), "input-bytes")
			for b.Loop() {
				_, _, _ = LoadSettingsFile(f, SourceProject)
			}
		})
	}
}

type hostileCase struct {
	name, ext string
	data      []byte
}

func hostileSettings() []hostileCase {
	var cs []hostileCase
	// Rules: many small rules.
	var b strings.Builder
	b.WriteString("permissions:\n  deny:\n")
	for i := 0; b.Len() < 1<<20-100; i++ {
		fmt.Fprintf(&b, "    - \"Bash(cmd%d:*)\"\n", i)
	}
	cs = append(cs, hostileCase{"yaml 1MB of rules", "yaml", []byte(b.String())})
	b.Reset()
	b.WriteString("permissions:\n  deny:\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "    - \"Bash(cmd%d:*)\"\n", i)
	}
	cs = append(cs, hostileCase{"yaml 20000 rules (read)", "yaml", []byte(b.String())})
	// A mistake on the last line: its column is found by bisection (syntax.go).
	cs = append(cs, hostileCase{"yaml 20000 rules, a mistake at the end", "yaml", []byte(b.String() + "  ask: [\"x\"\n  allow: []\n")})
	// Alias bomb (billion laughs).
	bomb := "a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		bomb += n + ": &" + n + " [" + strings.Repeat("*"+prev+",", 8) + "*" + prev + "]\n"
		prev = n
	}
	bomb += "permissions:\n  deny: *" + prev + "\n"
	cs = append(cs, hostileCase{"yaml alias bomb", "yaml", []byte(bomb)})
	// Alias bomb just under yaml.v3's 400,000-decode allowance.
	small := "a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n"
	prev = "a"
	for _, n := range []string{"b", "c", "d", "e"} {
		small += n + ": &" + n + " [" + strings.Repeat("*"+prev+",", 9) + "*" + prev + "]\n"
		prev = n
	}
	small += "x: *" + prev + "\n"
	cs = append(cs, hostileCase{"yaml alias 100k", "yaml", []byte(small)})
	cs = append(cs, hostileCase{"yaml nested flow 1MB", "yaml", []byte("x: " + strings.Repeat("[", 1<<20))})
	cs = append(cs, hostileCase{"yaml nested 9000", "yaml", []byte("x: " + strings.Repeat("[", 9000) + strings.Repeat("]", 9000))})
	cs = append(cs, hostileCase{"json nested 9000", "json", []byte(`{"x":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + "}")})
	cs = append(cs, hostileCase{"json nested 1MB", "json", []byte(`{"x":` + strings.Repeat("[", 1<<20))})
	cs = append(cs, hostileCase{"toml nested 9000", "toml", []byte("x = " + strings.Repeat("[", 9000) + strings.Repeat("]", 9000))})
	cs = append(cs, hostileCase{"toml nested 100k", "toml", []byte("x = " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000))})
	// Many keys.
	b.Reset()
	for i := 0; b.Len() < 1<<20-100; i++ {
		fmt.Fprintf(&b, "k%d: 1\n", i)
	}
	cs = append(cs, hostileCase{"yaml 1MB of keys", "yaml", []byte(b.String())})
	b.Reset()
	b.WriteString("{")
	for i := 0; b.Len() < 1<<20-100; i++ {
		fmt.Fprintf(&b, "\"k%d\":[],", i)
	}
	b.WriteString("\"z\":1}")
	cs = append(cs, hostileCase{"json 1MB of keys", "json", []byte(b.String())})
	return cs
}
