package flagspec

import (
	"strings"
	"testing"
)

// Issue 26 (recall, vocabulary): a writer's lone --help or --version, sort's
// obsolete keys and fc -l are read-only; every other shape of them is not.
func TestHelpOnlyObsoleteKeysAndFc(t *testing.T) {
	t.Parallel()
	readOnly := []string{
		"split --help", "split --version", "csplit --help", "rm --help", "touch --version", "dd --help", "tee --help",
		"sort +1 -2 file1", "sort +0 -1 file2", "sort +1.2b -2n f", "sort -r +1 -2 +3 -4 f",
		"fc -l", "fc -ln", "fc -lnr 1 5", "fc -l -10",
	}
	notReadOnly := []string{
		// --help among other words: the program may act on them first.
		"split --help x", "split x --help", "rm -rf x --help", "rm --help --version", "tee --help f",
		"dd if=x of=y --help", "split --hel", "mkdir -- --help",
		// A -POS2 that does not follow a +POS1 is an invalid option, and
		// the key end never hides an output file.
		"sort -2 f", "sort +1 -2 -o out f", "sort +1 -o out -2 f", "sort +1 -2x f", "sort +1 --compress-program=sh f",
		// fc without -l edits entries and runs them; -s and -e run them.
		"fc", "fc -n", "fc -nr", "fc -s", "fc -l -e vi", "fc -e vi", "fc -s ls=rm",
	}
	for _, c := range readOnly {
		if v := Judge(strings.Fields(c)); !v.ReadOnly {
			t.Errorf("%q: not read-only (%s)", c, v.Reason)
		}
	}
	for _, c := range notReadOnly {
		if v := Judge(strings.Fields(c)); v.ReadOnly {
			t.Errorf("%q: judged read-only", c)
		}
	}
	if v := Judge(strings.Fields("sort +1 -2 file1")); len(v.Reads) != 2 || v.Reads[0] != "+1" {
		t.Errorf("sort +1 -2 file1: reads %q, want +1 (a file when it is no key) and file1", v.Reads)
	}
}
