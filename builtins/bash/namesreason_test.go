package bash

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestNamesReasonNamesTheName holds that when a name read at decision time
// fails (namesnow.go), the reason the user sees names it and says why,
// rather than the listing-free walk's "the names … are read at decision
// time" (issue 26): one case per kind of failing name, in each row that
// reads names. The verdicts stay not read-only.
func TestNamesReasonNamesTheName(t *testing.T) {
	file := func(name string) func(d, home string) {
		return func(d, _ string) {
			if err := os.WriteFile(filepath.Join(d, name), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		kind, cmd string
		make      func(d, home string)
		want      []string // all in one reason of the command
	}{
		{"blank", `find . -exec sh -c 'echo {} | grep -qi /path/to/something' \; -print`, file("my file.txt"),
			[]string{`"my file.txt"`, "shell syntax"}},
		{"blank", `find src | xargs sort`, file("src/my file.txt"), []string{`"my file.txt"`, "xargs splits"}},
		{"blank", `ls | xargs wc -l`, file("my file.txt"), []string{`"my file.txt"`, "xargs splits"}},
		{"dash", `ls | xargs wc -l`, file("-rf"), []string{`"-rf"`, "may be an option"}},
		{"dash", `wc -l *`, file("-rf"), []string{`"-rf"`, "may be an option"}},
		{"dash", `touch a.txt; wc -l *`, file("--files0-from=x"), []string{`"--files0-from=x"`, "may be an option"}},
		{"colon", `wc -l *.txt`, file("h:x.txt"), []string{`"h:x.txt"`, "more than a file"}},
		{"equals", `du -sh *`, file("a=b"), []string{`"a=b"`, "more than a file"}},
		{"blank", `wc -l $(find . -type f)`, file("my file.txt"), []string{`"my file.txt"`, "would split or glob"}},
		{"dash", `wc -l $(ls)`, file("-rf"), []string{`"-rf"`, "may be an option"}},
		{"fifo", `wc -l "$(find src -name p)"`, func(d, _ string) {
			if err := syscall.Mkfifo(filepath.Join(d, "src", "p"), 0o644); err != nil {
				t.Skip("no FIFO:", err)
			}
		}, []string{`"p"`, "FIFO"}},
		{"colon", `ls | xargs wc -l`, file("h:x"), []string{`"h:x"`, "more than a file"}},
		{"colon", `find . -exec sh -c 'wc -l {}' \;`, file("h:x"), []string{`"h:x"`, "shell syntax"}},
		{"equals", `ls | xargs wc -l`, file("a=b"), []string{`"a=b"`, "more than a file"}},
		{"equals", `find . -exec sh -c 'wc -l {}' \;`, file("a=b"), []string{`"a=b"`, "shell syntax"}},
		{"fifo", `find src | xargs sort`, func(d, _ string) {
			if err := syscall.Mkfifo(filepath.Join(d, "src", "p"), 0o644); err != nil {
				t.Skip("no FIFO:", err)
			}
		}, []string{`"p"`, "FIFO"}},
		{"fifo", `find . -exec sh -c 'wc -l {}' \;`, func(d, _ string) {
			if err := syscall.Mkfifo(filepath.Join(d, "p"), 0o644); err != nil {
				t.Skip("no FIFO:", err)
			}
		}, []string{`"p"`, "FIFO"}},
		// A link to a credential file is the recursive read's (Rego's
		// "reads credential path"); here a link out of every tree.
		{"link out", `find src | xargs sort`, func(d, home string) {
			if err := os.Symlink("/proc/self/cwd", filepath.Join(d, "src", "key")); err != nil {
				t.Fatal(err)
			}
		}, []string{"a link below", "/proc/self/cwd"}},
		{"glob", `find . -exec sh -c 'wc -l {}' \;`, file("x*"), []string{`"x*"`, "shell syntax"}},
		// More names than the working directory's listing takes (4,096;
		// find's walk takes 20,000, the same reason with its bound).
		{"too many", `ls | xargs wc -l`, manyNames(t, 4097), []string{"cannot be listed whole"}},
		{"too many", `touch 'x y'; ls | xargs wc -l`, manyNames(t, 4097), []string{"cannot be listed whole"}},
		// Created by the command before find runs: no name fails at
		// decision time, the listing-free reason stays.
		{"created first", `touch 'n m'; find . | xargs grep x`, func(string, string) {}, []string{namesMayChangeWhy}},
		{"created first", `touch 'n m'; ls | xargs wc -l`, func(string, string) {}, []string{lsNamesMayChangeWhy}},
	}
	for _, c := range cases {
		t.Run(c.kind+"/"+c.cmd, func(t *testing.T) {
			d, home := t.TempDir(), t.TempDir()
			if err := os.Mkdir(filepath.Join(d, "src"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
				t.Fatal(err)
			}
			file("id_ed25519")(filepath.Join(home, ".ssh"), "")
			file("a.txt")(d, "")
			c.make(d, home)
			a := Analyze(c.cmd, Options{Cwd: d, Home: home, WorkingDirectories: []string{d}})
			if a.ReadOnly {
				t.Fatalf("read-only; want not read-only")
			}
			t.Log(a.NotReadOnly)
			found := false
			for _, r := range a.NotReadOnly {
				ok := true
				for _, w := range c.want {
					ok = ok && strings.Contains(r, w)
				}
				if c.kind != "created first" && (strings.Contains(r, namesMayChangeWhy) || strings.Contains(r, lsNamesMayChangeWhy)) {
					t.Errorf("reason hides the name: %q", r)
				}
				found = found || ok
			}
			if !found {
				t.Errorf("no reason holds %q: %q", c.want, a.NotReadOnly)
			}
		})
	}
}

// manyNames makes n names in a directory, each a hard link to a.txt (the
// listing counts names, not files): a link costs a small part of the
// system time of creating a file, 4,097 of them about a second less.
func manyNames(t *testing.T, n int) func(d, home string) {
	return func(d, _ string) {
		for i := range n {
			if err := os.Link(filepath.Join(d, "a.txt"), filepath.Join(d, fmt.Sprint(i))); err != nil {
				t.Fatal(err)
			}
		}
	}
}
