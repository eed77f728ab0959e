package bash

import (
	"slices"
	"strings"
	"testing"
)

// Links made and used in one command: later paths are resolved through
// them (links.go). Home is /home/u, the cwd /home/u/proj.
func TestLinksMadeAndUsed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cmd string
		// reads and writes must be among the analysis' paths.
		reads, writes []string
		// notRO: leaf indexes that must not be read-only (and are no
		// filesystem commands); critical: removal targets expected.
		notRO    []int
		critical []string
		// dynWrites: some write is not static.
		dynWrites bool
	}{
		// A symbolic link's target is written in effect, and paths under
		// its name lead there.
		{cmd: "ln -s /etc nl && echo x > nl/f", writes: []string{"/etc", "/etc/f", "/home/u/proj/nl/f"}},
		{cmd: "ln -s ~/.ssh/id_rsa k; cat k", reads: []string{"/home/u/.ssh/id_rsa", "/home/u/proj/k"}, writes: []string{"/home/u/.ssh/id_rsa"}},
		{cmd: "ln -sfn ~/.ssh s && cat s/id_ed25519", reads: []string{"/home/u/.ssh/id_ed25519"}},
		{cmd: "ln -sT / r; rm -rf r/", writes: []string{"/"}, critical: []string{"/"}},
		{cmd: "ln -s ../../.bashrc sub/b && echo x >> sub/b", writes: []string{"/home/u/.bashrc"}},
		{cmd: "ln -sr ../.bashrc b; echo x >> b", writes: []string{"/home/u/.bashrc"}},
		{cmd: "ln -s -t d /etc/passwd && cat d/passwd", reads: []string{"/etc/passwd"}},
		{cmd: "ln -s /etc && cat etc/shadow", reads: []string{"/etc/shadow"}},
		{cmd: "ln -s /etc x; ln -s x y; cat y/hosts", reads: []string{"/etc/hosts"}},
		{cmd: "ln -s /etc l && cd l && echo x > motd", writes: []string{"/etc/motd"}},
		{cmd: "ln -s /etc l; (cd l; touch motd)", writes: []string{"/etc/motd"}},
		{cmd: "(ln -s /etc l); tee l/motd < f", writes: []string{"/etc/motd"}},
		{cmd: "ln -s / r && cat r/home/u/.aws/credentials", reads: []string{"/home/u/.aws/credentials"}},
		{cmd: "ln -s /etc l && cat l/../x", reads: []string{"/x", "/home/u/proj/x"}},
		// Hard links, moves and link-keeping copies: the new name is what
		// the old one was, and its on-disk links are resolved from there.
		{cmd: "ln ~/.bashrc b; echo x >> b", writes: []string{"/home/u/.bashrc"}},
		{cmd: "link ~/.profile p && truncate -s0 p", writes: []string{"/home/u/.profile"}},
		{cmd: "cp -s ~/.ssh/id_rsa k && cat k", reads: []string{"/home/u/.ssh/id_rsa"}},
		{cmd: "cp -l ~/.zshrc z && echo >> z", writes: []string{"/home/u/.zshrc"}},
		{cmd: "cp -r /tmp/evil d && echo x > d/l/f", writes: []string{"/tmp/evil/l/f"}},
		{cmd: "cp -a /tmp/lnk k; echo x > k", writes: []string{"/tmp/lnk"}},
		{cmd: "mv ~/.ssh s && cat s/id_rsa", reads: []string{"/home/u/.ssh/id_rsa"}},
		{cmd: "ln -s /etc a; mv a b; echo x > b/motd", writes: []string{"/etc/motd"}},
		// Loops and pipelines: a link made later in the body or on the other
		// side of a pipe may be there already.
		{cmd: "for i in 1 2; do cat k; ln -s ~/.ssh/id_rsa k; done", reads: []string{"/home/u/.ssh/id_rsa"}},
		{cmd: "while true; do echo x > l/f; ln -s /etc l; done", writes: []string{"/etc/f"}},
		{cmd: "cat k | ln -s ~/.aws/credentials k", reads: []string{"/home/u/.aws/credentials"}},
		// Links no one can place: later paths are not trusted.
		{cmd: "ln -s \"$T\" x && echo y > x/f", notRO: []int{1}},
		{cmd: "ln -s /etc \"$n\"; touch a", notRO: []int{1}},
		{cmd: "ls | xargs ln -s /etc; cat a/passwd", notRO: []int{2}},
		{cmd: "ln --frob -s /etc x; cat x/passwd", notRO: []int{1}},
		{cmd: "/bin/ln -s /etc x; cat x/passwd", notRO: []int{1}},
		{cmd: "tar xf a.tar && cat x/y", notRO: []int{1}},
		{cmd: "unzip -o a.zip; echo x > link/f", notRO: []int{1}},
		{cmd: "git checkout evil && cat l", notRO: []int{1}},
		{cmd: "rsync -a host:x . ; mkdir d", notRO: []int{1}},
		{cmd: "patch -p1 < x.diff; cat link", notRO: []int{1}},
	}
	for _, c := range cases {
		a := analyze(c.cmd, conformanceOpts)
		for _, p := range c.reads {
			if !slices.Contains(a.Reads, p) {
				t.Errorf("%q: reads %q, want %q among them", c.cmd, a.Reads, p)
			}
		}
		for _, p := range c.writes {
			if !slices.Contains(a.Writes, p) {
				t.Errorf("%q: writes %q, want %q among them", c.cmd, a.Writes, p)
			}
		}
		for _, i := range c.notRO {
			if i >= len(a.Leaves) {
				t.Errorf("%q: no leaf %d\n%s", c.cmd, i, brief(a))
				continue
			}
			if lf := a.Leaves[i]; lf.ReadOnly || lf.FSCommand {
				t.Errorf("%q: leaf %d read-only %v, fs %v, want neither\n%s", c.cmd, i, lf.ReadOnly, lf.FSCommand, brief(a))
			}
		}
		for _, p := range c.critical {
			if !slices.Contains(a.CriticalRemovals, p) {
				t.Errorf("%q: critical removals %q, want %q", c.cmd, a.CriticalRemovals, p)
			}
		}
		if a.ReadOnly {
			t.Errorf("%q: read-only", c.cmd)
		}
	}
}

