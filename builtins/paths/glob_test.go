package paths

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompileRule(t *testing.T) {
	cases := []struct{ pattern, cwd, home, want string }{
		{"/abs/**", "/proj", "/home/u", "/abs/**"},
		{"//abs/**", "/proj", "/home/u", "/abs/**"},
		{"~/.ssh/**", "/proj", "/home/u", "/home/u/.ssh/**"},
		{"~", "/proj", "/home/u", "/home/u"},
		{"~/", "/proj", "/home/u", "/home/u/**"},
		{"./src/*.go", "/proj", "/home/u", "/proj/src/*.go"},
		{"src/**", "/proj", "/home/u", "/proj/src/**"},
		{"src/", "/proj", "/home/u", "/proj/src/**"},
		{".env", "/proj", "/home/u", "/proj/.env"},
		{"../shared/**", "/proj", "/home/u", "/shared/**"},
		{"**/.env", "/proj", "/home/u", "/**/.env"},
		{"**", "/proj", "/home/u", "/**"},
		{"", "/proj", "/home/u", "/**"},
		{"src/**", "/my[proj]*", "/home/u", `/my\[proj\]\*/src/**`},
	}
	for _, c := range cases {
		g, err := CompileRule(c.pattern, c.cwd, c.home)
		if err != nil {
			t.Errorf("CompileRule(%q): %v", c.pattern, err)
			continue
		}
		if g.Expanded() != c.want {
			t.Errorf("CompileRule(%q, %q, %q) = %q, want %q", c.pattern, c.cwd, c.home, g.Expanded(), c.want)
		}
	}
	for _, bad := range []string{"[", "/a/[b", "src/{a,b"} {
		_, err := CompileRule(bad, "/proj", "/home/u")
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("CompileRule(%q): err = %v, want one naming the pattern", bad, err)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"src/**", "/proj/src", true},
		{"src/**", "/proj/src/a/b.go", true},
		{"src/**", "/proj/srcx/a", false},
		{"src/*", "/proj/src/a/b.go", false}, // * stays within a segment
		{"src/*", "/proj/src/.hidden", true},
		{"/proj/**", "/proj-evil/x", false},
		{"**/.env", "/proj/.env", true},
		{"**/.env", "/.env", true},
		{"**/.env", "/proj/.env.local", false},
		{"**/.env*", "/proj/a/.env.local", true},
		{"~/.ssh/**", "/home/u/.ssh/id_rsa", true},
		{".env", "/proj/.env", true},
		{".env", "/proj/sub/.env", false},
		{"src/{a,b}.go", "/proj/src/b.go", true},
		{"src/my[proj]", "/proj/src/my[proj]", false}, // the pattern's brackets are a class
		{"/abs/x", "/abs/x", true},
		{"", "/anything/at/all", true},
	}
	for _, c := range cases {
		g, err := CompileRule(c.pattern, "/proj", "/home/u")
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Match(c.path); got != c.want {
			t.Errorf("%q (%s) on %q = %v, want %v", c.pattern, g.Expanded(), c.path, got, c.want)
		}
	}
	// A cwd with glob metacharacters is literal.
	g, _ := CompileRule("src/**", "/w/[x]", "/home/u")
	if !g.Match("/w/[x]/src/a") || g.Match("/w/x/src/a") {
		t.Errorf("cwd metacharacters not escaped: %s", g.Expanded())
	}
}

func TestMatchAnyModes(t *testing.T) {
	root := tempRoot(t)
	home := filepath.Join(root, "home")
	proj := filepath.Join(root, "proj")
	mkdirs(t, filepath.Join(home, ".ssh"), filepath.Join(proj, "src"))
	touch(t, filepath.Join(home, ".ssh", "id_rsa"))
	symlink(t, filepath.Join(home, ".ssh"), filepath.Join(proj, "src", "keys"))

	deny := []string{"/nowhere/**", "~/.ssh/**"}
	// The link lies in src/ but reaches ~/.ssh: a deny rule on the target hits.
	i, err := MatchAny(deny, []string{"src/keys/id_rsa"}, proj, home, ModeAny)
	if err != nil || i != 1 {
		t.Errorf("deny through symlink: %d, %v", i, err)
	}
	// Any of several paths.
	i, _ = MatchAny(deny, []string{"src/a.go", "~/.ssh/config"}, proj, home, ModeAny)
	if i != 1 {
		t.Errorf("any of several: %d", i)
	}
	i, _ = MatchAny(deny, []string{"src/a.go"}, proj, home, ModeAny)
	if i != -1 {
		t.Errorf("no hit: %d", i)
	}

	allow := []string{"src/*.go", "src/**"}
	// The allow rule matches the link's path but not its target: not covered.
	i, _ = MatchAny(allow, []string{"src/keys/id_rsa"}, proj, home, ModeAll)
	if i != -1 {
		t.Errorf("allow through symlink: %d", i)
	}
	i, _ = MatchAny(allow, []string{"src/a.go"}, proj, home, ModeAll)
	if i != 0 {
		t.Errorf("allow first: %d", i)
	}
	// Every path must be covered by the same pattern.
	i, _ = MatchAny(allow, []string{"src/a.go", "src/b/c.txt"}, proj, home, ModeAll)
	if i != 1 {
		t.Errorf("allow all: %d", i)
	}
	i, _ = MatchAny(allow, []string{"src/a.go", "/etc/passwd"}, proj, home, ModeAll)
	if i != -1 {
		t.Errorf("allow not all: %d", i)
	}
	i, _ = MatchAny(allow, nil, proj, home, ModeAll)
	if i != -1 {
		t.Errorf("allow nothing: %d", i)
	}
	i, _ = MatchAny(allow, []string{"/proj/../" + proj[1:] + "/src/a.go"}, proj, home, ModeAll)
	if i != 0 {
		t.Errorf("allow after cleaning: %d", i)
	}

	if _, err := MatchAny([]string{"ok/**", "bad["}, []string{"x"}, proj, home, ModeAny); err == nil || !strings.Contains(err.Error(), `"bad["`) {
		t.Errorf("bad pattern: %v", err)
	}
}

