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
		{"src/**", proj + "/src/a.py", ModeAll, false},
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
