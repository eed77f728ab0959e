package hookproto

import (
	"reflect"
	"strings"
	"testing"
)

// TestParsePatchFollowsCodex: the readings of Codex's apply_patch parser on
// inputs of its own tests (padding around markers, an update's first change
// without @@, an update followed by another hunk, a move) and the shapes it
// refuses.
func TestParsePatchFollowsCodex(t *testing.T) {
	t.Parallel()
	ok := []struct {
		patch string
		want  []patchCall
	}{
		{"*** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch", []patchCall{{"Write", "foo"}}},
		{"*** Begin Patch\n*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123\n*** End Patch",
			[]patchCall{{"Write", "path/add.py"}, {"Edit", "path/delete.py"}, {"Edit", "path/update.py"}, {"Write", "path/update2.py"}}},
		{"*** Begin Patch\n*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content\n*** End Patch", []patchCall{{"Edit", "file.py"}, {"Write", "other.py"}}},
		{"*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch", []patchCall{{"Edit", "file2.py"}}},
		{"*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End of File\n\n@@ ctx\n-z\n*** End Patch", []patchCall{{"Edit", "a"}}},
		{"*** Begin Patch\n*** Add File: empty\n*** End Patch", []patchCall{{"Write", "empty"}}},
		{"<<\"EOF\"\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF", []patchCall{{"Edit", "x"}}},
		// The header is trimmed, the path keeps inner spacing as written.
		{"*** Begin Patch\n\t *** Add File:  spaced \n+x\n*** End Patch", []patchCall{{"Write", " spaced"}}},
		// An indented Move to is no move for Codex: a context line.
		{"*** Begin Patch\n*** Update File: a\n  *** Move to: b\n+x\n*** End Patch", []patchCall{{"Edit", "a"}}},
	}
	for _, c := range ok {
		got, err := parsePatch(c.patch)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v %v, want %v", c.patch, got, err, c.want)
		}
	}
	bad := []struct{ patch, say string }{
		{"bad", "first line"},
		{"*** Begin Patch\nbad", "first line"},
		{"*** Begin Patch\n*** Update File: test.py\n*** End Patch", "line 2"},
		{"*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch", "line 4"},
		{"*** Begin Patch\n*** Update File: a\n@@\n*** Add File: b\n*** End Patch", "line 4"},
		{"*** Begin Patch\n*** Update File: a\n@@\n-x\nstray\n*** End Patch", "line 5"},
		{"*** Begin Patch\n*** Add File:\n*** End Patch", "line 2"},
		{"*** Begin Patch\n*** End Patch\n*** Add File: x\n+x\n*** End Patch", "line 2"},
		{"<<'EOF'\n*** Begin Patch\n*** End Patch\nEOF2", "first line"},
		{"<<'EOF' \n*** Begin Patch\n*** Add File: x\n*** End Patch\nEOF", "first line"},
	}
	for _, c := range bad {
		if got, err := parsePatch(c.patch); err == nil || !strings.Contains(err.Error(), c.say) {
			t.Errorf("%q: %v %v, want an error saying %q", c.patch, got, err, c.say)
		}
	}
}

// The defence in depth: a header-like line Codex reads as content is
// decided too; ~ and absolute paths are kept for the policy.
func TestPatchCallsCheckHeaderLikeLines(t *testing.T) {
	t.Parallel()
	got, err := patchCalls("*** Begin Patch\n*** Update File: a\n  *** Move to: ~/.bashrc\n+x\n*** Delete File: /etc/hosts\n*** End Patch", "/w")
	want := []patchCall{{"Edit", "/w/a"}, {"Edit", "/etc/hosts"}, {"Write", "~/.bashrc"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%v %v, want %v", got, err, want)
	}
}
