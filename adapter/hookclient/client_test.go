package hookclient

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A hook command line of the host alone (what `permopa install` writes)
// skips the flag package: it must be what the flags give, for every host;
// anything else goes through the flags (a host it does not know blocks).
func TestParseArgsHostOnly(t *testing.T) {
	for _, host := range []string{"claude", "codex", "gemini"} {
		quick, err := parseArgs([]string{host})
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		flags, err := parseFlags([]string{host})
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		if !reflect.DeepEqual(quick, flags) {
			t.Errorf("%s: %+v without the flag package, %+v with it", host, quick, flags)
		}
	}
	for _, args := range [][]string{{"cursor"}, {"-trace"}, {"--server=unix:///x"}, {""}} {
		if c, err := parseArgs(args); err == nil {
			t.Errorf("%q: parsed as %+v, want an error", args, c)
		}
	}
	if c, err := parseArgs([]string{"--trace", "codex"}); err != nil || !c.trace || c.host != "codex" {
		t.Errorf("--trace codex: %+v %v", c, err)
	}
}

// TestMain runs this test binary as permopa-hook's slow path when
// PERMOPA_HOOK_TEST_MAIN is set: the processes below are Main itself.
func TestMain(m *testing.M) {
	if os.Getenv("PERMOPA_HOOK_TEST_MAIN") == "1" {
		os.Exit(Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// The slow path, with stdin never closed and no hook server: a block at
// --timeout on every host, never exit 1 and never silence.
func TestHookStdinOpenBlocks(t *testing.T) {
	rt := t.TempDir()
	for _, host := range []string{"claude", "codex", "gemini"} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], host, "--timeout", "300ms")
		cmd.Stdin = r
		cmd.Env = append(os.Environ(), "PERMOPA_HOOK_TEST_MAIN=1", "PERMOPA_SERVER=", "PERMOPA_SERVER_REQUIRED=",
			"PERMOPA_HOOK_SERVER=1", "XDG_RUNTIME_DIR="+rt, "HOME="+rt)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		start := time.Now()
		err = cmd.Run()
		w.Close()
		r.Close()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		blocked := code == 2 && strings.Contains(errb.String(), "no decision within 300ms") ||
			code == 0 && strings.Contains(out.String(), `"deny"`) && strings.Contains(out.String(), "no decision within 300ms")
		if !blocked {
			t.Errorf("%s: exit %d stdout %q stderr %q; want a block at the deadline", host, code, out.String(), errb.String())
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: answered after %s", host, d)
		}
	}
}
