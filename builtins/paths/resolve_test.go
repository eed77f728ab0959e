package paths

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"
)

// tempRoot returns a temporary directory with its own symlinks resolved, so
// that expectations hold where the temp dir lives under a symlink (macOS).
func tempRoot(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mkdirs(t testing.TB, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func touch(t testing.TB, files ...string) {
	t.Helper()
	for _, f := range files {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAbs(t *testing.T) {
	cases := []struct{ p, cwd, home, want string }{
		{"x", "/proj", "/home/u", "/proj/x"},
		{"./x/", "/proj", "/home/u", "/proj/x"},
		{"../etc/passwd", "/proj", "/home/u", "/etc/passwd"},
		{"/proj/../etc/passwd", "/proj", "/home/u", "/etc/passwd"},
		{"/../../x", "/proj", "/home/u", "/x"},
		{"~", "/proj", "/home/u", "/home/u"},
		{"~/", "/proj", "/home/u", "/home/u"},
		{"~/.ssh/id_rsa", "/proj", "/home/u", "/home/u/.ssh/id_rsa"},
		{"$HOME/.bashrc", "/proj", "/home/u/", "/home/u/.bashrc"},
		{"${HOME}", "/proj", "/home/u", "/home/u"},
		{"$HOMEX/a", "/proj", "/home/u", "/proj/$HOMEX/a"},
		{"~root/x", "/proj", "/home/u", "/proj/~root/x"},
		{"x", "~/proj", "/home/u", "/home/u/proj/x"},
		{"x", "", "/home/u", "/x"},
		{"x", "rel", "/home/u", "/rel/x"},
		{"", "/proj", "/home/u", "/proj"},
		{"//a//b/./c/", "/proj", "/home/u", "/a/b/c"},
	}
	for _, c := range cases {
		if got := Abs(c.p, c.cwd, c.home); got != c.want {
			t.Errorf("Abs(%q, %q, %q) = %q, want %q", c.p, c.cwd, c.home, got, c.want)
		}
	}
}

func TestResolveSymlinks(t *testing.T) {
	root := tempRoot(t)
	home := filepath.Join(root, "home")
	proj := filepath.Join(root, "proj")
	other := filepath.Join(root, "other")
	mkdirs(t, filepath.Join(home, ".ssh"), filepath.Join(proj, "src"), filepath.Join(other, "deep"))
	touch(t, filepath.Join(home, ".ssh", "id_rsa"))
	symlink(t, filepath.Join(home, ".ssh"), filepath.Join(proj, "keys"))      // absolute target
	symlink(t, "../other/deep", filepath.Join(proj, "rel"))                   // relative target
	symlink(t, "keys/id_rsa", filepath.Join(proj, "key"))                     // chain through a link
	symlink(t, "loop2", filepath.Join(proj, "loop1"))                         // loop
	symlink(t, "loop1", filepath.Join(proj, "loop2"))                         //
	symlink(t, filepath.Join(root, "missing"), filepath.Join(proj, "dangle")) // dangling

	cases := []struct{ p, abs, real string }{
		{"src/a.go", proj + "/src/a.go", proj + "/src/a.go"},
		{"keys/id_rsa", proj + "/keys/id_rsa", home + "/.ssh/id_rsa"},
		{"key", proj + "/key", home + "/.ssh/id_rsa"},
		{"rel/new/file", proj + "/rel/new/file", other + "/deep/new/file"},
		// ".." after a symlink: lexically back in proj, physically in other.
		{"rel/../x", proj + "/x", other + "/x"},
		{"new/dir/../../keys/id_rsa", proj + "/keys/id_rsa", home + "/.ssh/id_rsa"},
		{"loop1/x", proj + "/loop1/x", proj + "/loop1/x"},
		{"dangle/x", proj + "/dangle/x", root + "/missing/x"},
		{"~/.ssh", home + "/.ssh", home + "/.ssh"},
		{proj + "/keys", proj + "/keys", home + "/.ssh"},
		{"/", "/", "/"},
	}
	for _, c := range cases {
		abs, real := Resolve(c.p, proj, home)
		if abs != c.abs || real != c.real {
			t.Errorf("Resolve(%q) = %q, %q; want %q, %q", c.p, abs, real, c.abs, c.real)
		}
	}
}

func TestWithin(t *testing.T) {
	cases := []struct {
		p, dir string
		want   bool
	}{
		{"/proj", "/proj", true},
		{"/proj/a", "/proj", true},
		{"/proj-evil", "/proj", false},
		{"/proj-evil/a", "/proj", false},
		{"/projx", "/proj", false},
		{"/pro", "/proj", false},
		{"/anything", "/", true},
		{"/", "/", true},
	}
	for _, c := range cases {
		if got := Within(c.p, c.dir); got != c.want {
			t.Errorf("Within(%q, %q) = %v", c.p, c.dir, got)
		}
	}
}

func TestInside(t *testing.T) {
	root := tempRoot(t)
	home := filepath.Join(root, "home")
	proj := filepath.Join(root, "proj")
	shared := filepath.Join(root, "shared")
	realWork := filepath.Join(root, "data", "work")
	mkdirs(t, filepath.Join(home, ".ssh"), filepath.Join(proj, "src"), shared, realWork, root+"/proj-evil", root+"/tmp")
	symlink(t, filepath.Join(home, ".ssh"), filepath.Join(proj, "out"))  // inside → outside
	symlink(t, filepath.Join(proj, "src"), filepath.Join(proj, "alias")) // inside → inside
	symlink(t, shared, filepath.Join(proj, "lib"))                       // inside → other workdir
	symlink(t, proj, filepath.Join(root, "tmp", "l"))                    // outside → inside
	symlink(t, realWork, filepath.Join(root, "work"))                    // workdir is a symlink

	dirs := []string{proj}
	cases := []struct {
		p    string
		dirs []string
		want bool
	}{
		{"src/a.go", dirs, true},
		{".", dirs, true},
		{proj, dirs, true},
		{"new/file", dirs, true},
		{"alias/a.go", dirs, true},
		{"out/id_rsa", dirs, false},        // symlink pointing out
		{"out", dirs, false},               // the link itself resolves out
		{"../proj-evil/x", dirs, false},    // prefix trick
		{root + "/proj-evil", dirs, false}, //
		{"/proj/../etc/passwd", dirs, false},
		{root + "/tmp/l/src/a.go", dirs, true}, // spelled through a link to the workdir: the same directory
		{root + "/tmp/l/../x", dirs, false},    // lexically in tmp: the kernel reaches root/x
		{root + "/tmp/l", []string{root + "/tmp/l"}, true},
		{proj + "/src", []string{root + "/tmp/l"}, true}, // the workdir named through the link
		{root + "/tmp/l/out/k", dirs, false},             // through two links, out
		{"~/x", dirs, false},
		{"lib/x", dirs, false},                  // points into shared, not a workdir here
		{"lib/x", []string{proj, shared}, true}, // ... and is one here
		{root + "/work/f", []string{"../work"}, true},
		{realWork + "/f", []string{root + "/work"}, true}, // real spelling of a symlinked workdir
		{"src/a.go", nil, false},
		{"", dirs, false},
		{"x", []string{"~/"}, false},
	}
	for _, c := range cases {
		if got := Inside(c.p, c.dirs, proj, home); got != c.want {
			abs, real := Resolve(c.p, proj, home)
			t.Errorf("Inside(%q, %q) = %v, want %v (abs %s real %s)", c.p, c.dirs, got, c.want, abs, real)
		}
	}
}

func BenchmarkResolve(b *testing.B) {
	root := tempRoot(b)
	mkdirs(b, filepath.Join(root, "a", "b", "c"))
	p := filepath.Join(root, "a", "b", "c", "file.go")
	b.ReportAllocs()
	for b.Loop() {
		ResolvePath(p, root, "/home/u")
	}
}

// Paths that reach the same file by another road: each form is matched by
// deny rules (and must be covered by allow rules).
func TestOtherRoads(t *testing.T) {
	rootHome := LookupHome("root")
	cases := []struct {
		path string
		want string // a form OtherRoads or ResolvePath gives; "" none besides Abs
	}{
		{"/proc/self/root/etc/shadow", "/etc/shadow"},
		{"/proc/1/root/etc/shadow", "/etc/shadow"},
		{"/proc/thread-self/root/etc/x", "/etc/x"},
		{"/proc/42/task/43/root/etc/x", "/etc/x"},
		{"/proc/1/root/proc/self/root/etc/x", "/etc/x"},
		{"/proc/1/root", "/"},
		{"/proc/1/rootx/etc", ""},
		{"/proc/1/cwd/x", ""},
		{"/proc/abc/root/etc/x", ""},
		{"/etc/./x", "/etc/x"},
		{"//etc/x", "/etc/x"},
		{"/etc/../etc/x", "/etc/x"},
	}
	if rootHome != "" {
		cases = append(cases,
			struct{ path, want string }{"~root/../etc/x", path.Clean(rootHome + "/../etc/x")},
			struct{ path, want string }{"~root/.ssh/id_rsa", rootHome + "/.ssh/id_rsa"},
		)
	}
	cases = append(cases, struct{ path, want string }{"~no-such-user-here/x", ""})
	for _, c := range cases {
		r := ResolvePath(c.path, "/w", "/h")
		forms := append([]Resolved{r}, OtherRoads(c.path, "/w", "/h", r)...)
		found := c.want == ""
		for _, f := range forms {
			if f.Abs == c.want || f.Real == c.want {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: forms %v lack %q", c.path, forms, c.want)
		}
		if c.want == "" && len(forms) != 1 {
			t.Errorf("%q: unexpected other roads %v", c.path, forms[1:])
		}
	}
}

// Spellings gives the path built-ins what they need to resolve a path as
// the kernel does: "link/.." kept, /proc/self/cwd in each directory the
// command may run in (issue 23).
func TestSpellings(t *testing.T) {
	cases := []struct {
		p    string
		dirs []string
		want []string
	}{
		{"/w/a.go", []string{"/w"}, []string{"/w/a.go"}},
		{"/w/./a//b", nil, []string{"/w/a/b"}},
		{"/w/link/../x", nil, []string{"/w/x", "/w/link/../x"}},
		{"/w/./link//../x", nil, []string{"/w/x", "/w/link/../x"}},
		{"/../x", nil, []string{"/x"}},
		{"/proc/self/cwd/../../home", []string{"/a/b"}, []string{"/proc/home", "/proc/self/cwd/../../home", "/home", "/a/b/../../home"}},
		{"/proc/thread-self/cwd/x", []string{"/a", "/b"}, []string{"/proc/thread-self/cwd/x", "/a/x", "/b/x"}},
		{"/proc/self/task/*/cwd/x", []string{"/a"}, []string{"/proc/self/task/*/cwd/x", "/a/x"}},
		{"/proc/self/cwd/x", nil, []string{"/proc/self/cwd/x"}},
		{"/proc/1/cwd/x", []string{"/a"}, []string{"/proc/1/cwd/x"}},
		{"/proc/self/x/../cwd/y", []string{"/a"}, []string{"/proc/self/cwd/y", "/proc/self/x/../cwd/y"}},
	}
	for _, c := range cases {
		if got := Spellings(c.p, c.dirs); !slices.Equal(got, c.want) {
			t.Errorf("Spellings(%q, %q) = %q, want %q", c.p, c.dirs, got, c.want)
		}
	}
}

// A path in a directory that cannot be known statically (another
// process's cwd, an open file) meets every deny rule that could match a
// path ending in what it names there (issue 23): a rule on a whole
// directory (~/.ssh/**) meets every such path, since the directory may be
// that one.
func TestUnknownDirectoryMeetsRulesByTail(t *testing.T) {
	rs, err := CompileRules([]string{"/etc/*/secret.txt", "~/.ssh/id_*", "**/.env", "/srv/app/*.go"}, "/w", "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	wide, err := CompileRules([]string{"~/.ssh/**"}, "/w", "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		p          string
		want, wide int
	}{
		{"/proc/1/cwd/home/u/.ssh/id_rsa", 1, 0},
		{"/proc/1/cwd/.ssh/id_rsa", 1, 0},
		{"/proc/1/cwd/id_rsa", 1, 0},
		{"/proc/*/cwd/../../x/.ssh/id_rsa", -1, 0},
		{"/proc/1/task/2/cwd/.env", 2, 0},
		{"/proc/self/fd/3/.ssh/config", -1, 0},
		{"/dev/fd/4/sub/.env", 2, 0},
		{"/proc/1/cwd/conf/secret.txt", 0, 0},
		{"/proc/1/cwd/main.go", 3, 0},
		{"/proc/1/cwd/src/main.go", -1, 0},
		{"/proc/1/root/home/u/notes", -1, -1},
		{"/proc/1/environ", -1, -1},
	}
	for _, c := range cases {
		r := ResolvePath(c.p, "/w", "/home/u")
		ts := []Target{{Raw: c.p, Forms: []Resolved{r}}}
		if got := rs.MatchTargets(ts, "/w", ModeAny); got != c.want {
			t.Errorf("%s (tail %q): rule %d, want %d", c.p, r.Tail, got, c.want)
		}
		if got := wide.MatchTargets(ts, "/w", ModeAny); got != c.wide {
			t.Errorf("%s (tail %q): ~/.ssh/** %d, want %d", c.p, r.Tail, got, c.wide)
		}
		if got := rs.MatchTargets(ts, "/w", ModeAll); got != -1 && r.Unknown != "" {
			t.Errorf("%s: allow rule %d covers a path that cannot be known", c.p, got)
		}
	}
}
