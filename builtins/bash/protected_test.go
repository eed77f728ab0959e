package bash

import (
	"slices"
	"testing"
)

// A write whose place is not known but whose spelling names protected
// settings is the dangerous pattern protected-write (links.go).
func TestUnplacedProtectedWrites(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd string
		hit bool
	}{
		{"eval x; echo y > .permopa/settings.yaml", true},
		{"cd \"$D\"; echo y >> .claude/settings.local.json", true},
		{"echo x > \"$H/.claude.json\"", true},
		{"cd \"$D\" && cp a .mcp.json", true},
		{"cd \"$D\" && vim .codex/config.toml", true},
		{"cd \"$D\" && sed -i s/a/b/ .gemini/settings.json", true},
		{"cd \"$D\"; echo y > .permopa/settings.y*", true},
		{"echo y > \"$f\"", false},
		{"cd \"$D\" && echo y > notes.txt", false},
		{"echo y > .permopa/settings.yaml", false}, // placed: the path checks see it
	} {
		a := analyze(c.cmd, conformanceOpts)
		got := slices.ContainsFunc(a.Dangerous, func(h Hit) bool { return h.Pattern == "protected-write" })
		if got != c.hit {
			t.Errorf("%q: protected-write %v, want %v (%v)", c.cmd, got, c.hit, a.Dangerous)
		}
	}
}
