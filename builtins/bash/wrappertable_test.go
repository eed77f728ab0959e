package bash

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/permopa/permopa/builtins/flagspec"
)

// wrapperExamples runs rm -rf x through each program in wrappers that runs
// code: a new entry needs one here.
var wrapperExamples = map[string]string{
	"env": "env rm -rf x", "command": "command rm -rf x", "builtin": "builtin rm -rf x",
	"exec": "exec rm -rf x", "nice": "nice -n 5 rm -rf x", "nohup": "nohup rm -rf x", "jobs": "jobs -x rm -rf x",
	"timeout": "timeout 5 rm -rf x", "stdbuf": "stdbuf -oL rm -rf x", "time": "time -p rm -rf x",
	"sudo": "sudo -u root rm -rf x", "doas": "doas rm -rf x", "su": "su -c 'rm -rf x'",
	"runuser": "runuser -u u -- rm -rf x", "watch": "watch rm -rf x", "setsid": "setsid rm -rf x",
	"ionice": "ionice -c 3 rm -rf x", "xargs": "xargs rm -rf", "find": "find . -exec rm -rf {} +",
	"eval": "eval rm -rf x", "source": "source ./x.sh", ".": ". ./x.sh", "trap": "trap 'rm -rf x' EXIT",
}

// TestWrapperTableDrift holds the walker's table of the programs it reads
// itself (wrappers) to the vocabulary's one table of programs that run
// code (flagspec.RunsCode): each entry has the kind the vocabulary gives
// it; every wrapper or shell-code builtin of the vocabulary is in the table
// or read by its own flag spec; and each entry that runs code shows the
// command it runs to a deny rule, and to an allow rule exactly when the
// entry is transparent.
func TestWrapperTableDrift(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.sh"), []byte("rm -rf x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rm, err := CompilePattern("rm:*")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range flagspec.CodeRunners() {
		kind, _ := flagspec.RunsCode(p)
		if wrappers[p] != nil || shells[p] {
			continue
		}
		switch {
		case kind == flagspec.ShellCode:
			t.Errorf("%s runs shell code but the walker has no entry for it in wrappers", p)
		case kind == flagspec.Wrapper && !flagspec.Modelled(p):
			t.Errorf("%s runs a command but is neither in wrappers nor read by a flag spec", p)
		}
	}
	for name := range wrapperExamples {
		if wrappers[name] == nil {
			t.Errorf("%s has an example but no entry in wrappers", name)
		}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range wrappers {
			if !yield(n) {
				return
			}
		}
	})
	for _, name := range names {
		wr := wrappers[name]
		if kind, _ := flagspec.RunsCode(name); kind != wr.kind {
			t.Errorf("wrappers[%q].kind = %v, the vocabulary says %v", name, wr.kind, kind)
		}
		if wr.walk == nil {
			t.Errorf("wrappers[%q] has no handler", name)
		}
		for _, o := range slices.Concat(wr.reads, wr.writes, wr.chdir) {
			// The option names a file or directory: it takes a value.
			if len(o) == 1 && !strings.Contains(wr.opts.shortVal, o) || len(o) > 1 && !slices.Contains(wr.opts.longVal, o) {
				t.Errorf("wrappers[%q]: option %s names a path but takes no value", name, o)
			}
		}
		example, ok := wrapperExamples[name]
		if wr.kind == flagspec.NoCode {
			if ok {
				t.Errorf("%s runs no code, yet has an example", name)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: no example in wrapperExamples", name)
			continue
		}
		a := Analyze(example, Options{Cwd: dir})
		if a.MatchCertain([]*Pattern{rm}) != 0 {
			t.Errorf("%s: the deny rule rm:* does not see rm", example)
		}
		labelled := false
		for _, l := range a.Leaves {
			if l.Program == "rm" && len(l.Wrappers) > 0 && strings.HasPrefix(l.Wrappers[0], name) {
				labelled = true
			}
		}
		if !labelled && name != "source" && name != "." {
			t.Errorf("%s: no leaf rm under the wrapper %s: %+v", example, name, a.Leaves)
		}
		if _, covered := a.Covered([]*Pattern{rm}); covered != wr.transparent {
			t.Errorf("%s: the allow rule rm:* covers it = %v, the table says transparent = %v", example, covered, wr.transparent)
		}
	}
}

// TestWrapperTableDocumented holds the table's transparent wrappers to
// docs/shell.md's "Wrappers" list: each wrapper of the table is named in
// the bullet that matches its transparency.
func TestWrapperTableDocumented(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../docs/shell.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Wrappers\n")
	if !ok {
		t.Fatal(`docs/shell.md has no "## Wrappers" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	// The programs each bullet names: the first word of each code span.
	named := map[string]map[string]bool{}
	code := regexp.MustCompile("`([^` ]+)[^`]*`")
	for _, bullet := range strings.Split(section, "\n- ") {
		for _, label := range []string{"**Transparent**", "**Not transparent**"} {
			if !strings.HasPrefix(bullet, label) {
				continue
			}
			named[label] = map[string]bool{}
			for _, m := range code.FindAllStringSubmatch(bullet, -1) {
				named[label][m[1]] = true
			}
		}
	}
	if len(named) != 2 {
		t.Fatalf("docs/shell.md's Wrappers section lacks the Transparent or Not transparent bullet: %v", named)
	}
	for name, wr := range wrappers {
		if wr.kind != flagspec.Wrapper {
			continue
		}
		// A transparent wrapper may be opaque in some uses too (env with
		// options or other assignments); an opaque one never transparent.
		if wr.transparent && !named["**Transparent**"][name] {
			t.Errorf("docs/shell.md, Wrappers: %s is transparent but not under Transparent", name)
		}
		if !wr.transparent && (!named["**Not transparent**"][name] || named["**Transparent**"][name]) {
			t.Errorf("docs/shell.md, Wrappers: %s is not transparent but not under Not transparent alone", name)
		}
	}
}
