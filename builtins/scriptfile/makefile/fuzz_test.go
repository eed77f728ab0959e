package makefile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzRead: any makefile text is read within the limits, without a panic
// other than the reader's own uncertainty, and what it returns is either
// certain or says why not.
func FuzzRead(f *testing.F) {
	for _, c := range append(append([]fixture{}, readerCases...), hostileCases...) {
		if m, ok := c.files["Makefile"]; ok && len(m) < 4096 {
			f.Add(m, "")
		}
	}
	f.Add("a: b\nb: ; echo $(call x,$(foreach v,1 2,$(v)))\nx = $(1)$(1)\n", "a")
	f.Fuzz(func(t *testing.T, text, goal string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		inv := Invocation{Dir: dir}
		if goal != "" {
			inv.Targets = []string{goal}
		}
		start := time.Now()
		res, err := Read(inv, nil, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("Read took %v", d)
		}
		if len(res.Commands) > DefaultLimits().MaxCommands {
			t.Fatalf("%d commands", len(res.Commands))
		}
	})
}
