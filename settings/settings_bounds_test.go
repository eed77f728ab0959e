package settings_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/permopa/permopa/settings"
)

// hostileSettingsFiles are settings files a repository could ship (or an
// agent write as settings.local.yaml) to make every hook that reads them
// slow or huge: each is refused, naming the file and the bound.
func hostileSettingsFiles() map[string]struct{ ext, data, want string } {
	aliases := "a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e"} {
		aliases += n + ": &" + n + " [" + strings.Repeat("*"+prev+",", 9) + "*" + prev + "]\n"
		prev = n
	}
	aliases += "permissions:\n  deny: *" + prev + "\n"
	var keys, rules strings.Builder
	for i := 0; i < 30000; i++ {
		fmt.Fprintf(&keys, "\"k%d\":1,", i)
	}
	rules.WriteString("permissions:\n  deny:\n")
	for i := 0; i < 30000; i++ {
		fmt.Fprintf(&rules, "    - \"Bash(c%d:*)\"\n", i)
	}
	block := "permissions:\n"
	for i := 0; i < 200; i++ {
		block += strings.Repeat(" ", 2*i+2) + fmt.Sprintf("k%d:\n", i)
	}
	return map[string]struct{ ext, data, want string }{
		"yaml alias expansion":             {"yaml", aliases, "more than 25000 values, aliases expanded"},
		"yaml nested flow lists":           {"yaml", "permissions:\n  deny: " + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + "\n", "nests deeper than 32 levels"},
		"yaml nested blocks":               {"yaml", block, "nests deeper than 32 levels"},
		"yaml 30,000 rules":                {"yaml", rules.String(), "more than 25000 values"},
		"json nested lists":                {"json", `{"permissions":{"deny":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + "}}", "nests deeper than 32 levels"},
		"json 30,000 keys":                 {"json", `{` + keys.String() + `"permissions":{}}`, "more than 25000 values"},
		"toml nested arrays":               {"toml", "[permissions]\ndeny = " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n", "nests deeper than 32 levels"},
		"toml dotted keys":                 {"toml", strings.Repeat("a.", 100) + "b = 1\n", "nests deeper than 32 levels"},
		"yaml over 1 MiB (a huge comment)": {"yaml", "permissions:\n  deny: [\"Bash(rm:*)\"]\n# " + strings.Repeat("x", 1<<20) + "\n", "over the 1048576 bytes"},
	}
}

// Issue 24: every hostile settings file is refused before it is decoded,
// naming the file and the bound, with bounded memory (the decoders took
// 73-98 MB for the nested ones and minutes for the many-keys ones:
// BENCHMARKS.md, "Hostile settings files"); a project file refused so
// makes every call DENY (settings_unreadable), as an unreadable file does.
func TestHostileSettingsFilesRefused(t *testing.T) {
	for name, c := range hostileSettingsFiles() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, ".permopa", "settings."+c.ext)
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, _, err := settings.LoadSettingsFile(file, settings.SourceProject)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want a refusal naming %s and %q, got %v", file, c.want, err)
			}
			// Allocation, not time: 2 MiB of input at most, ~10 MB to refuse.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
				t.Errorf("refusing it allocated %d MB", alloc>>20)
			}
			s, problems := settings.LoadLayers(settings.LayerOptions{
				ManagedDir: filepath.Join(dir, "managed"), UserDir: filepath.Join(dir, "user"),
				ProjectDir: dir, Cwd: dir, Home: dir, Environ: []string{},
			})
			if len(s.Unreadable) == 0 || !strings.Contains(strings.Join(s.Unreadable, "\n"), file) {
				t.Errorf("the layers do not fail closed: unreadable %v, problems %v", s.Unreadable, problems)
			}
		})
	}
}

// The bounds leave real settings alone: 10,000 rules in each format.
func TestLargeRealSettingsRead(t *testing.T) {
	var y, j, tm strings.Builder
	y.WriteString("permissions:\n  deny:\n")
	j.WriteString(`{"permissions": {"deny": [`)
	tm.WriteString("[permissions]\ndeny = [\n")
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&y, "    - \"Bash(git push --force origin b%d:*)\"\n", i)
		if i > 0 {
			j.WriteString(",\n")
		}
		fmt.Fprintf(&j, `"Bash(git push --force origin b%d:*)"`, i)
		fmt.Fprintf(&tm, "  \"Bash(git push --force origin b%d:*)\",\n", i)
	}
	j.WriteString("]}}\n")
	tm.WriteString("]\n")
	for ext, data := range map[string]string{"yaml": y.String(), "json": j.String(), "toml": tm.String()} {
		file := filepath.Join(t.TempDir(), "settings."+ext)
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		s, problems, err := settings.LoadSettingsFile(file, settings.SourceUser)
		if err != nil || len(s.Rules) != 10000 {
			t.Errorf("%s: %d rules, %v %v", ext, len(s.Rules), err, problems)
		}
	}
}
