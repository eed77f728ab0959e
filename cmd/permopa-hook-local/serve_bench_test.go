//go:build linux

package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/adapter/hookproto"
)

// serverOnSocket runs a hook server's request handler (hookServer.handle)
// in this process on a real unix socket, with HOME and the user's
// configuration in a temporary directory; it returns the socket's path,
// the server, and a project directory to use as the payloads' cwd.
func serverOnSocket(tb testing.TB) (string, *hookServer, string) {
	tb.Helper()
	tmp := tb.TempDir()
	home := filepath.Join(tmp, "home")
	project := filepath.Join(tmp, "project")
	for _, d := range []string{home, filepath.Join(project, ".permopa"), filepath.Join(project, ".git")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			tb.Fatal(err)
		}
	}
	// The settings of the hook tests (adapter/testdata/hooks).
	settings, err := os.ReadFile("../../adapter/testdata/hooks/settings.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".permopa", "settings.yaml"), settings, 0o600); err != nil {
		tb.Fatal(err)
	}
	tb.Setenv("HOME", home)
	tb.Setenv("XDG_CONFIG_HOME", "")
	tb.Setenv("PERMOPA_CONFIG_DIR", "")
	tb.Setenv("CLAUDE_PROJECT_DIR", "")
	serverGC() // as serve sets it
	eng, err := adapter.NewHookPolicy(context.Background(), adapter.HookEngineOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	env := hookproto.DecisionEnv(os.Environ())
	s := &hookServer{key: "k", env: env, eng: eng, home: home, started: time.Now(), idle: time.Minute}
	sock := filepath.Join(tmp, "s.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	logf := func(format string, a ...any) { tb.Logf(format, a...) }
	go func() {
		for {
			c, err := ln.AcceptUnix()
			if err != nil {
				return
			}
			go s.handle(context.Background(), c, logf)
		}
	}()
	return sock, s, project
}

// ask sends one hook request to the server at sock, as permopa-hook does.
func ask(tb testing.TB, sock string, req hookproto.ServeRequest) hookproto.ServeAnswer {
	tb.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	if err := hookproto.WriteFrame(c, req); err != nil {
		tb.Fatal(err)
	}
	var ans hookproto.ServeAnswer
	if err := hookproto.ReadFrame(c, &ans); err != nil {
		tb.Fatal(err)
	}
	return ans
}

// processCPU is the user and system time this process used, in ns.
func processCPU(tb testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func benchPayload(tb testing.TB, file, cwd string) []byte {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("../../adapter/testdata/hooks", file))
	if err != nil {
		tb.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(raw), "{{CWD}}", cwd))
}

// BenchmarkServeRequest is the hook server's own time per request, in
// this process over its real socket (connect, frame, settings check,
// decision, answer): what a call after the first costs beyond the
// client process (BENCHMARKS.md, "Hooks").
//
//	go test ./cmd/permopa-hook-local -run '^$' -bench ServeRequest -benchmem
func BenchmarkServeRequest(b *testing.B) {
	sock, s, project := serverOnSocket(b)
	for _, c := range []struct{ host, file, want string }{
		{"claude", "claude/pretooluse-bash-compound-deny.json", `"deny"`},
		{"claude", "claude/pretooluse-read.json", `"allow"`},
		{"claude", "claude/pretooluse-bash-readonly.json", `"allow"`},
		{"codex", "codex/pretooluse-bash-deny.json", `rm -rf`},
		{"gemini", "gemini/beforetool-shell-deny.json", `"deny"`},
	} {
		req := hookproto.ServeRequest{Op: "hook", Key: s.key, Env: s.env, Host: c.host, Payload: benchPayload(b, c.file, project)}
		b.Run(c.host+"/"+strings.TrimSuffix(filepath.Base(c.file), ".json"), func(b *testing.B) {
			// The process's CPU time per request (server and client, both
			// here): steadier than the wall time on a shared machine.
			cpu0 := processCPU(b)
			b.Cleanup(func() { b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op") })
			for i := 0; i < b.N; i++ {
				ans := ask(b, sock, req)
				if ans.Refused != "" || !strings.Contains(string(ans.Stdout)+ans.Stderr, c.want) {
					b.Fatalf("not the answer: %+v (%s %s)", ans, ans.Stdout, ans.Stderr)
				}
			}
		})
	}
}
