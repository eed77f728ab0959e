package paths

import "testing"

// AgentScope matches Read, Write and Edit rules with Python's fnmatch:
// "*" crosses "/", no normalisation, case-sensitive. The rows are the
// examples AgentScope's behaviour was recorded with, plus Python's own
// corner cases.
func TestFnmatch(t *testing.T) {
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{"*.py", "test.py", true},
		{"*.py", "/abs/dir/test.py", true},
		{"*.py", "dir/sub/test.py", true},
		{"src/**", "src/a/b/c.py", true},
		{"src/**", "/repo/src/main.py", false},
		{"/tmp/**", "/tmp/a", true},
		{"/tmp/**", "/tmp/sub/a", true},
		{"/tmp/**", "/tmpx/a", false},
		{"/tmp/*", "/tmp/sub/a", true},
		{"**/*.env", "/tmp/secret.env", true},
		{"**/*.env", "secret.env", false},
		{"/tmp/project/**", "/tmp/project/../etc/passwd", true},
		{"*.PY", "test.py", false},
		{"[ab].txt", "a.txt", true},
		{"[!ab].txt", "a.txt", false},
		{"[!ab].txt", "c.txt", true},
		{"?.txt", "ab.txt", false},
		{"?.txt", "é.txt", true},
		{"**", "anything/at/all", true},
		{"*", "", true},
		{"[", "[", true},
		{"a[", "a[", true},
		{"[]]", "]", true},
		{"[a-c]x", "bx", true},
		{"[c-a]x", "bx", false},
		{`a\*`, `a\b`, true}, // no escapes: "\" is literal
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYbZ", false},
		{"*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
	}
	for _, c := range cases {
		f, err := compileFnmatch(c.pattern, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.match(c.s); got != c.want {
			t.Errorf("fnmatch(%q, %q) = %v, want %v", c.s, c.pattern, got, c.want)
		}
	}
}

// An fnmatch rule is matched as AgentScope matches it, against the path as
// the call wrote it; a deny or ask rule also hits the path resolved
// (absolute, relative to the cwd, through symlinks and other roads), an
// allow rule covers only when every form, written the way the call wrote
// it, matches.
func TestFnmatchRules(t *testing.T) {
	root := tempRoot(t)
	proj := root + "/proj"
	mkdirs(t, proj+"/src", root+"/etc")
	symlink(t, root+"/etc", proj+"/src/out")
	cases := []struct {
		pattern, path string
		mode          Mode
		want          bool
	}{
		{"*.py", "test.py", ModeAny, true},
		{"*.py", "test.py", ModeAll, true},
		{"src/**", "src/a.py", ModeAll, true},
		{"src/**", "src/a.py", ModeAny, true},
		// Deny: the relative rule also hits the absolute spelling.
		{"src/**", proj + "/src/a.py", ModeAny, true},
		// Allow: an absolute spelling of a file the relative rule names.
		{"src/**", proj + "/src/a.py", ModeAll, true},
		{"src/**", proj + "/lib/a.py", ModeAll, false},
		// Allow: a relative spelling of a file the absolute rule names.
		{proj + "/src/*", "src/a.py", ModeAll, true},
		{proj + "/src/*", "lib/a.py", ModeAll, false},
		// Deny: the absolute rule hits a relative spelling.
		{proj + "/src/*", "src/a.py", ModeAny, true},
		// Traversal: AgentScope allows it; permopa's allow does not, and
		// a deny rule on the target hits.
		{"/tmp/project/**", "/tmp/project/../etc/passwd", ModeAll, false},
		{"/etc/*", "/tmp/project/../../etc/passwd", ModeAny, true},
		// A symlink inside the allowed directory pointing out.
		{"src/**", "src/out/x", ModeAll, false},
		{root + "/etc/*", "src/out/x", ModeAny, true},
		// Other roads.
		{"/etc/*", "/proc/1/root/etc/shadow", ModeAny, true},
		{"/etc/*", "/proc/self/root/etc/shadow", ModeAny, true},
		{"*.PY", "test.py", ModeAny, false},
	}
	for _, c := range cases {
		i, err := MatchPaths([]string{FnmatchPrefix + c.pattern}, []string{c.path}, MatchOptions{Cwd: proj, Home: root, Mode: c.mode})
		if err != nil || (i == 0) != c.want {
			t.Errorf("fnmatch %q on %q (%v) = %d %v, want hit %v", c.pattern, c.path, c.mode, i, err, c.want)
		}
	}
}

// Deny rules read an AgentScope pattern more widely than AgentScope does:
// the directory itself, "./" spellings, and "~" at the home directory.
func TestFnmatchDenyReadings(t *testing.T) {
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"/w/secret/**", "/w/secret", true},
		{"./prod.cfg", "prod.cfg", true},
		{"./prod.cfg", "/w/prod.cfg", true},
		{"~/secrets/**", "/h/secrets/token", true},
		{"~/secrets/**", "~/secrets/token", true},
		{"~", "/h", true},
		{"~/secrets/**", "/w/~/secrets/x", true}, // the raw spelling "~" is literal here
	}
	for _, c := range cases {
		i, err := MatchPaths([]string{FnmatchPrefix + c.pattern}, []string{c.path}, MatchOptions{Cwd: "/w", Home: "/h", Mode: ModeAny})
		if err != nil || (i == 0) != c.want {
			t.Errorf("deny fnmatch %q on %q = %d %v, want hit %v", c.pattern, c.path, i, err, c.want)
		}
	}
	// Allow rules cover the files the pattern names: "~" is the home (the
	// tools expand it), but no spelling carries it elsewhere.
	for _, c := range []struct {
		path string
		want bool
	}{{"/h/notes/a", true}, {"~/notes/a", true}, {"~/notes/../../etc/x", false}, {"/w/notes/a", false}} {
		i, _ := MatchPaths([]string{FnmatchPrefix + "~/notes/*"}, []string{c.path}, MatchOptions{Cwd: "/w", Home: "/h", Mode: ModeAll})
		if (i == 0) != c.want {
			t.Errorf("allow fnmatch ~/notes/* on %q: %d, want cover %v", c.path, i, c.want)
		}
	}
}

