package paths

import (
	"slices"
	"testing"
)

// Claude Code's documented path-rule examples (code.claude.com, "Read and
// Edit" permission rules), with project /proj, cwd /proj/pkg and home
// /home/alice. allow is what an allow rule covers (Claude Code's documented
// reading only); deny what a deny or ask rule hits (every reading the
// documentation leaves open). docs/rules.md shows the same table.
func TestClaudeReadingsDocumented(t *testing.T) {
	const project, cwd, home = "/proj", "/proj/pkg", "/home/alice"
	cases := []struct {
		pattern, path string
		allow, deny   bool
	}{
		// "//path": absolute from the file-system root.
		{"//Users/alice/secrets/**", "/Users/alice/secrets/key", true, true},
		{"//Users/alice/secrets/**", "/proj/Users/alice/secrets/key", false, false},
		{"//tmp/scratch.txt", "/tmp/scratch.txt", true, true},
		{"//tmp/scratch.txt", "/tmp/other.txt", false, false},
		// "~/path": from the home directory.
		{"~/Documents/*.pdf", "/home/alice/Documents/a.pdf", true, true},
		{"~/Documents/*.pdf", "/home/alice/Documents/sub/a.pdf", false, false},
		{"~/.zshrc", "/home/alice/.zshrc", true, true},
		{"~/.zshrc", "/proj/.zshrc", false, false},
		// "/path": from the project root, not absolute...
		{"/src/**/*.ts", "/proj/src/a/b.ts", true, true},
		{"/src/**/*.ts", "/proj/pkg/src/b.ts", false, false},
		{"/docs/**", "/proj/docs/a.md", true, true},
		{"/docs/**", "/proj/.claude/docs/a.md", false, false},
		// ...but someone may have meant it absolute: deny reads it so too.
		{"/docs/**", "/docs/a.md", false, true},
		{"/etc/passwd", "/etc/passwd", false, true},
		// "path" and "./path": from the current directory.
		{"*.env", "/proj/pkg/a.env", true, true},
		{"src/**", "/proj/pkg/src/x/y.go", true, true},
		{"src/**", "/proj/src/y.go", false, false},
		{"./.env", "/proj/pkg/.env", true, true},
		// gitignore: a pattern without "/" inside matches at any depth; the
		// documentation's table reads it at the cwd only.
		{"*.env", "/proj/pkg/sub/a.env", false, true},
		{".env", "/proj/pkg/deep/er/.env", false, true},
		{"./.env", "/proj/pkg/sub/.env", false, true},
		{".env", "/proj/.env", false, false}, // above the cwd: never
		{"*.pem", "/proj/pkg/keys/server.pem", false, true},
		// "*" stays in a segment, "**" crosses; but what "src/*" names may
		// be a directory, whose contents a deny rule covers (gitignore).
		{"src/*", "/proj/pkg/src/a/b", false, true},
		{"src/*.go", "/proj/pkg/src/a/b.go", false, false},
		{"src/*", "/proj/pkg/src/a", true, true},
		// A trailing "/" names a directory and what is below it.
		{"build/", "/proj/pkg/build/out.o", true, true},
		{"build/", "/proj/pkg/x/build/out.o", false, true},
		// A pattern naming a directory also covers what is below it (deny).
		{"secrets", "/proj/pkg/secrets/key", false, true},
		{"//etc", "/etc/shadow", false, true},
		// "**/x": below the cwd in gitignore, anywhere in deny.
		{"**/.env", "/proj/pkg/a/.env", true, true},
		{"**/.env", "/elsewhere/.env", false, true},
		// Braces are literal in gitignore.
		{"{a,b}.txt", "/proj/pkg/a.txt", false, true},
		{"{a,b}.txt", "/proj/pkg/{a,b}.txt", true, true},
	}
	for _, c := range cases {
		r := ClaudeReadings(c.pattern, project, true)
		for _, x := range []struct {
			name     string
			patterns []string
			mode     Mode
			want     bool
		}{{"allow", r.Narrow, ModeAll, c.allow}, {"deny", r.Wide, ModeAny, c.deny}} {
			i, err := MatchPaths(x.patterns, []string{c.path}, MatchOptions{Cwd: cwd, Home: home, Mode: x.mode})
			if err != nil {
				t.Fatalf("%q: %v", c.pattern, err)
			}
			if (i >= 0) != x.want {
				t.Errorf("%s rule %q (%v) on %q: hit %v, want %v", x.name, c.pattern, x.patterns, c.path, i >= 0, x.want)
			}
		}
	}
}

// Where the project is not known, the cwd stands in; a rule that is not
// the project's own (user, managed, command-line settings) is also read
// from the cwd by deny rules.
func TestClaudeReadingsProject(t *testing.T) {
	cases := []struct {
		pattern, project string
		own              bool
		narrow, wide     []string
	}{
		{"/src/**", "/proj", true, []string{"/proj/src/**"}, []string{"/proj/src/**", "/src/**"}},
		{"/src/**", "/proj", false, []string{"/proj/src/**"}, []string{"/proj/src/**", "/src/**", "./src/**"}},
		{"/src/**", "", false, []string{"./src/**"}, []string{"./src/**", "/src/**"}},
		{"/src/*.ts", "/proj", true, []string{"/proj/src/*.ts"}, []string{"/proj/src/*.ts/**", "/src/*.ts/**"}},
		{"/my[x]", "/p[1]", true, []string{`/p\[1\]/my[x]`}, []string{`/p\[1\]/my[x]/**`, "/my[x]/**"}},
		{"//", "", true, []string{"/**"}, []string{"/**"}},
		{"~", "", true, []string{"~"}, []string{"~/**"}},
		{"~/", "", true, []string{"~/**"}, []string{"~/**"}},
		{"./", "", true, []string{"./**"}, []string{"./**"}},
	}
	for _, c := range cases {
		r := ClaudeReadings(c.pattern, c.project, c.own)
		if !slices.Equal(r.Narrow, c.narrow) || !slices.Equal(r.Wide, c.wide) {
			t.Errorf("ClaudeReadings(%q, %q, %v) = %q / %q, want %q / %q", c.pattern, c.project, c.own, r.Narrow, r.Wide, c.narrow, c.wide)
		}
		for _, p := range append(r.Narrow, r.Wide...) {
			if _, err := CompileRule(p, "/cwd", "/home/u"); err != nil {
				t.Errorf("%q: %v", p, err)
			}
		}
	}
}
