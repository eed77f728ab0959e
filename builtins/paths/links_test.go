package paths

import (
	"os"
	"testing"
)

// Links as each program treats them (docs/reads.md, "Links"): a tree read
// by a program that follows links reaches what a link below its root
// points to, for the credential check and for Read rules alike; a tree read
// by a program that skips links (Tree.SkipsLinks) does not. One hostile
// tree per row, each read four ways: contents or names, following or not.
func TestLinksAsEachProgramTreatsThem(t *testing.T) {
	root := tempRoot(t)
	home := root + "/home"
	mkdirs(t, home+"/.ssh", root+"/elsewhere/inner", root+"/loopdir")
	touch(t, home+"/.ssh/id_rsa", root+"/elsewhere/inner/notes.txt")
	symlink(t, home+"/.ssh", root+"/elsewhere/inner/deep")
	type row struct {
		name  string
		links map[string]string // link name -> target, in a fresh project
		// reach: what a program that follows links reaches (contents
		// reader, names-only lister); a program that skips links reaches
		// nothing in any row.
		contents, names bool
		unknown         bool // the credential check's reason is a target not known statically
	}
	rows := []row{
		{"a link to ~/.ssh", map[string]string{"sshlink": home + "/.ssh"}, true, true, false},
		{"a link to the key", map[string]string{"keylink": home + "/.ssh/id_rsa"}, true, false, false},
		{"a link to a directory holding a link to ~/.ssh", map[string]string{"other": root + "/elsewhere"}, true, true, false},
		{"a link to home", map[string]string{"h": home}, true, true, false},
		{"a relative link up to home", map[string]string{"up": ".."}, true, true, false},
		{"a link to /proc/self/root", map[string]string{"r": "/proc/self/root"}, true, true, false},
		{"a link through /proc/self/cwd", map[string]string{"c": "/proc/self/cwd/.."}, true, true, true},
		{"a link to an open file", map[string]string{"fd": "/dev/fd/3"}, true, true, true},
		{"a link loop", map[string]string{"loop1": "loop2", "loop2": "loop1"}, false, false, false},
		{"a link to the project itself", map[string]string{"self": "."}, false, false, false},
		{"a dangling link into ~/.ssh (the key may come later)", map[string]string{"gone": home + "/.ssh/id_ed25519"}, true, false, false},
	}
	for i, r := range rows {
		proj := home + "/p" + itoa(i+1)
		mkdirs(t, proj+"/src")
		touch(t, proj+"/src/a.go")
		for name, target := range r.links {
			symlink(t, target, proj+"/"+name)
		}
		for _, names := range []bool{false, true} {
			for _, skips := range []bool{false, true} {
				tr := Tree{Root: ResolvePath(proj, "/", home), Hidden: true, NamesOnly: names, SkipsLinks: skips}
				want := !skips && (r.contents && !names || r.names && names)
				what := map[bool]string{false: "contents", true: "names"}[names] + map[bool]string{false: ", follows links", true: ", skips links"}[skips]
				l := ListTree(tr)
				list := func() Listing { return l }
				v := Default().CheckTree(tr, home, list)
				if v.Credential != want || v.Unknown {
					t.Errorf("%s, %s: credential check %+v, want credential %v", r.name, what, v, want)
				}
				rs, err := CompileRules([]string{"~/.ssh/**"}, proj, home)
				if err != nil {
					t.Fatal(err)
				}
				if got := rs.MatchTrees([]TreeMatch{{Tree: tr, List: list}}); (got == 0) != want {
					t.Errorf("%s, %s: Read(~/.ssh/**) hit %v, want %v", r.name, what, got == 0, want)
				}
			}
		}
	}
	// A walk that cannot finish may hide a link: a program that follows
	// links meets every rule, one that skips them only the rules below it.
	defer func(b int) { treeBudget = b }(treeBudget)
	treeBudget = 1
	proj := home + "/p1"
	for _, skips := range []bool{false, true} {
		tr := Tree{Root: ResolvePath(proj, "/", home), Hidden: true, SkipsLinks: skips}
		rs, _ := CompileRules([]string{"~/.ssh/**"}, proj, home)
		if got := rs.MatchTrees([]TreeMatch{{Tree: tr, List: func() Listing { return ListTree(tr) }}}); (got == 0) == skips {
			t.Errorf("incomplete walk, skips links %v: hit %v", skips, got == 0)
		}
	}
	if _, err := os.Lstat(proj + "/sshlink"); err != nil {
		t.Fatal(err)
	}
}

// A walk that cannot finish is an uncertain hit of the rules it could hide
// a match of; TreeMatch.Certain leaves those out and keeps what the walk
// found (docs/decision.md, point 1): the policy tells a certain hit from an
// uncertain one by matching twice.
func TestCertainTreeMatches(t *testing.T) {
	root := tempRoot(t)
	home := root + "/home"
	mkdirs(t, home+"/.ssh", home+"/plain/sub", home+"/linked/sub", home+"/dotenv/sub")
	touch(t, home+"/.ssh/id_rsa", home+"/dotenv/.env")
	symlink(t, home+"/.ssh", home+"/linked/keys")
	for _, p := range []string{"plain", "linked", "dotenv"} {
		for i := range 6 {
			touch(t, home+"/"+p+"/sub/f"+itoa(i))
		}
	}
	// The root's entries fit the budget, the directory below it does not.
	// ~/never/** is hit only uncertainly (a link may lie beyond the walk).
	defer func(b int) { treeBudget = b }(treeBudget)
	treeBudget = 3
	cases := []struct {
		proj, rule string
		skips      bool
		any, sure  bool // hit without and with Certain
	}{
		// Nothing found: an uncertain hit only where a hit could hide.
		{"plain", "~/.ssh/**", false, true, false},
		{"plain", "~/.ssh/**", true, false, false},
		{"plain", "**/.env", false, true, false},
		{"plain", "**/.env", true, true, false},
		{"plain", "fnmatch:*/.env", true, true, false},
		{"plain", "~/.ssh/id_rsa", false, true, false},
		// Found before the budget ran out: certain.
		{"linked", "~/.ssh/**", false, true, true},
		{"linked", "~/.ssh/id_rsa", false, true, true},
		{"linked", "~/.ssh/**", true, false, false},
		{"dotenv", "**/.env", false, true, true},
		{"dotenv", "**/.env", true, true, true},
		{"dotenv", "fnmatch:*/.env", true, true, true},
		// Named below the root: certain whatever the walk.
		{"plain", "~/plain/sub/f9", true, true, true},
	}
	for _, c := range cases {
		proj := home + "/" + c.proj
		tr := Tree{Root: ResolvePath(proj, "/", home), Hidden: true, SkipsLinks: c.skips}
		l := ListTree(tr)
		if l.Complete {
			t.Fatalf("%s: the walk finished; the test needs one that cannot", c.proj)
		}
		rs, err := CompileRules([]string{"~/never/**", c.rule}, proj, home)
		if err != nil {
			t.Fatal(err)
		}
		for _, certain := range []bool{false, true} {
			got := rs.MatchTrees([]TreeMatch{{Tree: tr, List: func() Listing { return l }, Cwd: proj, Certain: certain}})
			want := map[bool]bool{false: c.any, true: c.sure}[certain]
			// Certain: never the rule nothing in the tree matches.
			if got >= 0 != want || certain && got == 0 {
				t.Errorf("%s, %s, skips links %v, certain %v: index %d, want hit %v", c.proj, c.rule, c.skips, certain, got, want)
			}
		}
	}
}
