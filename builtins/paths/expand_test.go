package paths

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestExpand(t *testing.T) {
	root := tempRoot(t)
	home := filepath.Join(root, "home")
	proj := filepath.Join(root, "proj")
	mkdirs(t, filepath.Join(home, ".ssh"), filepath.Join(proj, "src", "a"), filepath.Join(proj, "src", "b"))
	touch(t, filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(proj, ".env"), filepath.Join(proj, ".envrc"),
		filepath.Join(proj, "src", "a", "x.go"), filepath.Join(proj, "src", "b", "y.go"), filepath.Join(proj, "README"))
	symlink(t, filepath.Join(home, ".ssh"), filepath.Join(proj, "keys"))

	cases := []struct {
		glob string
		want []string
	}{
		{proj + "/.e*", []string{proj + "/.env", proj + "/.envrc"}},
		{proj + "/*", []string{proj + "/.env", proj + "/.envrc", proj + "/README", proj + "/keys", proj + "/src"}}, // dotfiles too
		{proj + "/src/*/*.go", []string{proj + "/src/a/x.go", proj + "/src/b/y.go"}},
		{proj + "/src/**/*.go", []string{proj + "/src/a/x.go", proj + "/src/b/y.go"}}, // ** is * without globstar
		{proj + "/*/id_rsa", []string{proj + "/keys/id_rsa"}},                         // follows symlinked dirs
		{proj + "/keys/*", []string{proj + "/keys/id_rsa"}},
		{proj + "/src/{a,b}/*.go", []string{proj + "/src/a/x.go", proj + "/src/b/y.go"}},
		{proj + "/?EADME", []string{proj + "/README"}},
		{proj + "/nothing*", nil},
	}
	for _, c := range cases {
		got, complete := Expand(c.glob)
		if !complete || !slices.Equal(got, c.want) {
			t.Errorf("Expand(%q) = %q, %v; want %q", c.glob, got, complete, c.want)
		}
	}
	if _, complete := Expand(proj + "/[x"); complete {
		t.Error("a malformed glob expanded completely")
	}
}

func TestClassifyGlob(t *testing.T) {
	cases := []struct {
		p                     string
		dangerous, credential bool
	}{
		{"/p/.e*", true, true},            // may name .env
		{"/p/.env.e*", true, true},        // may name .env.<anything> other than .env.example
		{"/p/.env.example", false, false}, // literal: excepted
		{"/p/*.go", false, false},
		{"/p/*.md", false, false},
		{"/p/id_*", true, true},
		{"/p/id_rsa*.pub", false, false},
		{"/p/src/*", true, true}, // may name id_rsa: the fallback is coarse
		{"/home/u/.s?h/config", true, true},
		{"/home/u/.[s]sh/config", true, true},
		{"/home/u/.config/g*/hosts.yml", true, true},
		{"/home/u/.bash*", true, true},     // .bash_history
		{"/p/.git/*.md", true, false},      // literal directory
		{"/home/u/.ssh/*", true, true},     // literal credential directory
		{"/home/u/*/config", false, false}, // * does not name .ssh (leading dot)
		{"/home/u/.*/config", true, true},  // .* does
		{"/p/{.env,x}", true, true},
	}
	for _, c := range cases {
		d, cr, r := Default().ClassifyGlob(c.p)
		if d != c.dangerous || cr != c.credential {
			t.Errorf("ClassifyGlob(%q) = %v, %v, %q; want %v, %v", c.p, d, cr, r, c.dangerous, c.credential)
		}
	}
}
