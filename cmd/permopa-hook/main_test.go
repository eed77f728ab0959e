package main

import (
	"reflect"
	"testing"
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
