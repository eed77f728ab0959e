package bash

import "testing"

// Words as bash splits them (issue 23): only space, tab and newline
// separate words; a carriage return, form feed, vertical tab, non-breaking
// or other Unicode space stays inside its word, and a comment ends at its
// line's end even after a backslash. Rules compare words, so a rule for
// "git status" never sees "status\rrm" as "status".

// TestWordsBashDoesNotSplit: allow rules and read-only.
func TestWordsBashDoesNotSplit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd   string
		rules []string
	}{
		{"git status\rrm -rf x", []string{"git status:*", "git status"}},
		{"git status\r\rrm -rf x", []string{"git status:*"}},
		{"git log\r-p", []string{"git log:*", "git log"}},
		{"git status\u00a0rm -rf x", []string{"git status:*"}},
		{"git status\frm -rf x", []string{"git status:*"}},
		{"git status\vrm -rf x", []string{"git status:*"}},
		{"git status\u3000rm", []string{"git status:*"}},
		{"npm test\r&& rm -rf x", []string{"npm test:*", "npm test"}},
		{"ls\r-la", []string{"ls:*"}},
	} {
		a := analyze(c.cmd, conformanceOpts)
		if a.ReadOnly {
			t.Errorf("%q is read-only\n%s", c.cmd, brief(a))
		}
		if _, ok := a.Covered(mustPatterns(t, c.rules...)); ok {
			t.Errorf("%q is covered by %q\n%s", c.cmd, c.rules, brief(a))
		}
	}
	// The words themselves.
	for cmd, want := range map[string][]string{
		"git status\rrm -rf x":     {"git", "status\rrm", "-rf", "x"},
		"git status\r\nrm -rf x":   {"git", "status\r"},
		"echo 'a\r\nb' \"c\r\nd\"": {"echo", "a\r\nb", "c\r\nd"},
		"echo a\\\rb":              {"echo", "a\rb"},
	} {
		a := analyze(cmd, conformanceOpts)
		if len(a.Leaves) == 0 || !equalWords(a.Leaves[0].Argv, want) {
			t.Errorf("%q: words %s, want %q", cmd, brief(a), want)
		}
	}
}

func equalWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCommentsEndAtTheLine: a backslash at the end of a comment does not
// continue the line (bash runs the next line as a command of its own).
func TestCommentsEndAtTheLine(t *testing.T) {
	t.Parallel()
	cmds := []string{
		"echo #c\\\nrm -rf x",
		"echo hi # note \\\nrm -rf x",
		"# c\\\nrm -rf x",
		"echo #a\\\n#b\\\nrm -rf x",
		"ls #\\\nrm -rf x",
		"(echo #c\\\nrm -rf x)",
		"bash -c $'echo #c\\\\\\nrm -rf x'",
		"x=$(echo #c\\\nrm -rf x\n)",
	}
	for _, cmd := range cmds {
		a := analyze(cmd, conformanceOpts)
		if a.ReadOnly {
			t.Errorf("%q is read-only\n%s", cmd, brief(a))
		}
		if a.MatchAny(mustPatterns(t, "rm:*")) != 0 || a.MatchAny(mustPatterns(t, "rm -rf:*")) != 0 {
			t.Errorf("deny rm:* misses %q\n%s", cmd, brief(a))
		}
		if _, ok := a.Covered(mustPatterns(t, "echo:*", "ls:*")); ok {
			t.Errorf("%q is covered by echo:*, ls:*\n%s", cmd, brief(a))
		}
	}
	// Deny and ask rules see "status\rrm" as one word too: no literal hit
	// of "git status" (the exact rule) on it.
	checkDenyTable(t, []ruleCase{
		{"git status", "git status\rrm", false},
		{"git status:*", "git status\rrm", false},
		{"git:*", "git status\rrm", true},
		{"rm:*", "git status\r; rm x", true},
		{"rm:*", "git status\r\nrm x", true},
	})
}
