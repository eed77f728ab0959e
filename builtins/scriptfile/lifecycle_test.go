//go:build unix

package scriptfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// lifecycleEvents are every event a package manager may run; the test
// package defines a script for each that logs its name.
var lifecycleEvents = slices.Compact(slices.Sorted(slices.Values(concat(installEvents, depTreeEvents, packEvents,
	publishEvents, versionEvents, rebuildEvents, linkEvents, testEvents))))

// TestNpmLifecycleAgainstNpm runs the real npm on a package whose every
// lifecycle script logs its name, and checks that the reader names every
// script npm ran, in npm's order, and none with --ignore-scripts or
// ignore-scripts=true in the package's .npmrc (docs/shell.md, "Scripts").
func TestNpmLifecycleAgainstNpm(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil || testing.Short() {
		t.Skip("needs npm")
	}
	root := t.TempDir()
	pkg := func(name string, npmrc string) string {
		dir := filepath.Join(root, name)
		var b strings.Builder
		b.WriteString(`{"name": "x", "version": "1.0.0", "scripts": {`)
		for i, ev := range lifecycleEvents {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(`"` + ev + `": "echo ` + ev + ` >> ../` + name + `.log"`)
		}
		b.WriteString("}}\n")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if npmrc != "" {
			if err := os.WriteFile(filepath.Join(dir, ".npmrc"), []byte(npmrc), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	dirs := map[string]string{"on": pkg("on", ""), "off": pkg("off", "ignore-scripts=true\n")}
	// Each case is a run of npm (about a second of CPU). The quick suite
	// proves the mechanism with one run, install (the events every install
	// runs, in npm's order); -tags slow (CI) runs every case: each class of
	// events and scripts off both ways, the flag and the .npmrc
	// (docs/development.md).
	for _, c := range []struct {
		pkg   string
		args  string
		quick bool
	}{
		{"on", "install", true}, {"on", "ci", false}, {"on", "i", false}, {"on", "rebuild", false}, {"on", "pack --dry-run", false},
		{"on", "publish --dry-run", false}, {"on", "version patch --no-git-tag-version", false},
		{"on", "install --ignore-scripts", false}, {"on", "ci --ignore-scripts", false}, {"on", "rebuild --ignore-scripts", false},
		{"on", "pack --dry-run --ignore-scripts", false}, {"on", "version minor --no-git-tag-version --ignore-scripts", false},
		{"off", "install", false}, {"off", "pack --dry-run", false}, {"off", "version patch --no-git-tag-version", false},
	} {
		if !slowTests && !c.quick {
			continue
		}
		dir := dirs[c.pkg]
		log := dir + ".log"
		os.Remove(log)
		args := append(strings.Fields(c.args), "--offline", "--no-audit", "--no-fund")
		cmd := exec.Command(npm, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(root, "cache"), "npm_config_update_notifier=false",
			"npm_config_logs_max=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("npm %s: %v\n%s", c.args, err, out)
		}
		data, _ := os.ReadFile(log)
		ran := strings.Fields(string(data))
		argv := append([]string{"npm"}, strings.Fields(c.args)...)
		scripts, handled := Package(Call{Argv: argv, Dynamic: make([]bool, len(argv)), Dir: dir, Files: NewFiles([]string{root})})
		if !handled {
			t.Errorf("npm %s: not read as running scripts; npm ran %q", c.args, ran)
			continue
		}
		var read []string
		for _, s := range scripts {
			if !s.Self {
				read = append(read, strings.TrimPrefix(s.Name, "script "))
			}
		}
		// Every script npm ran is read, in npm's order.
		rest := read
		for _, ev := range ran {
			i := slices.Index(rest, ev)
			if i < 0 {
				t.Errorf("npm %s ran %q; the reader reads %q, without %s in that order", c.args, ran, read, ev)
				break
			}
			rest = rest[i+1:]
		}
		if strings.Contains(c.args, "--ignore-scripts") || c.pkg == "off" {
			if len(ran) > 0 || len(read) > 0 {
				t.Errorf("npm %s with scripts off: npm ran %q, the reader reads %q; want none", c.args, ran, read)
			}
		} else if len(ran) == 0 {
			t.Errorf("npm %s ran no script: the check proves nothing", c.args)
		}
	}
}
