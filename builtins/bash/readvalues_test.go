package bash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadTextValuesAndReadline (issue 26): read's -d and -p take the next
// word whole, so a quoted run-time word there is text, never an option or a
// name; -e and -i (readline) are read-only only where stdin cannot be a
// terminal: a shell per call whose host gives no terminal
// (Options.StdinTerminal), and no redirection from /dev/ or /proc/, dup,
// exec or key binding in the command.
func TestReadTextValuesAndReadline(t *testing.T) {
	t.Parallel()
	tty := shellPerCallOpts
	tty.StdinTerminal = true
	cases := []struct {
		cmd           string
		perCall, last bool // read-only in a shell per call; and in a shell that lasts
	}{
		{`read -d "$(echo -e '\004')" stdin`, true, true},
		{`read -rd "$x" -p "$(ls)" line`, true, true},
		{`read -p "$x" -d "$y" -r a b`, true, true},
		{`read -e -p "Do that? [Y,n]" -i Y input`, true, false},
		{`read -e -i "$(date)" x`, true, false},
		{`ls | while read -e l; do echo "$l"; done`, true, false},
		// Not values: an unquoted word splits, -u's value is a descriptor,
		// the word after the value is a name.
		{`read -d $x y`, false, false},
		{`read -u "$x" y`, false, false},
		{`read -d "$x" "$y"`, false, false},
		{`read -p -d "$x"`, false, false},
		{`read -d "$x" PATH`, false, false},
		// Readline where stdin may be a terminal, or in a cluster.
		{`read -e x < /dev/tty`, false, false},
		{`exec 0</dev/tty; read -e x`, false, false},
		{`read -e x <&3`, false, false},
		{`bind -x '"\C-x": rm -rf ~'; read -e x`, false, false},
		{`read -ei Y x`, false, false},
		{`read -e -iY x`, false, false},
	}
	for _, c := range cases {
		if a := analyze(c.cmd, shellPerCallOpts); a.ReadOnly != c.perCall {
			t.Errorf("%q in a shell per call: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.perCall, strings.Join(a.NotReadOnly, "; "))
		}
		if a := analyze(c.cmd, conformanceOpts); a.ReadOnly != c.last {
			t.Errorf("%q in a shell that lasts: read-only = %v, want %v (%s)", c.cmd, a.ReadOnly, c.last, strings.Join(a.NotReadOnly, "; "))
		}
		if strings.Contains(c.cmd, "read -e") {
			if a := analyze(c.cmd, tty); a.ReadOnly {
				t.Errorf("%q with a terminal the agent types into: read-only", c.cmd)
			}
		}
	}
}

// TestFindGlobRootTree: a starting point that is a glob ending in "/" is
// a root read as the glob, following links (the glob matches a link to a
// directory and find follows "link/"), so that a link to ~/.ssh among the
// names it matches reaches the credential check (issue 26). The working
// directory exists: a glob in the root's first component is listed at
// decision time (no name may hold ":", rootMayNameHost).
func TestFindGlobRootTree(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	opts := Options{Cwd: filepath.Join(home, "proj"), Home: home}
	appendTo(t, filepath.Join(opts.Cwd, "src/a/x.go"), "x\n")
	for _, cmd := range []string{`find */ -type f -exec cat {} \;`, `find src/*/ -print0 | xargs -0 grep -l x`} {
		a := analyze(cmd, opts)
		if !a.ReadOnly {
			t.Errorf("%q: not read-only (%s)", cmd, strings.Join(a.NotReadOnly, "; "))
			continue
		}
		found := false
		for _, tr := range a.RecursiveReads {
			if strings.HasSuffix(tr.Path, "/*") && !tr.SkipsLinks && !tr.NamesOnly {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: no tree read of the glob that follows links: %+v", cmd, a.RecursiveReads)
		}
	}
	// find */ | xargs (no -0): the names below the glob's matches are not
	// walked for blanks, even where a directory is literally named "*".
	dir := t.TempDir()
	for _, d := range []string{"*", "q --output=x.txt"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if a := Analyze(`find */ -type f | xargs sort`, Options{Cwd: dir, Home: t.TempDir()}); a.ReadOnly {
		t.Errorf("find */ | xargs sort with a directory named *: read-only")
	}
}

// TestFindGlobRootListed: find . * is read-only while no name in the
// working directory is one find would take for an option, a primary or an
// operator; the cached analysis is dropped when a name there changes
// (issue 26).
func TestFindGlobRootListed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := Options{Cwd: dir, Home: t.TempDir()}
	for _, n := range []string{"a.jpg", ".hidden", "b c"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := `find . * | grep -P "[a-f0-9\-]{36}\.jpg"`
	if a := Analyze(cmd, opts); !a.ReadOnly {
		t.Errorf("%q: not read-only (%s)", cmd, strings.Join(a.NotReadOnly, "; "))
	}
	// A bracket is read for every name in the directory (globsNoOptionNow):
	// [a-]* is read-only here, and not once a name starts with "-" below.
	if a := Analyze(`find . [a-]*`, opts); !a.ReadOnly {
		t.Errorf("find . [a-]*: not read-only (%s)", strings.Join(a.NotReadOnly, "; "))
	}
	for _, c := range []string{`shopt -s dotglob; find . *`, `find . "$x"*`} {
		if analyze(c, opts).ReadOnly {
			t.Errorf("%q: read-only", c)
		}
	}
	for _, n := range []string{"-delete", "(", "-L"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{cmd, `find . [a-]*`} {
			if a := Analyze(c, opts); a.ReadOnly {
				t.Errorf("%q once ./%s exists: read-only", c, n)
			}
		}
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
}
