package flagspec

import "testing"

// TestDynamicWordsHarmless: a word only known at run time is harmless
// only where nothing it can be (an option of the program, "--", no word,
// two words) changes what the call does (issue 26, docs/shell.md).
func TestDynamicWordsHarmless(t *testing.T) {
	x := Dynamic
	cases := []struct {
		argv   []string
		splits bool
		want   bool
	}{
		{[]string{"dirname", x}, true, true},
		{[]string{"basename", "--", x}, false, true},
		{[]string{"groups", x}, true, true},
		{[]string{"seq", "1", x}, true, true},
		{[]string{"printf", "%0.s-", x}, true, true},
		{[]string{"mktemp", "-u", x}, true, true},
		{[]string{"mktemp", "--dry-run", x}, false, true},
		{[]string{"mktemp", "-u", "-t", x}, true, true},
		// An option the word can be writes, reads, assigns or runs.
		{[]string{"mktemp", x}, true, false},       // creates the file
		{[]string{"mktemp", x, "-u"}, true, false}, // -p takes -u as its value; -- makes -u the template
		{[]string{"mktemp", x, "-u"}, false, false},
		{[]string{"printf", x}, false, false}, // -v assigns a variable
		{[]string{"date", x}, true, false},    // -s sets the clock, -f reads a file
		{[]string{"sort", x}, false, false},   // -o writes
		{[]string{"head", "-n", x, "f"}, true, false},
		{[]string{"wc", "-l", x}, true, false},
		{[]string{"cat", x}, false, false},
		{[]string{"grep", x, "f"}, false, false},
		{[]string{"git", "log", x}, false, false}, // subcommands: not tried
		{[]string{"uname", x}, true, false},       // not complete
	}
	for _, c := range cases {
		var at []int
		for i, a := range c.argv {
			if a == x {
				at = append(at, i)
			}
		}
		splits := make([]bool, len(at))
		for i := range splits {
			splits[i] = c.splits
		}
		if _, got := DynamicWordsHarmless(c.argv, at, splits); got != c.want {
			t.Errorf("%q: harmless = %v, want %v", c.argv, got, c.want)
		}
	}
}
