package main_test

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/permopa/permopa/adapter/opaplugin"
)

// BenchmarkHookHTTP is the host-side cost of one hook call through a
// running `permopa run --server`, beside the process form in the same run:
//
//	go test ./cmd/permopa -run '^$' -bench HookHTTP -benchtime 2000x
//
// keepalive: Claude Code's http hook form, a client POSTing the payload to
// the server's hook route over loopback TCP on a kept connection (Claude
// Code's node client keeps its connections);
// newconn:   the same with a new TCP connection per call;
// process:   `permopa-hook claude --server unix://…`, the command hook form
// (a process per call; run it with -benchtime 30x).
//
// Each reports its p50 and p95 in ms beside the mean.
func BenchmarkHookHTTP(b *testing.B) {
	cwd, home := hookWorkspace(b)
	payload := readPayload(b, "claude/pretooluse-bash-compound-deny.json", cwd)
	url := startHTTPHookServer(b, cwd, home)
	sock := startHookServer(b, cwd, home)
	client := hookClient(b)
	post := func(b *testing.B, c *http.Client) string {
		resp, err := c.Post(url+opaplugin.HookClaudePath, "application/json", strings.NewReader(payload))
		if err != nil {
			b.Fatal(err)
		}
		out, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("%d %v %s", resp.StatusCode, err, out)
		}
		return string(out)
	}
	for _, c := range []struct {
		name string
		call func(b *testing.B) string
	}{
		{"keepalive", func() func(*testing.B) string {
			c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			return func(b *testing.B) string { return post(b, c) }
		}()},
		{"newconn", func() func(*testing.B) string {
			c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			return func(b *testing.B) string { return post(b, c) }
		}()},
		{"process", func(b *testing.B) string {
			cmd := exec.Command(client, "claude", "--server", sock, "--server-required")
			cmd.Stdin = strings.NewReader(payload)
			cmd.Env = append(os.Environ(), "HOME="+home, "PERMOPA_SERVER=", "PERMOPA_SERVER_REQUIRED=")
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("%v: %s", err, out)
			}
			return string(out)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < 20; i++ { // the server's first decisions are cold
				c.call(b)
			}
			took := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				out := c.call(b)
				took = append(took, time.Since(start))
				if !strings.Contains(out, `"permissionDecision":"deny"`) {
					b.Fatalf("not the deny: %s", out)
				}
			}
			reportPercentiles(b, took)
		})
	}
}
