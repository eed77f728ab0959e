//go:build linux

package main

import (
	"strings"
	"sync"
	"testing"

	"github.com/permopa/permopa/adapter/hookproto"
)

// A hook answered at its timeout (here --timeout 1ns: before its payload
// is parsed) leaves RunHook's work running; what it does after the answer
// must not touch the server's settings, which the next request checks
// and decides with under the server's lock. Run with -race: without the
// guard in hookServer.decide, the late settings check races with the
// other requests'. Every answer is still the one the payload gets: the
// late hooks block (fail closed), the others are decided.
func TestServeLateWorkLeavesSettingsAlone(t *testing.T) {
	sock, s, project := serverOnSocket(t)
	deny := benchPayload(t, "claude/pretooluse-bash-compound-deny.json", project)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				req := hookproto.ServeRequest{Op: "hook", Key: s.key, Env: s.env, Host: "claude", Payload: deny}
				if g%2 == 1 {
					req.Args = []string{"--timeout", "1ns"}
				}
				ans := ask(t, sock, req)
				out := string(ans.Stdout)
				switch {
				case ans.Refused != "":
					t.Errorf("refused: %s", ans.Refused)
				case g%2 == 1 && !strings.Contains(out, `"deny"`) && ans.Exit != 2:
					t.Errorf("a hook past its timeout was not blocked: exit %d %s %s", ans.Exit, out, ans.Stderr)
				case g%2 == 0 && !strings.Contains(out, "Bash(rm -rf:*)"):
					t.Errorf("not the deny rule's answer: exit %d %s %s", ans.Exit, out, ans.Stderr)
				}
			}
		}(g)
	}
	wg.Wait()
}
