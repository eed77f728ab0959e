package main_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// BenchmarkHookProcess execs a cold `permopa hook claude` per iteration:
// process start to answer, as Claude Code sees it.
//
//	go test ./cmd/permopa -run '^$' -bench HookProcess -benchtime 30x
func BenchmarkHookProcess(b *testing.B) {
	raw, err := os.ReadFile("../../adapter/testdata/hooks/claude/pretooluse-bash-compound-deny.json")
	if err != nil {
		b.Fatal(err)
	}
	payload := strings.ReplaceAll(string(raw), "{{CWD}}", b.TempDir())
	home := b.TempDir()
	for _, args := range [][]string{{"version"}, {"hook", "claude"}} {
		b.Run(strings.Join(args, "_"), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(permopaBin, args...)
				cmd.Stdin = strings.NewReader(payload)
				cmd.Env = append(os.Environ(), "HOME="+home)
				out, err := cmd.Output()
				if err != nil || (args[0] == "hook" && !strings.Contains(string(out), `"permissionDecision"`)) {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}
