package hookproto

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// AskHookServer against real unix sockets in a hook server directory: an
// answer is taken only from a server that answers in time, for its key,
// with a decision's exit status; every other outcome is an error, and
// nothing listening is ENOENT or ECONNREFUSED (the hook then starts one).
func TestAskHookServerFaults(t *testing.T) {
	rt := t.TempDir()
	dir, err := OpenHookServerDir(filepath.Join(rt, "permopa"))
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	// serve listens as key and answers each request with answer (nil:
	// reads the request and never answers).
	serve := func(t *testing.T, key string, answer func(ServeRequest) *ServeAnswer) {
		ln, err := net.Listen("unix", InDir(dir, SocketName(key)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					var req ServeRequest
					if ReadFrame(bufio.NewReader(c), &req) != nil {
						return
					}
					if ans := answer(req); ans != nil {
						WriteFrame(c, *ans)
						return
					}
					time.Sleep(5 * time.Second)
				}()
			}
		}()
	}
	req := ServeRequest{Op: "hook", Env: []string{"HOME=/h"}, Host: "claude", Payload: []byte(`{"cwd":"/w"}`)}
	ask := func(key string, timeout time.Duration) (ServeAnswer, error) {
		return AskHookServer(context.Background(), dir, key, req, timeout)
	}

	serve(t, "good", func(r ServeRequest) *ServeAnswer {
		if r.Key != "good" || string(r.Payload) != `{"cwd":"/w"}` || r.Host != "claude" || len(r.Env) != 1 {
			return &ServeAnswer{Key: r.Key, Refused: "request garbled"}
		}
		return &ServeAnswer{Pid: 7, Key: r.Key, Stdout: []byte("{}"), Exit: 2}
	})
	if ans, err := ask("good", 5*time.Second); err != nil || ans.Pid != 7 || string(ans.Stdout) != "{}" || ans.Exit != 2 {
		t.Errorf("a good server: %+v %v", ans, err)
	}

	serve(t, "silent", func(ServeRequest) *ServeAnswer { return nil })
	start := time.Now()
	if _, err := ask("silent", 300*time.Millisecond); err == nil || !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Errorf("a server that never answers: %v", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 3*time.Second {
		t.Errorf("a server that never answers: gave up after %s, want 300ms", d)
	}
	// The context's deadline, when earlier, bounds the wait too.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := AskHookServer(ctx, dir, "silent", req, 10*time.Second); err == nil || time.Since(start) > 3*time.Second {
		t.Errorf("a server that never answers, the context's deadline: %v after %s", err, time.Since(start))
	}

	for key, ans := range map[string]ServeAnswer{
		"otherkey": {Key: "someone-else", Exit: 0},
		"refuses":  {Key: "refuses", Refused: "the hook's environment differs"},
		"exit1":    {Key: "exit1", Exit: 1},
		"exitneg":  {Key: "exitneg", Exit: -1},
	} {
		serve(t, key, func(ServeRequest) *ServeAnswer { return &ans })
		if got, err := ask(key, 5*time.Second); err == nil {
			t.Errorf("%s: answer %+v taken", key, got)
		}
	}

	// Not a hook server's answer: an empty one, or another protocol's.
	serve(t, "closes", func(ServeRequest) *ServeAnswer { return &ServeAnswer{} })
	ln, err := net.Listen("unix", InDir(dir, SocketName("http")))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
			c.Close()
		}
	}()
	for _, key := range []string{"closes", "http"} {
		if got, err := ask(key, 5*time.Second); err == nil {
			t.Errorf("%s: answer %+v taken", key, got)
		}
	}

	if _, err := ask("nothing", time.Second); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("no socket: %v, want ENOENT", err)
	}
	// A socket file left by a server that is gone.
	stale, err := net.Listen("unix", InDir(dir, SocketName("stale")))
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	if _, err := os.Lstat(filepath.Join(rt, "permopa", SocketName("stale"))); err != nil {
		t.Fatal(err)
	}
	if _, err := ask("stale", time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("a stale socket: %v, want ECONNREFUSED", err)
	}
}
