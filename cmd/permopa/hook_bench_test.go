package main_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/permission"
)

// BenchmarkHookProcess execs a cold hook process per iteration: process
// start to answer, as the agent host sees it, with the machine's floor in
// the same run (the machine is shared: compare ratios to the floor).
//
//	go test ./cmd/permopa -run '^$' -bench HookProcess -benchtime 30x
//
// true:            /bin/true, the floor of any process
// hello:           a Go hello-world, the floor of a Go process
// version:         `permopa version`, the full binary's start alone (OPA's init)
// local:           `permopa hook claude`, compiling the policy
// lean:            `permopa-hook-local claude`, the lean local hook
// server:          `permopa hook claude --server unix://…` through a running server
// client_server:   `permopa-hook claude --server unix://…` (no OPA linked)
// client_lean:     `permopa-hook claude` with no server: it runs permopa-hook-local
// client_fallback: `permopa-hook claude` with no server and no
// permopa-hook-local beside it: it runs `permopa hook claude`
func BenchmarkHookProcess(b *testing.B) {
	cwd, home := hookWorkspace(b)
	payload := readPayload(b, "claude/pretooluse-bash-compound-deny.json", cwd)
	addr := startHookServer(b, cwd, home)
	client := hookClient(b)
	lean, leanClient := hookLocal(b)
	hello := filepath.Join(b.TempDir(), "hello")
	if out, err := exec.Command("go", "build", "-o", hello, "./testdata/hello").CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	for _, c := range []struct {
		name string
		argv []string
	}{
		{"true", []string{"/bin/true"}},
		{"hello", []string{hello}},
		{"version", []string{permopaBin, "version"}},
		{"local", []string{permopaBin, "hook", "claude"}},
		{"lean", []string{lean, "claude"}},
		{"server", []string{permopaBin, "hook", "claude", "--server", addr, "--server-required"}},
		{"client_server", []string{client, "claude", "--server", addr, "--server-required"}},
		{"client_lean", []string{leanClient, "claude"}},
		{"client_fallback", []string{client, "claude"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			answers := c.argv[0] != "/bin/true" && c.argv[0] != hello && c.name != "version"
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(c.argv[0], c.argv[1:]...)
				cmd.Stdin = strings.NewReader(payload)
				cmd.Env = append(os.Environ(), "HOME="+home, "PERMOPA_SERVER=", "PERMOPA_SERVER_REQUIRED=")
				out, err := cmd.Output()
				if err != nil || (answers && !strings.Contains(string(out), `"permissionDecision":"deny"`)) {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}

// BenchmarkHookServerCheck is one round trip of the hook client to a
// running `permopa run --server` over its unix socket (in process: no
// process start), the server's share of a hook answered through it.
//
//	go test ./cmd/permopa -run '^$' -bench HookServerCheck -benchtime 2000x
func BenchmarkHookServerCheck(b *testing.B) {
	cwd, home := hookWorkspace(b)
	var input map[string]any
	if err := json.Unmarshal([]byte(readPayload(b, "claude/pretooluse-bash-compound-deny.json", cwd)), &input); err != nil {
		b.Fatal(err)
	}
	client, err := hookproto.NewClient(startHookServer(b, cwd, home), 0)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < 20; i++ { // the server's first decisions are cold
		client.Check(ctx, input)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := client.Check(ctx, input)
		if err != nil || d.Behavior != permission.Deny {
			b.Fatalf("%+v %v", d, err)
		}
	}
}

// BenchmarkHookLatency is the answer time of a hook process per host, as
// the host runs it (a new process per call), with its p50 and p95: cold
// `permopa hook <host>` deciding locally, `permopa-hook-local <host>`,
// `permopa-hook <host>` without a server (running permopa-hook-local, what
// `permopa install` writes), and `permopa-hook <host>` asking a running
// server.
//
//	go test ./cmd/permopa -run '^$' -bench HookLatency -benchtime 40x
func BenchmarkHookLatency(b *testing.B) {
	cwd, home := hookWorkspace(b)
	addr := startHookServer(b, cwd, home)
	client := hookClient(b)
	lean, leanClient := hookLocal(b)
	payloads := map[string]string{
		"claude": "claude/pretooluse-bash-compound-deny.json",
		"codex":  "codex/pretooluse-bash-deny.json",
		"gemini": "gemini/beforetool-shell-deny.json",
	}
	for _, host := range []string{"claude", "codex", "gemini"} {
		payload := readPayload(b, payloads[host], cwd)
		for _, c := range []struct {
			name string
			argv []string
		}{
			{"cold", []string{permopaBin, "hook", host}},
			{"lean", []string{lean, host}},
			{"client_lean", []string{leanClient, host}},
			{"client_server", []string{client, host, "--server", addr, "--server-required"}},
		} {
			b.Run(host+"/"+c.name, func(b *testing.B) {
				var took []time.Duration
				for i := 0; i < b.N; i++ {
					cmd := exec.Command(c.argv[0], c.argv[1:]...)
					cmd.Stdin = strings.NewReader(payload)
					cmd.Env = append(os.Environ(), "HOME="+home, "PERMOPA_SERVER=", "PERMOPA_SERVER_REQUIRED=")
					start := time.Now()
					out, err := cmd.CombinedOutput()
					took = append(took, time.Since(start))
					var exit *exec.ExitError
					if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 2) {
						b.Fatalf("%v: %s", err, out)
					}
					if !strings.Contains(string(out), "rm -rf") {
						b.Fatalf("not the deny: %s", out)
					}
				}
				reportPercentiles(b, took)
			})
		}
	}
}

// reportPercentiles reports the p50 and p95 of took, in ms, beside the
// benchmark's mean.
func reportPercentiles(b *testing.B, took []time.Duration) {
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	pct := func(p float64) float64 {
		return float64(took[int(p*float64(len(took)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
}
