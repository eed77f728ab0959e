//go:build linux

package main_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkHookServerLatency is what a call costs as the host runs it
// (a new process per call, the payload on stdin, process start to exit)
// with the command `permopa install` writes, `permopa-hook <host>`, once
// its hook server runs (started on demand by the first call: docs/hosts.md,
// "The hook server"), beside a Go hello-world (the floor of a Go process)
// and the cold local answer, `permopa-hook-local <host>`, in the same run,
// per host through its recorded deny payload; p50 and p95 per case.
// hookserver_sh is the command as the hosts run it, `sh -c '… || exit 2'`.
//
//	go test ./cmd/permopa -run '^$' -bench HookServerLatency -benchtime 200x
func BenchmarkHookServerLatency(b *testing.B) {
	h := newHookServerEnv(b)
	hello := filepath.Join(b.TempDir(), "hello")
	if out, err := exec.Command("go", "build", "-o", hello, "./testdata/hello").CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	payloads := map[string]string{
		"claude": "claude/pretooluse-bash-compound-deny.json",
		"codex":  "codex/pretooluse-bash-deny.json",
		"gemini": "gemini/beforetool-shell-deny.json",
	}
	env := append(os.Environ(), "PERMOPA_SERVER=", "PERMOPA_SERVER_REQUIRED=")
	env = append(env, h.env...)
	run := func(argv []string, payload string) (time.Duration, string) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdin = strings.NewReader(payload)
		cmd.Env = env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 2) {
			b.Fatalf("%v: %v: %s", argv, err, out)
		}
		return took, string(out)
	}
	// The first call starts the server; the benchmark measures the calls
	// after it, as a session's.
	run([]string{h.client, "claude"}, readPayload(b, payloads["claude"], h.cwd))
	st := h.waitServer(h.key())
	for _, host := range []string{"claude", "codex", "gemini"} {
		payload := readPayload(b, payloads[host], h.cwd)
		for _, c := range []struct {
			name string
			argv []string
		}{
			{"hello", []string{hello}},
			{"lean", []string{h.local, host}},
			{"hookserver", []string{h.client, host}},
			// As the hosts run the command install writes: through sh -c.
			{"hookserver_sh", []string{"/bin/sh", "-c", h.client + " " + host + " || exit 2"}},
		} {
			b.Run(host+"/"+c.name, func(b *testing.B) {
				var took []time.Duration
				for i := 0; i < b.N; i++ {
					d, out := run(c.argv, payload)
					took = append(took, d)
					if c.name != "hello" && !strings.Contains(out, "rm -rf") {
						b.Fatalf("not the deny: %s", out)
					}
				}
				reportPercentiles(b, took)
			})
		}
	}
	if after, ok := h.status(h.key()); !ok || after.Pid != st.Pid || after.Answered < 2*int64(b.N) {
		b.Fatalf("the hook server (pid %d) did not answer the hookserver calls: %+v", st.Pid, after)
	}
}
