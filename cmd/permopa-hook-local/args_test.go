package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/permopa/permopa/adapter"
)

// Every bad command line of cmd/permopa's TestHookLocalAnswersAsPermopaHook
// (whose quick suite runs two of them as processes, exit 2: issue 25, the
// quick suite) blocks in process as main does: refused by the parse, or
// (a host it does not know) by adapter.RunHook with exit 2, never 1.
func TestBadCommandLinesBlock(t *testing.T) {
	for _, args := range [][]string{{}, {"cursor"}, {"claude", "--no-such-flag"}, {"claude", "codex"}, {"claude", "--settings", "x.yaml"}} {
		opts, host, _, err := parseArgs(args)
		if err != nil {
			continue
		}
		var out, errb bytes.Buffer
		if code := adapter.RunHook(context.Background(), host, strings.NewReader(`{"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/"}`), &out, &errb, opts); code != 2 {
			t.Errorf("%q: exit %d stdout %q stderr %q, want a block (exit 2)", args, code, out.String(), errb.String())
		}
	}
}
