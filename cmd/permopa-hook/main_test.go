package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/permopa/permopa/adapter/hookproto"
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

// TestMain runs this test binary as permopa-hook when PERMOPA_HOOK_TEST_MAIN
// is set: the processes below are the command itself.
func TestMain(m *testing.M) {
	if os.Getenv("PERMOPA_HOOK_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// The payload is read until stdin ends, and no longer than the hook's
// time: a host that keeps stdin open gets no answer from the server path
// but a block at the deadline.
func TestReadPayload(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.Write([]byte(`{"cwd":`))
	start := time.Now()
	got, err := readPayload(int(r.Fd()), start.Add(200*time.Millisecond))
	if !errors.Is(err, os.ErrDeadlineExceeded) || string(got) != `{"cwd":` {
		t.Errorf("stdin left open: %q %v, want what was written and the deadline", got, err)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 5*time.Second {
		t.Errorf("stdin left open: returned after %s, want the deadline (200ms)", d)
	}
	go func() {
		w.Write([]byte(`"/w"}`))
		w.Close()
	}()
	got, err = readPayload(int(r.Fd()), time.Now().Add(10*time.Second))
	if err != nil || string(got) != `"/w"}` {
		t.Errorf("stdin closed: %q %v", got, err)
	}
	// More than a payload may be: one byte more is read (and refused by
	// hookproto.Run), not the rest.
	r2, w2, _ := os.Pipe()
	defer r2.Close()
	go func() {
		w2.Write(make([]byte, hookproto.MaxPayload+100))
		w2.Close()
	}()
	got, err = readPayload(int(r2.Fd()), time.Now().Add(30*time.Second))
	if err != nil || len(got) <= hookproto.MaxPayload || len(got) > hookproto.MaxPayload+100 {
		t.Errorf("a payload too large: %d bytes, %v; want more than %d", len(got), err, hookproto.MaxPayload)
	}
	if _, err := readPayload(-1, time.Now().Add(time.Second)); err == nil {
		t.Error("descriptor -1 was read")
	}
}

// permopa-hook itself, with stdin never closed and no hook server: a
// block at --timeout on every host, never exit 1 and never silence.
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