// Links that stay inside the working directory keep filesystem commands
// filesystem commands, and commands without links are unchanged.
func TestLinksInside(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd    string
		writes []string
	}{
		{"ln -sfn build/v2 current && ls current/", []string{"/home/u/proj/current", "/home/u/proj/build/v2"}},
		{"ln -s ../proj/a b", []string{"/home/u/proj/b", "/home/u/proj/a"}},
		{"cp -r src dst && touch dst/x", []string{"/home/u/proj/dst", "/home/u/proj/dst/x", "/home/u/proj/src/x"}},
	} {
		a := analyze(c.cmd, conformanceOpts)
		for _, p := range c.writes {
			if !slices.Contains(a.Writes, p) {
				t.Errorf("%q: writes %q, want %q among them", c.cmd, a.Writes, p)
			}
		}
		for _, lf := range a.Leaves {
			if !lf.ReadOnly && !lf.FSCommand {
				t.Errorf("%q: leaf %q is neither read-only nor a filesystem command: %s", c.cmd, lf.Argv, lf.Reason)
			}
			for _, w := range lf.Writes {
				if !strings.HasPrefix(w, "/home/u/proj/") {
					t.Errorf("%q: write %q outside", c.cmd, w)
				}
			}
		}
	}
}

// A chain of links that loops, or more links than can be followed, makes
// the path not static.
func TestLinkLoops(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{
		"ln -s . x && cat x/x/x/x/x/x/x/x/x/x/f",
		"ln -s a b; ln -s b a; echo > a/f",
	} {
		a := analyze(cmd, conformanceOpts)
		if a.ReadOnly {
			t.Errorf("%q: read-only", cmd)
		}
		last := a.Leaves[len(a.Leaves)-1]
		if last.ReadOnly || len(last.Reads)+len(last.Writes) > 0 {
			t.Errorf("%q: the looping path was resolved\n%s", cmd, brief(a))
		}
	}
}

// git subcommands that check nothing out make no links.
func TestGitWithoutCheckoutMakesNoLinks(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{
		"git commit -m x && cat README",
		"git add . && git status && head f",
		"git push origin main; ls src",
	} {
		a := analyze(cmd, conformanceOpts)
		last := a.Leaves[len(a.Leaves)-1]
		if !last.ReadOnly {
			t.Errorf("%q: last leaf not read-only: %s", cmd, last.Reason)
		}
	}
}
