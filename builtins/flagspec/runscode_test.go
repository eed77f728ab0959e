package flagspec

import (
	"slices"
	"testing"
)

// TestCodeRunnersDrift holds the vocabulary to its one table of programs
// that run code (runscode.go): every interpreter, shell and package runner
// is never read-only with any operand, an interpreter says where its command line
// carries code, and every program whose flag spec runs its operands as a
// command (runs, runsString: sudo, flock, ssh) or is a package runner is in
// the table. builtins/bash, settings and replay hold their own lists to the
// same table.
func TestCodeRunnersDrift(t *testing.T) {
	t.Parallel()
	names := CodeRunners()
	if len(names) < 100 || !slices.IsSorted(names) {
		t.Fatalf("CodeRunners: %d names, sorted %v", len(names), slices.IsSorted(names))
	}
	for _, p := range names {
		kind, why := RunsCode(p)
		if kind == NoCode || why == "" {
			t.Errorf("%s: RunsCode says %v %q", p, kind, why)
		}
		if kind != Interpreter && kind != Shell && kind != PackageRunner {
			continue // a wrapper or awk has read-only forms (nice, awk '{print}')
		}
		for _, argv := range [][]string{{p}, {p, "x"}, {p, "-c", "x"}, {p, "-e", "x"}, {p, "x", "y"}} {
			if p == "perl" && len(argv) == 3 && argv[1] == "-e" {
				// A one-liner of the closed subset that only filters
				// text (perl.go; TestPerlOneLiners) is read-only.
				argv[2] = "system(1)"
			}
			if v := Judge(argv); v.ReadOnly {
				t.Errorf("%v is read-only, but %s %s", argv, p, why)
			}
		}
		if kind == PackageRunner {
			continue
		}
		if _, ok := interpreterReason[p]; !ok || !Modelled(p) {
			t.Errorf("%s: an interpreter or shell the vocabulary does not judge as one", p)
		}
		if _, ok := inlineCode[p]; kind == Interpreter && !ok {
			t.Errorf("%s: an interpreter without an inlineCode entry (interp.go): where its command line carries code is not read", p)
		}
	}
	// What a flag spec says runs a command is in the table.
	for p, sp := range registry {
		if sp.runs > 0 || sp.runsString || sp == packageRunner {
			if kind, _ := RunsCode(p); kind == NoCode {
				t.Errorf("%s runs a command (its flag spec says so) but is not in codeRunners", p)
			}
		}
	}
	if kind, _ := RunsCode("ls"); kind != NoCode {
		t.Errorf("ls runs code?")
	}
}

// TestInterpretersInlineCode: the interpreters added to the table run the
// code of their options, stdin or unmodelled forms as code permopa cannot
// read (every deny rule sees it), and their script files as scripts.
func TestInterpretersInlineCode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		argv    []string
		unknown bool
	}{
		{[]string{"nodejs", "-e", "require('child_process').execSync('rm x')"}, true},
		{[]string{"nodejs", "app.js"}, false},
		{[]string{"julia", "-e", "run(`rm x`)"}, true},
		{[]string{"tclsh"}, true},
		{[]string{"tclsh", "x.tcl"}, false},
		{[]string{"java", "-XX:OnError=rm -rf x", "-jar", "a.jar"}, true},
		{[]string{"java", "-jar", "a.jar"}, false},
		{[]string{"pypy3", "-c", "import os; os.system('rm x')"}, true},
		{[]string{"irb"}, true},
		{[]string{"guile", "-c", "(system \"rm x\")"}, true},
		{[]string{"raku", "-e", "run 'rm'"}, true},
		{[]string{"elixir", "-e", "System.cmd(\"rm\", [\"x\"])"}, true},
		{[]string{"elixir", "-S", "mix", "test"}, true},
		{[]string{"erl", "-noshell", "-eval", "os:cmd(\"rm x\")"}, true},
		{[]string{"racket", "-k", "1", "2", "3", "-e", "(system \"rm x\")"}, true},
		{[]string{"swift", "build"}, true},
		{[]string{"csh", "-c", "rm x"}, true},
		{[]string{"tcsh", "-c", "rm x"}, true},
		{[]string{"nu", "-c", "rm x"}, true},
		{[]string{"xonsh", "-c", "rm x"}, true},
		{[]string{"luajit", "-e", "os.execute('rm x')"}, true},
	}
	for _, c := range cases {
		v := Judge(c.argv)
		if v.ReadOnly || (v.RunsUnknown != "") != c.unknown {
			t.Errorf("%q: read-only %v, runs unknown %q; want runs unknown %v", c.argv, v.ReadOnly, v.RunsUnknown, c.unknown)
		}
	}
}
