package engine_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// Checks of the analysis read names from the file system at decision
// time (docs/shell.md, "Values and where they come from"), among them: that no
// name below find's starting points splits in plain xargs (find -print |
// xargs CMD), that no name a glob starting point matches is an option
// (find * -maxdepth 0), and that a glob in find's expression matches
// nothing (find . -newer *Q, then the glob as written). A part of the same
// command that runs first, or at the same time, may create the names that
// change the answer: mkdir "src/a -o/outside" makes xargs hand sort
// -o/outside, a file named -delete makes find * or -newer *Q delete the
// project. Each hostile command below was ALLOWed in acceptEdits ("only
// edits inside the working directories"); run for real, it writes outside
// the project or deletes it. The controls stay allowed: writes that create
// only names none of the checks could object to.
func TestNamesReadAtDecisionTimeAndWritesBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	proj, home, out := filepath.Join(root, "p"), filepath.Join(root, "home"), filepath.Join(root, "out")
	for _, d := range []string{proj + "/src", proj + "/e", home, out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(proj+"/src/a.txt", []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The project ships a link out of itself; find -fprint opens it.
	if err := os.Symlink(out+"/victim", proj+"/e/0zz"); err != nil {
		t.Fatal(err)
	}
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: proj}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd, mode string) permission.Decision {
		return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"permission_mode": mode, "cwd": proj, "shell_per_call": true})
	}
	victim := out + "/victim"
	hostile := []struct {
		cmd  string
		bite string // what the real command does
		kind string // the mechanism, for quickFirst
	}{
		// find -print | xargs: a name with a blank, created first.
		{`echo pwned > src/a; mkdir -p "src/a -o` + victim + `"; find src -path "*victim" | xargs sort`, "writes", "xargs"},
		{`echo pwned > src/a && mkdir -p "src/a -o` + victim + `" && find src -type d -name victim | xargs sort`, "writes", "xargs"},
		{`echo pwned > src/a; mkdir -p "src/a -o` + victim + `" | find src -type d -name victim | xargs sort`, "", ""},
		{`(sleep 1; find src -type d -name victim | xargs sort) & echo pwned > src/a; mkdir -p "src/a -o` + victim + `"; wait`, "writes", "xargs"},
		{`mkdir -p "src/b --files0-from=src/a.txt"; find src -name "b*" | xargs wc`, "", ""},
		// find * : a name that is a primary (find -fprint 0zz).
		{`cd e && touch ./-fprint && find * -maxdepth 0`, "writes", "find-star"},
		{`touch ./-fprint; find * -maxdepth 0`, "", ""},
		{`touch ./-delete; find * -maxdepth 0`, "", ""},
		// A glob in the expression that matches nothing now: find . -newer
		// +te -delete.
		{`touch -d 2000-01-01 ./+te && touch ./-delete && find . -newer *te`, "deletes", "newer-glob"},
		{`cd e && touch -d 2000-01-01 ./+te ./-delete && find . -newer *te`, "deletes", "newer-glob"},
		{`echo x > ./-delete && touch -d 2000-01-01 ./+te && find . -newer *te`, "deletes", "newer-glob"},
		{`ln -s /etc/passwd src/l && find -L src | xargs cat`, "", ""},
		// find -exec sh -c pastes each path into the script's text: a
		// name that plain xargs would take whole is code there (issue
		// 26, pastescript.go).
		{`touch 'src/a;cd${IFS}e;echo${IFS}pwned>0zz'; find src -exec sh -c 'echo {}' \;`, "writes", "paste"},
		{`touch 'src/a;cd${IFS}e;echo${IFS}pwned>0zz'; find src -print0 | xargs -0 -I{} sh -c 'echo {}'`, "writes", "paste"},
	}
	for _, c := range hostile {
		if d := decide(c.cmd, "acceptEdits"); d.Behavior == permission.Allow {
			t.Errorf("%q in acceptEdits: ALLOW at %s (%s)", c.cmd, d.Step, d.Message)
		}
	}
	for _, c := range []struct{ cmd, mode string }{
		{`find src | xargs sort`, "plan"},
		{`find * -maxdepth 0`, "plan"},
		{`cd e && find . -newer *te`, "plan"},
		{`touch src/b.txt; find src | xargs sort`, "acceptEdits"},
		{`mkdir -p src/c/d && find src -type f | xargs wc -l > counts.txt`, "acceptEdits"},
		{`touch ./+te; find * -maxdepth 0`, "acceptEdits"},
		{`rm -f src/old.txt; find src -name "*.txt" | xargs grep -l hi`, "acceptEdits"},
		{`touch src/b-1.txt; find src -exec sh -c 'cat {}' \;`, "acceptEdits"},
		{`find src -type f -exec sh -c 'echo {}; wc -l {}' \;`, "plan"},
	} {
		if d := decide(c.cmd, c.mode); d.Behavior != permission.Allow {
			t.Errorf("control %q in %s: %s at %s (%s), want ALLOW", c.cmd, c.mode, d.Behavior, d.Step, d.Message)
		}
	}

	// The bites are real: each hostile command run by bash in a copy of
	// the project writes the file outside it or deletes the project's.
	for _, p := range []string{"bash", "find", "xargs", "sort", "touch"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip(p + " not installed: the bites are not run")
		}
	}
	// The first bite of each mechanism runs in the quick suite, every one
	// with -tags slow (.ci/run). The background xargs (a sleep) and the
	// xargs -I sh -c bites are the same real programs as the first "xargs"
	// and "paste" bites, which stay quick; every row is decided quick above.
	bites := quickFirst{}
	for _, c := range hostile {
		if c.bite == "" || !bites.take(c.kind) {
			continue
		}
		run := filepath.Join(t.TempDir(), "p")
		for _, d := range []string{run + "/src", run + "/e"} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(run+"/src/a.txt", []byte("hi\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(run+"/keep", []byte("keep\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(victim, []byte("original\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, run+"/e/0zz"); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "-c", c.cmd)
		cmd.Dir = run
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		_ = cmd.Run() // find and sort may complain about the other names
		got, _ := os.ReadFile(victim)
		switch c.bite {
		case "writes":
			if string(got) == "original\n" {
				t.Errorf("%q run for real: %s unchanged; the case does not bite", c.cmd, victim)
			}
		case "deletes":
			_, e1 := os.Stat(run + "/keep")
			_, e2 := os.Lstat(run + "/e/0zz")
			if e1 == nil && e2 == nil {
				t.Errorf("%q run for real: nothing deleted; the case does not bite", c.cmd)
			}
		}
	}
}

// TestNamesReadAtDecisionTimeReasonNamesTheName holds that the answer's
// message and the read-only point of an explanation name the name read at
// decision time that failed (docs/shell.md, "Values and where they come
// from"), not only that names are read then (issue 26): the NL2Bash
// command refused because of "my file.txt", and an xargs beside a FIFO.
func TestNamesReadAtDecisionTimeReasonNamesTheName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	proj, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(proj, "my file.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(proj, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(sub, "pipe"), 0o644); err != nil {
		t.Skip("no FIFO:", err)
	}
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: proj}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cmd, name, why string }{
		{`find . -exec sh -c 'echo {} | grep -qi /path/to/something' \; -print`, `"my file.txt"`, "shell syntax"},
		{`find sub | xargs sort`, `"pipe"`, "FIFO"},
	} {
		in := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": c.cmd},
			"permission_mode": "plan", "cwd": proj}
		d := eng.Decide(ctx, in)
		if d.Behavior == permission.Allow {
			t.Fatalf("%q: ALLOW, want a refusal", c.cmd)
		}
		ex, err := eng.Evaluate(ctx, "data.permopa.policy.explanation", in)
		if err != nil {
			t.Fatal(err)
		}
		text := d.Message + "\n" + fmt.Sprint(ex)
		if !strings.Contains(text, c.name) || !strings.Contains(text, c.why) {
			t.Errorf("%q: %s at %s; answer and explanation name no %s (%s): %s", c.cmd, d.Behavior, d.Step, c.name, c.why, text)
		}
		if strings.Contains(text, "this command may create others") {
			t.Errorf("%q: the reason hides the name: %s", c.cmd, text)
		}
	}
}