// Deny and ask rules fold case where the file system does; allow rules
// never do: an allow rule covers a path only as spelled.
func TestFoldCase(t *testing.T) {
	cases := []struct {
		pattern, path string
		mode          Mode
		fold, want    bool
	}{
		{"**/.env", "/p/.ENV", ModeAny, true, true},
		{"**/.env", "/p/.ENV", ModeAny, false, false},
		{"/etc/**", "/ETC/passwd", ModeAny, true, true},
		{"/ETC/**", "/etc/passwd", ModeAny, true, true},
		{"~/.SSH/**", "/h/.ssh/id_rsa", ModeAny, true, true},
		{"fnmatch:*.PEM", "/p/k.pem", ModeAny, true, true},
		{"fnmatch:*.PEM", "/p/k.pem", ModeAny, false, false},
		{"/etc/**", "/ETC/passwd", ModeAll, true, false},
		{"/p/src/**", "/P/SRC/a.go", ModeAll, true, false},
		{"/p/src/**", "/p/src/a.go", ModeAll, true, true},
	}
	for _, c := range cases {
		i, err := MatchPaths([]string{c.pattern}, []string{c.path}, MatchOptions{Cwd: "/p", Home: "/h", Mode: c.mode, Fold: c.fold})
		if err != nil || (i == 0) != c.want {
			t.Errorf("%q on %q (%v, fold %v) = %d %v, want hit %v", c.pattern, c.path, c.mode, c.fold, i, err, c.want)
		}
	}
}

// The index must give the same answers as a linear scan.
func TestIndexAgreesWithScan(t *testing.T) {
	patterns := []string{
		"/a/b/**", "/a/b/*.go", "**/.env", "**/*.pem", "~/.ssh/**", "src/**", "src/*_test.go",
		"/a/*/c", "/a/b/c", "/", "/a/{b,c}/d", "**/x/**", "*.md", "/a/b/c/d/e", "**", "/z/**.txt",
		"/a/b", "docs/", "/q/[ab]/*", "/a/b/c.tar.gz", "/a/*.gz",
	}
	if len(patterns) < indexFrom {
		t.Fatal("too few patterns to exercise the index")
	}
	paths := []string{
		"/a/b", "/a/b/c", "/a/b/x.go", "/a/b/c/d/e", "/p/.env", "/p/k.pem", "/home/u/.ssh/id_rsa",
		"/p/src/a_test.go", "/p/src/a.go", "/a/q/c", "/", "/a/c/d", "/m/x/n", "/p/README.md",
		"/z/y/f.txt", "/p/docs", "/q/a/z", "/a/b/c.tar.gz", "/a/f.gz", "/nothing/here",
	}
	for n := 1; n <= len(patterns); n++ {
		for start := 0; start+n <= len(patterns); start++ {
			rs, err := CompileRules(patterns[start:start+n], "/p", "/home/u")
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range paths {
				r := []Resolved{{Abs: p, Real: p}}
				want := -1
				for i, g := range rs.globs {
					if g.Match(p) {
						want = i
						break
					}
				}
				for _, mode := range []Mode{ModeAny, ModeAll} {
					if got := rs.Match(r, mode); got != want {
						t.Errorf("patterns[%d:%d] on %q mode %v: %d, want %d", start, start+n, p, mode, got, want)
					}
				}
			}
		}
	}
}

func benchPatterns(n int) []string {
	ps := make([]string, 0, n)
	for i := 0; len(ps) < n; i++ {
		ps = append(ps,
			fmt.Sprintf("/srv/app%d/**", i),
			fmt.Sprintf("src/module%d/*.go", i),
			fmt.Sprintf("**/secret%d.txt", i),
			fmt.Sprintf("~/notes/n%d/**", i),
			fmt.Sprintf("**/*.ext%d", i),
		)
	}
	return ps[:n]
}

func BenchmarkMatchAny(b *testing.B) {
	for _, n := range []int{10, 10000} {
		ps := benchPatterns(n)
		paths := []Resolved{{Abs: "/home/u/proj/src/main/app.go", Real: "/home/u/proj/src/main/app.go"}}
		rs, err := CompileRules(ps, "/home/u/proj", "/home/u")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if rs.Match(paths, ModeAny) != -1 {
					b.Fatal("unexpected hit")
				}
			}
		})
	}
}
