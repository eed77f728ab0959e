package bash

import (
	"slices"
	"strings"
	"testing"
)

// Where git commands look for their repository, and when that keeps them
// from being read-only (git.go). The cwd is /home/u/proj, a working
// directory; /home/u/other is another one.
func TestGitRepositoryDirectories(t *testing.T) {
	t.Parallel()
	opts := Options{Cwd: "/home/u/proj", Home: "/home/u", WorkingDirectories: []string{"/home/u/other"}}
	cases := []struct {
		cmd  string
		ro   bool
		dirs []string
		why  string // substring of the git leaf's reason
	}{
		{cmd: "git status", ro: true, dirs: []string{"/home/u/proj"}},
		{cmd: "git -C sub log --oneline", ro: true, dirs: []string{"/home/u/proj/sub"}},
		{cmd: "git -C /home/u/other diff", ro: true, dirs: []string{"/home/u/other"}},
		{cmd: "cd sub && git status", ro: true, dirs: []string{"/home/u/proj/sub"}},
		{cmd: "git -C a -C b status", ro: true, dirs: []string{"/home/u/proj/a/b"}},
		{cmd: "git -C '' status", ro: true, dirs: []string{"/home/u/proj"}},
		{cmd: "git --no-pager -C x show", ro: true, dirs: []string{"/home/u/proj/x"}},
		{cmd: "timeout 5 git -C sub status", ro: true, dirs: []string{"/home/u/proj/sub"}},
		// Outside the working directories, or not known.
		{cmd: "git -C /tmp/e status", dirs: []string{"/tmp/e"}, why: "outside the working directories"},
		{cmd: "git -C .. log", dirs: []string{"/home/u", "/home/u/proj/.."}, why: "outside"},
		// git's chdir is physical: sub/.. may be anywhere once sub is a link.
		{cmd: "git -C sub/.. log", dirs: []string{"/home/u/proj", "/home/u/proj/sub/.."}, why: "outside"},
		{cmd: "cd /srv/repo && git log", dirs: []string{"/srv/repo"}, why: "outside"},
		{cmd: "git -C ~ status", dirs: []string{"/home/u"}, why: "outside"},
		{cmd: "cd \"$D\" && git status", why: "not known statically"},
		{cmd: "git -C \"$D\" status", why: "not known statically"},
		{cmd: "git --git-dir=e status", dirs: []string{"/home/u/proj/e", "/home/u/proj"}},
		{cmd: "git --git-dir e log", dirs: []string{"/home/u/proj/e", "/home/u/proj"}},
		// Made, or possibly made, into a repository by the same command.
		{cmd: "mkdir -p e/objects e/refs && echo 'ref: refs/heads/main' > e/HEAD && printf '[core]\\n' > e/config && git -C e status",
			dirs: []string{"/home/u/proj/e"}, why: "can make /home/u/proj/e the repository"},
		{cmd: "echo x > HEAD; git status", why: "can make /home/u/proj the repository"},
		{cmd: "mkdir -p sub/refs/heads && cd sub/deep && git status", why: "can make /home/u/proj/sub"},
		{cmd: "cp -r /tmp/bare e && git -C e log", why: "outside"}, // e is also what /tmp/bare was
		{cmd: "mv /tmp/bare sub; cd sub && git status", why: "outside"},
		{cmd: "cp -r bare e && git -C e log", why: "which this command writes"},
		{cmd: "touch .git; git status", why: "can make"},
		{cmd: "echo 'gitdir: /tmp/x' > sub/.git && git -C sub status", why: "can make"},
		{cmd: "tar xf repo.tar && git -C e status", why: "after tar"},
		{cmd: "git clone https://x/y && git -C y/e status", why: "after git"},
		{cmd: "echo x > \"$f\"; git status", why: "not known statically"},
		{cmd: "ln -s /tmp/bare e && git -C e status", why: "outside"},
		// Writes that cannot make a repository on git's way leave it read-only.
		{cmd: "echo x > notes.txt; git status", dirs: []string{"/home/u/proj"}},
		{cmd: "mkdir -p build/objects && git status", dirs: []string{"/home/u/proj"}},
	}
	for _, c := range cases {
		a := analyze(c.cmd, opts)
		var git *Leaf
		for i := range a.Leaves {
			if a.Leaves[i].Program == "git" {
				git = &a.Leaves[i]
			}
		}
		if git == nil {
			t.Errorf("%q: no git leaf\n%s", c.cmd, brief(a))
			continue
		}
		if git.ReadOnly != c.ro {
			t.Errorf("%q: git leaf read-only %v, want %v (%s)", c.cmd, git.ReadOnly, c.ro, git.Reason)
		}
		if c.why != "" && !strings.Contains(git.Reason, c.why) {
			t.Errorf("%q: reason %q, want it to mention %q", c.cmd, git.Reason, c.why)
		}
		if c.dirs != nil && !slices.Equal(a.GitDirs, c.dirs) {
			t.Errorf("%q: git dirs %q, want %q", c.cmd, a.GitDirs, c.dirs)
		}
	}
}

// A command that writes two of HEAD, objects and refs of one directory
// builds a repository there, wherever it is: a dangerous pattern.
func TestGitRepositoryInTheMaking(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd string
		hit bool
	}{
		{"mkdir -p e/objects e/refs && echo 'ref: refs/heads/main' > e/HEAD && printf '[core]' > e/config", true},
		{"mkdir -p e/objects e/refs", true},
		{"mkdir -p x/refs/heads; touch x/HEAD", true},
		{"mkdir objects refs", true},
		{"cp HEAD.txt e/HEAD && mkdir e/Objects", true},
		{"install -d e/objects && install h e/HEAD", true},
		{"mkdir -p a/objects b/refs", false},
		{"mkdir -p build/objects && touch build/config", false},
		{"echo x > HEAD", false},
	} {
		a := analyze(c.cmd, conformanceOpts)
		got := slices.ContainsFunc(a.Dangerous, func(h Hit) bool { return h.Pattern == "git-repository-write" })
		if got != c.hit {
			t.Errorf("%q: git-repository-write %v, want %v (%v)", c.cmd, got, c.hit, a.Dangerous)
		}
	}
}
