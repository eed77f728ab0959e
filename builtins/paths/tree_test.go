package paths

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// treeFixture builds a home and a project:
//
//	home/.ssh/id_rsa, home/.aws/credentials, home/.netrc, home/notes.txt
//	home/proj/.git/, home/proj/.gitignore ("node_modules/", ".env"), home/proj/.env
//	home/proj/src/a.go, home/proj/node_modules/pkg/id_rsa (a fixture key)
//	home/proj/keys -> home/.ssh
//	home/clean/src/b.go, home/clean/.hidden/c
//	home/backup/id_ed25519 (a key outside .ssh, not hidden)
//	home/nested/a/b/.env
func treeFixture(t *testing.T) (root, home string) {
	t.Helper()
	root = tempRoot(t)
	home = root + "/home"
	mkdirs(t, home+"/.ssh", home+"/.aws", home+"/proj/.git", home+"/proj/src", home+"/proj/node_modules/pkg",
		home+"/clean/src", home+"/clean/.hidden", home+"/backup", home+"/nested/a/b")
	touch(t, home+"/.ssh/id_rsa", home+"/.aws/credentials", home+"/.netrc", home+"/notes.txt",
		home+"/proj/.env", home+"/proj/src/a.go", home+"/proj/node_modules/pkg/id_rsa",
		home+"/clean/src/b.go", home+"/clean/.hidden/c", home+"/backup/id_ed25519", home+"/nested/a/b/.env")
	if err := os.WriteFile(home+"/proj/.gitignore", []byte("node_modules/\n.env\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, home+"/.ssh", home+"/proj/keys")
	mkdirs(t, home+"/tohome")
	symlink(t, root, home+"/tohome/up")
	return root, home
}

func TestCheckTree(t *testing.T) {
	root, home := treeFixture(t)
	cases := []struct {
		name       string
		path       string
		tree       Tree
		credential bool
		unknown    bool
		reaches    string // a substring of the path found
	}{
		// Well-known locations below the root.
		{"grep -r ~", home, Tree{Hidden: true}, true, false, "/.a"}, // the first well-known location: ~/.ash_history
		{"grep -r /", "/", Tree{Hidden: true}, true, false, ""},
		{"grep -r /etc", "/etc", Tree{Hidden: true}, true, false, "/etc/"},
		{"grep -r /proc", "/proc", Tree{Hidden: true}, true, false, "/proc/"},
		{"ls -R / (names)", "/", Tree{NamesOnly: true}, true, false, ""},
		{"rg ~ without hidden: the walk finds a link to .ssh", home, Tree{Ignores: true}, true, false, "keys"},
		{"rg without hidden: the walk finds a key outside .ssh", home + "/backup", Tree{Ignores: true}, true, false, "id_ed25519"},
		{"the root itself", home + "/.ssh", Tree{}, true, false, "/.ssh"},
		{"below a credential dir", home + "/.aws/sub", Tree{}, true, false, "/.aws"},
		// Names anywhere, found by the walk.
		{"grep -r on a project with .env", home + "/proj", Tree{Hidden: true}, true, false, ""},
		{"rg --hidden honours .gitignore, but not the keys link", home + "/proj", Tree{Hidden: true, Ignores: true}, true, false, "keys"},
		{"nested .env", home + "/nested", Tree{Hidden: true}, true, false, "/nested/a/b/.env"},
		{"nested .env skipped without hidden", home + "/nested", Tree{}, false, false, ""},
		{"a key outside .ssh", home + "/backup", Tree{}, true, false, "id_ed25519"},
		{"a link to home", home + "/tohome", Tree{Hidden: true}, true, false, ""},
		// Nothing to find.
		{"clean project", home + "/clean", Tree{Hidden: true}, false, false, ""},
		{"src only", home + "/proj/src", Tree{Hidden: true}, false, false, ""},
		{"a file root", home + "/proj/src/a.go", Tree{Hidden: true}, false, false, ""},
		{"missing root", home + "/missing", Tree{Hidden: true}, false, false, ""},
		// Names only: a credential file's name is not its content.
		{"find . in a project with .env", home + "/nested", Tree{Hidden: true, NamesOnly: true}, false, false, ""},
		{"find ~ lists .ssh", home, Tree{Hidden: true, NamesOnly: true}, true, false, "/.aws"},
		{"ls -R ~ skips hidden dirs", home + "/backup", Tree{NamesOnly: true}, false, false, ""},
		// What the program skips.
		{"grep --exclude-dir", home + "/nested", Tree{Hidden: true, ExcludeDirs: []string{"a"}}, false, false, ""},
		{"grep --exclude-dir does not hide a link", home + "/proj", Tree{Hidden: true, ExcludeDirs: []string{"node_modules", "keys"}, Exclude: []string{".env"}}, true, false, "keys"},
		{"grep --include=*.go", home + "/nested", Tree{Hidden: true, Include: []string{"*.go"}, IncludeFirst: true}, false, false, ""},
		{"grep --exclude=.env", home + "/nested", Tree{Hidden: true, Exclude: []string{".env"}}, false, false, ""},
		{"grep --exclude=.env --include=*", home + "/nested", Tree{Hidden: true, Include: []string{"*"}, Exclude: []string{".env"}}, true, false, ""},
		// Depth limits: a directory's contents one level further down.
		{"find ~ -maxdepth 1", home, Tree{Hidden: true, NamesOnly: true, MaxDepth: 1}, false, false, ""},
		{"find ~ -maxdepth 2", home, Tree{Hidden: true, NamesOnly: true, MaxDepth: 2}, true, false, "/.aws"},
		{"rg -uu --max-depth 1 ~ reads ~/.netrc", home, Tree{Hidden: true, MaxDepth: 1}, true, false, ""},
		{"nested .env below the depth", home + "/nested", Tree{Hidden: true, MaxDepth: 2}, false, false, ""},
		{"nested .env at the depth", home + "/nested", Tree{Hidden: true, MaxDepth: 3}, true, false, ".env"},
		{"brace include reads everything", home + "/nested", Tree{Hidden: true, Include: []string{"*.{go,ts}"}, IncludeFirst: true}, true, false, ""},
	}
	for _, c := range cases {
		tr := c.tree
		tr.Root = ResolvePath(c.path, "/", home)
		v := Default().CheckTree(tr, home, nil)
		if v.Credential != c.credential || v.Unknown != c.unknown || !strings.Contains(v.Path, c.reaches) {
			t.Errorf("%s: %+v, want credential %v unknown %v reaching %q", c.name, v, c.credential, c.unknown, c.reaches)
		}
	}
	_ = root
}

// A tree larger than the walk may read is unknown, never clean.
func TestCheckTreeTooLarge(t *testing.T) {
	_, home := treeFixture(t)
	defer func(b int) { treeBudget = b }(treeBudget)
	treeBudget = 3
	tr := Tree{Root: ResolvePath(home+"/clean", "/", home), Hidden: true}
	if v := Default().CheckTree(tr, home, nil); !v.Unknown || v.Credential {
		t.Errorf("too large: %+v", v)
	}
	// A well-known location is found without walking.
	tr = Tree{Root: ResolvePath(home, "/", home), Hidden: true}
	if v := Default().CheckTree(tr, home, nil); !v.Credential {
		t.Errorf("home: %+v", v)
	}
}

// A removed name stops counting below a tree too.
func TestCheckTreeConfigured(t *testing.T) {
	_, home := treeFixture(t)
	tr := Tree{Root: ResolvePath(home+"/.ssh", "/", home), Hidden: true}
	if v := Default().CheckTree(tr, home, nil); !v.Credential {
		t.Errorf("defaults: %+v", v)
	}
	cl, err := Config{Directories: Edits{Remove: []string{".ssh"}}, Files: Edits{Remove: []string{"id_*"}}}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	if v := cl.CheckTree(tr, home, nil); v.Credential {
		t.Errorf("after removals: %+v", v)
	}
}

func TestBelowRoot(t *testing.T) {
	cases := []struct {
		pat, root      string
		hidden         bool
		anchored, wild bool
	}{
		{"/home/u/.ssh/**", "/home/u", true, true, false},
		{"/home/u/.ssh/**", "/home/u", false, false, false},
		{"/home/u/.ssh/**", "/home", true, true, false},
		{"/home/u/.ssh/**", "/", true, true, false},
		{"/home/u/.ssh/**", "/home/u/.ssh", true, false, true}, // the root itself matches (Match)
		{"/home/u/.ssh/**", "/home/other", true, false, false},
		{"/home/u/.ssh/**", "/home/u/.sshx", true, false, false},
		{"/w/secrets/**", "/w", false, true, false},
		{"/w/secrets/**", "/w/src", true, false, false},
		{"/w/.env", "/w", true, true, false},
		{"/w/.env", "/w", false, false, false},
		{"/w/.env", "/w/src", true, false, false},
		{"/**/.env", "/w/src", true, false, true},
		{"/**/.env", "/w/src", false, false, false},
		{"/**/*.pem", "/w", false, false, true},
		{"/w/*/config", "/w", true, false, true},
		{"/w/*/config", "/w/a", true, true, false},
		{"/*/u/.aws/**", "/home", true, true, false},
		{"/**/u/.aws/**", "/home", true, false, true}, // anywhere: found by the walk
		{"/home/*/.aws/**", "/home/u", true, true, false},
		{"/etc/shadow", "/etc", false, true, false},
		{"/etc/shadow", "/etc/shadow", true, false, false}, // the root itself is not below it
	}
	for _, c := range cases {
		a, w := belowRoot(c.pat, c.root, c.hidden)
		if a != c.anchored || w != c.wild {
			t.Errorf("belowRoot(%q, %q, hidden %v) = %v, %v; want %v, %v", c.pat, c.root, c.hidden, a, w, c.anchored, c.wild)
		}
	}
}

func TestMatchTrees(t *testing.T) {
	_, home := treeFixture(t)
	tree := func(p string, tr Tree) TreeMatch {
		tr.Root = ResolvePath(p, "/", home)
		return TreeMatch{Tree: tr, List: func() Listing { return ListTree(tr) }}
	}
	cases := []struct {
		name     string
		patterns []string
		tree     TreeMatch
		want     int
	}{
		{"ssh rule, grep -r ~", []string{"/x/**", "~/.ssh/**"}, tree(home, Tree{Hidden: true}), 1},
		{"ssh rule, rg ~ (skips hidden and links)", []string{"~/.ssh/**"}, tree(home, Tree{SkipsLinks: true}), -1},
		{"ssh rule, rg -L ~ (skips hidden, reaches ~/.ssh through proj/keys)", []string{"~/.ssh/**"}, tree(home, Tree{}), 0},
		{"ssh rule, ls -aR ~ (a directory rule)", []string{"~/.ssh/**"}, tree(home, Tree{Hidden: true, NamesOnly: true}), 0},
		{"file rule, find ~ (names only)", []string{"~/.netrc"}, tree(home, Tree{Hidden: true, NamesOnly: true}), -1},
		{"anchored, missing", []string{"./secrets/**"}, tree(home+"/proj", Tree{}), 0},
		{"env anywhere, present below", []string{"**/.env"}, tree(home+"/nested", Tree{Hidden: true}), 0},
		{"env anywhere, absent below", []string{"**/.env"}, tree(home+"/clean", Tree{Hidden: true}), -1},
		{"env anywhere, skipped by .gitignore", []string{"**/.env"}, tree(home+"/proj", Tree{Hidden: true, Ignores: true, ExcludeDirs: []string{"keys"}}), -1},
		{"key anywhere, in node_modules, not ignored", []string{"**/id_rsa"}, tree(home+"/proj", Tree{Hidden: true}), 0},
		{"key anywhere, through a symlink", []string{"/nowhere/**", "**/id_rsa"}, tree(home+"/proj", Tree{Hidden: true, Ignores: true}), 1},
		{"rule on a sibling", []string{"~/other/**"}, tree(home+"/proj", Tree{Hidden: true}), -1},
		{"first of several", []string{"**/*.go", "~/proj/src/**"}, tree(home+"/proj", Tree{Hidden: true}), 0},
	}
	for _, c := range cases {
		for _, big := range []bool{false, true} {
			pats := c.patterns
			if big {
				// Past the size from which rule sets are indexed.
				for i := range 70 {
					pats = append(pats, "/elsewhere/"+itoa(i)+"/**")
				}
			}
			rs, err := CompileRules(pats, home+"/proj", home)
			if err != nil {
				t.Fatal(err)
			}
			if got := rs.MatchTrees([]TreeMatch{c.tree}); got != c.want {
				t.Errorf("%s (indexed %v): %d, want %d", c.name, big, got, c.want)
			}
		}
	}
	// An incomplete walk hits every wildcard rule that may match below.
	defer func(b int) { treeBudget = b }(treeBudget)
	treeBudget = 1
	rs, _ := CompileRules([]string{"**/*.pem"}, "/", home)
	if got := rs.MatchTrees([]TreeMatch{tree(home+"/clean", Tree{Hidden: true})}); got != 0 {
		t.Errorf("incomplete walk: %d", got)
	}
}

func TestListTreeIgnores(t *testing.T) {
	_, home := treeFixture(t)
	names := func(l Listing) string {
		out := []string{""}
		for _, e := range l.Entries {
			out = append(out, e.Rel)
		}
		return strings.Join(append(out, ""), " ")
	}
	l := ListTree(Tree{Root: ResolvePath(home+"/proj", "/", home), Hidden: true, Ignores: true})
	if s := names(l); strings.Contains(s, "node_modules") || strings.Contains(s, " .env ") || !strings.Contains(s, "src/a.go") {
		t.Errorf("ignores in a git work tree: %s", s)
	}
	// A nested repository does not inherit the enclosing one's ignore files.
	mkdirs(t, home+"/proj/sub/.git")
	touch(t, home+"/proj/sub/.env")
	l = ListTree(Tree{Root: ResolvePath(home+"/proj", "/", home), Hidden: true, Ignores: true})
	if s := names(l); !strings.Contains(s, " sub/.env ") || strings.Contains(s, " .env ") {
		t.Errorf("nested repository: %s", s)
	}
	// Outside a git work tree .gitignore does not apply (ripgrep).
	if err := os.Remove(home + "/proj/.git"); err != nil {
		t.Fatal(err)
	}
	l = ListTree(Tree{Root: ResolvePath(home+"/proj", "/", home), Hidden: true, Ignores: true})
	if s := names(l); !strings.Contains(s, " .env ") {
		t.Errorf("outside a work tree: %s", s)
	}
	// .ignore applies everywhere; a negation turns its file off.
	if err := os.WriteFile(home+"/proj/.ignore", []byte(".env\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l = ListTree(Tree{Root: ResolvePath(home+"/proj", "/", home), Hidden: true, Ignores: true})
	if s := names(l); strings.Contains(s, " .env ") {
		t.Errorf(".ignore: %s", s)
	}
	if err := os.WriteFile(home+"/proj/.ignore", []byte(".env\n!.env\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l = ListTree(Tree{Root: ResolvePath(home+"/proj", "/", home), Hidden: true, Ignores: true})
	if s := names(l); !strings.Contains(s, " .env ") {
		t.Errorf("negated .ignore: %s", s)
	}
}

// A "!" line in any ignore file rg or ag reads (in the tree, above it, or
// the repository's info/exclude) includes again what the other ignore
// files and the hidden filter skip: rg -l x (no --hidden) read .env
// through an .ignore holding !.env while .gitignore listed it. Below such
// a file the walk skips nothing.
func TestListTreeWhitelistOverridesHiddenAndIgnores(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := root + "/p"
	mkdirs(t, p+"/.git/info", p+"/src")
	for f, body := range map[string]string{".gitignore": ".env\nsecret\n", ".env": "x", "secret": "x", "src/.env": "x", "a.go": "x"} {
		if err := os.WriteFile(p+"/"+f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := func(dir string) string {
		l := ListTree(Tree{Root: ResolvePath(dir, "/", root), Ignores: true})
		var out []string
		for _, e := range l.Entries {
			out = append(out, e.Rel)
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	if got := names(p); got != "a.go src" {
		t.Fatalf("plain: %q", got)
	}
	for _, c := range []struct{ file, body, dir, want string }{
		{".ignore", "!.env\n", p, ".env .git .git/info .gitignore .ignore a.go secret src src/.env"},
		{".rgignore", "  !secret\n", p + "/src", ".env"},
		{".gitignore", ".env\n!keep\n", p, ".env .git .git/info .gitignore a.go secret src src/.env"},
		{".git/info/exclude", "!x\n", p + "/src", ".env"},
		{"../.ignore", "!.env\n", p + "/src", ".env"},
	} {
		f := p + "/" + c.file
		old, _ := os.ReadFile(f)
		if err := os.WriteFile(f, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := names(c.dir); got != c.want {
			t.Errorf("%s %q: walk of %s: %q, want %q", c.file, c.body, c.dir, got, c.want)
		}
		if old != nil {
			os.WriteFile(f, old, 0o644)
		} else {
			os.Remove(f)
		}
	}
	// An ignore file that cannot be read is taken to whitelist.
	if err := syscall.Mkfifo(p+"/.ignore", 0o644); err != nil {
		t.Fatal(err)
	}
	if got := names(p + "/src"); got != ".env" {
		t.Errorf("a FIFO .ignore: %q", got)
	}
}