// An accepted AgentScope rule is written to a settings file as the Claude
// Code pattern that covers the same files, when there is one.
func TestFnmatchToClaude(t *testing.T) {
	cases := []struct {
		in, out string
		ok      bool
	}{
		{"/repo/src/**", "//repo/src/**", true},
		{"/repo/src/*", "//repo/src/**", true},
		{"/repo/a.go", "//repo/a.go", true},
		{"/**", "//**", true},
		{"**", "//**", true},
		{"~/notes/**", "~/notes/**", true},
		{"lib/util.go", "./lib/util.go", true},
		{"../x/**", "../x/**", true},
		{"*.py", "", false},
		{"/repo/*/x", "", false},
		{"/repo/[ab]/**", "", false},
		{"/a/{b}/**", "", false},
		{"~user/x", "", false},
	}
	for _, c := range cases {
		out, ok := FnmatchToClaude(c.in)
		if out != c.out || ok != c.ok {
			t.Errorf("FnmatchToClaude(%q) = %q %v, want %q %v", c.in, out, ok, c.out, c.ok)
			continue
		}
		if !ok {
			continue
		}
		// Both readings cover the same paths.
		for _, p := range []string{"/repo/src/a/b.go", "/repo/a.go", "/w/lib/util.go", "/h/notes/x", "/elsewhere"} {
			f, _ := MatchPaths([]string{FnmatchPrefix + c.in}, []string{p}, MatchOptions{Cwd: "/w", Home: "/h", Mode: ModeAll})
			r := ClaudeReadings(out, "/w", true)
			g, _ := MatchPaths(r.Narrow, []string{p}, MatchOptions{Cwd: "/w", Home: "/h", Mode: ModeAll})
			if (f >= 0) != (g >= 0) && c.in[0] == '/' {
				t.Errorf("%q on %q: fnmatch %v, Claude %q %v", c.in, p, f >= 0, out, g >= 0)
			}
		}
	}
}
