package main

import (
	"bytes"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestOwnCommandTreeHelpsAsTheWholeTree: a command line that runs one of
// permopa's own commands builds no OPA command (runsOwnCommand), and each
// of them, subcommands included, has the help and flags it has in the whole
// tree; OPA's commands, help, completion, flags first and an unknown
// command build the whole tree.
func TestOwnCommandTreeHelpsAsTheWholeTree(t *testing.T) {
	p := procEnv{Environ: os.Environ()}
	whole := newRootCommand(nil, strings.NewReader(""), io.Discard, io.Discard, p)
	if c, _, err := whole.Find([]string{"run"}); err != nil || c.Name() != "run" {
		t.Fatalf("the whole tree has no run command: %v", err)
	}
	var own []string
	for _, c := range whole.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if _, _, err := newRootCommand([]string{c.Name()}, nil, io.Discard, io.Discard, p).Find([]string{"run"}); err == nil {
			continue // an OPA command: the whole tree
		}
		own = append(own, c.Name())
	}
	for _, want := range []string{"decide", "hook", "explain", "rules", "bash", "version"} {
		if !strings.Contains(" "+strings.Join(own, " ")+" ", " "+want+" ") {
			t.Errorf("%s builds the whole tree (own: %v)", want, own)
		}
	}
	if len(own) < 13 {
		t.Errorf("own commands %v: want permopa's 13", own)
	}
	var helps func(c *cobra.Command, path []string) map[string]string
	helps = func(c *cobra.Command, path []string) map[string]string {
		out := map[string]string{}
		var b bytes.Buffer
		c.SetOut(&b)
		c.SetErr(&b)
		if err := c.Help(); err != nil {
			t.Fatal(err)
		}
		out[strings.Join(path, " ")] = b.String()
		for _, sub := range c.Commands() {
			for k, v := range helps(sub, append(path, sub.Name())) {
				out[k] = v
			}
		}
		return out
	}
	for _, name := range own {
		pruned := newRootCommand([]string{name, "--help"}, nil, io.Discard, io.Discard, p)
		if _, _, err := pruned.Find([]string{"run"}); err == nil {
			t.Errorf("%s: OPA's commands built", name)
		}
		pc, _, err := pruned.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		wc, _, _ := whole.Find([]string{name})
		got, want := helps(pc, []string{name}), helps(wc, []string{name})
		if len(got) != len(want) {
			t.Errorf("%s: %d commands, want %d", name, len(got), len(want))
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("permopa %s --help differs from the whole tree's:\n%s\nwant:\n%s", k, got[k], w)
			}
		}
	}
	for _, args := range [][]string{{"run"}, {"check"}, {"help", "hook"}, {"--help"}, {"completion", "bash"}, {"hookx"}, {"-h", "hook"}} {
		if _, _, err := newRootCommand(args, nil, io.Discard, io.Discard, p).Find([]string{"eval"}); err != nil {
			t.Errorf("%q: OPA's commands not built: %v", args, err)
		}
	}
}

// TestColdGCOnlyInItsOwnProcess: the collector's percent is the
// process's, so a command run in process (the tests' procEnv) leaves it
// alone; the process's own command raises it to coldGCPercent and restore
// puts back the percent before, once, after the first write.
func TestColdGCOnlyInItsOwnProcess(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: coldGC changes nothing")
	}
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	percent := func() int { v := debug.SetGCPercent(-1); debug.SetGCPercent(v); return v }

	procEnv{Environ: os.Environ()}.coldGC()()
	procEnv{Dir: t.TempDir()}.coldGC()()
	if got := percent(); got != 100 {
		t.Fatalf("a command in process set the GC percent to %d", got)
	}
	restore := procEnv{}.coldGC()
	if got := percent(); got != coldGCPercent {
		t.Fatalf("the process's own command: GC percent %d, want %d", got, coldGCPercent)
	}
	var b bytes.Buffer
	w := afterFirstWrite{&b, restore}
	if got := percent(); got != coldGCPercent {
		t.Fatalf("before the first write: GC percent %d, want %d", got, coldGCPercent)
	}
	w.Write([]byte("answer\n"))
	if got := percent(); got != 100 {
		t.Fatalf("after the first write: GC percent %d, want 100", got)
	}
	debug.SetGCPercent(50)
	w.Write([]byte("answer\n")) // restore acts once
	if got := percent(); got != 50 || b.String() != "answer\nanswer\n" {
		t.Fatalf("second write: GC percent %d (want 50, left alone), output %q", got, b.String())
	}
}

// TestHelpProofreadWhenPrinted: proofread runs only when a help or usage
// text is printed (proofreadOnHelp), and every way of printing one (--help,
// the help command, a usage text, completion's descriptions) prints the
// proofread text; TestHelpProofread (-tags slow) reads every command's.
func TestHelpProofreadWhenPrinted(t *testing.T) {
	p := procEnv{Environ: os.Environ()}
	for _, args := range [][]string{{"build", "--help"}, {"help", "build"}, {"-h"}} {
		var out bytes.Buffer
		root := newRootCommand(args, nil, &out, &out, p)
		if c, _, _ := root.Find([]string{"build"}); c.Short != "Build an permopa bundle" {
			t.Errorf("%q: build's help proofread before it is printed: %q", args, c.Short)
		}
		root.SetArgs(args)
		if err := root.Execute(); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if !strings.Contains(out.String(), "a permopa bundle") || strings.Contains(out.String(), "an permopa") {
			t.Errorf("%q prints help not proofread:\n%s", args, out.String())
		}
	}
	var out bytes.Buffer
	root := newRootCommand(nil, nil, &out, &out, p)
	if usage := root.UsageString(); !strings.Contains(usage, "Build a permopa bundle") || strings.Contains(usage, "an permopa") {
		t.Errorf("usage not proofread:\n%s", usage)
	}
	out.Reset()
	args := []string{"__complete", "bu"}
	root = newRootCommand(args, nil, &out, &out, p)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Build a permopa bundle") {
		t.Errorf("completion's descriptions not proofread:\n%s", out.String())
	}
}
