package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// A working directory reached through a symlink is the same directory
// (/L → /R, as /tmp is /private/tmp on macOS): edits spelled either way are
// inside it, whichever spelling the host gave as the cwd, in ACCEPT_EDITS
// and DONT_ASK, through Bash and the file tools. A link inside it that
// points out, or ".." after a link, stays outside.
func TestSymlinkedWorkingDirectory(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(root, "R")
	link := filepath.Join(root, "L")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(real, "src"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(real, "out")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: filepath.Join(root, "home"), Cwd: real}))
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		cwd, tool string
		input     map[string]any
		want      string
	}
	bash := func(c string) map[string]any { return map[string]any{"command": c} }
	write := func(p string) map[string]any { return map[string]any{"file_path": p, "content": "x"} }
	var cases []call
	for _, cwd := range []string{real, link} {
		cases = append(cases,
			call{cwd, "Bash", bash("touch " + link + "/src/a.go"), "ALLOW"},
			call{cwd, "Bash", bash("touch " + real + "/src/a.go"), "ALLOW"},
			call{cwd, "Bash", bash("mkdir -p " + link + "/build && touch " + link + "/build/x"), "ALLOW"},
			call{cwd, "Bash", bash("echo x > " + link + "/notes.txt"), "ALLOW"},
			call{cwd, "Write", write(link + "/src/b.go"), "ALLOW"},
			call{cwd, "Write", write(real + "/src/b.go"), "ALLOW"},
			call{cwd, "Edit", map[string]any{"file_path": link + "/src/a.go", "old_string": "a", "new_string": "b"}, "ALLOW"},
			// what the kernel reaches is outside
			call{cwd, "Bash", bash("touch " + link + "/out/x"), "not ALLOW"},
			call{cwd, "Write", write(link + "/out/x"), "not ALLOW"},
			call{cwd, "Bash", bash("touch " + link + "/../outside/x"), "not ALLOW"},
			call{cwd, "Write", write(outside + "/x"), "not ALLOW"},
		)
	}
	for _, mode := range []string{"acceptEdits", "dontAsk"} {
		for _, c := range cases {
			d := eng.Decide(ctx, map[string]any{"tool_name": c.tool, "tool_input": c.input, "cwd": c.cwd, "permission_mode": mode})
			ok := string(d.Behavior) == "ALLOW"
			if ok != (c.want == "ALLOW") {
				t.Errorf("%s, cwd %s, %s %v: %s at %s (%s), want %s", mode, c.cwd, c.tool, c.input, d.Behavior, d.Step, d.Message, c.want)
			}
		}
	}
}
