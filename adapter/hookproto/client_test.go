package hookproto_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/permission"
)

// rawServer answers every connection on a unix socket with the bytes of
// answer (after reading the request's head), then closes it.
func rawServer(t *testing.T, answer string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 64<<10)
			conn.Read(buf)
			conn.Write([]byte(answer))
			conn.Close()
		}
	}()
	return "unix://" + sock
}

func check(t *testing.T, addr string) (permission.Decision, error) {
	t.Helper()
	c, err := hookproto.NewClient(addr, 0)
	if err != nil {
		t.Fatal(err)
	}
	return c.Check(context.Background(), map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}})
}

// HTTP answers the reader must take: an interim 100, a body up to the
// connection's end, chunks with extensions and trailers.
func TestClientReadsHTTPAnswers(t *testing.T) {
	const d = `{"behavior":"ASK","message":"m","step":"mode_fallback","suggested_rules":[{"tool_name":"Bash","rule_content":"ls:*","behavior":"ALLOW"}]}`
	for name, answer := range map[string]string{
		"content-length": "HTTP/1.1 200 OK\r\nContent-Length: " + itoa(len(d)) + "\r\n\r\n" + d,
		"interim 100":    "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: " + itoa(len(d)) + "\r\n\r\n" + d,
		"until close":    "HTTP/1.0 200 OK\r\n\r\n" + d,
		"chunked":        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\n" + d[:5] + "\r\n" + itoa16(len(d)-5) + "\r\n" + d[5:] + "\r\n0\r\nX-Trailer: 1\r\n\r\n",
	} {
		got, err := check(t, rawServer(t, answer))
		if err != nil || got.Behavior != permission.Ask || len(got.SuggestedRules) != 1 || got.SuggestedRules[0].String() != "Bash(ls:*)" {
			t.Errorf("%s: %+v %v", name, got, err)
		}
	}
}

// Anything that is not an HTTP answer carrying a decision is an error
// (which blocks), never a decision and never "unreachable".
func TestClientRejectsBadAnswers(t *testing.T) {
	const notReady = `{"code":"not_ready","message":"starting up"}`
	for name, answer := range map[string]string{
		"not HTTP":           "SSH-2.0-OpenSSH\r\n",
		"empty":              "",
		"short body":         "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{}",
		"gzip":               "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
		"bad length":         "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"error status":       "HTTP/1.1 503 Service Unavailable\r\nContent-Length: " + itoa(len(notReady)) + "\r\n\r\n" + notReady,
		"decision, status 4": "HTTP/1.1 400 Bad Request\r\nContent-Length: 20\r\n\r\n{\"behavior\":\"ALLOW\"}",
		"no behavior":        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
		"null":               "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnull",
	} {
		_, err := check(t, rawServer(t, answer))
		var unreachable *hookproto.UnreachableError
		if err == nil || errors.As(err, &unreachable) {
			t.Errorf("%s: err %v", name, err)
		}
		if name == "error status" && (err == nil || !strings.Contains(err.Error(), "not_ready: starting up")) {
			t.Errorf("error status: %v", err)
		}
	}
}

// Addresses are unix:// or http:// and the error names the address.
func TestClientAddresses(t *testing.T) {
	for _, bad := range []string{"", "/tmp/x.sock", "unix://", "https://example.com", "http://", "http://h:1/v1", "tcp://127.0.0.1:1", "http://example.com:8181"} {
		if _, err := hookproto.NewClient(bad, 0); err == nil || !strings.Contains(err.Error(), "server address") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	for _, good := range []string{"unix:///run/user/1/permopa.sock", "http://127.0.0.1:8181", "http://localhost", "http://[::1]:8181"} {
		if _, err := hookproto.NewClient(good, 0); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	_, err := check(t, "unix://"+filepath.Join(t.TempDir(), "none.sock"))
	var unreachable *hookproto.UnreachableError
	if !errors.As(err, &unreachable) {
		t.Errorf("missing socket: %v", err)
	}
}

func itoa(n int) string   { return strconv.Itoa(n) }
func itoa16(n int) string { return strconv.FormatInt(int64(n), 16) }

// A server on loopback TCP is asked the same way, and one that does not
// answer in time is an error (which blocks), not unreachable.
func TestClientTCPAndTimeout(t *testing.T) {
	const d = `{"behavior":"DENY","message":"no","step":"deny_rule"}`
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	hang := make(chan struct{})
	defer close(hang)
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				buf := make([]byte, 64<<10)
				n, _ := conn.Read(buf)
				if !strings.Contains(string(buf[:n]), "\r\nAuthorization: Bearer tok-0123456789abcdef\r\n") {
					conn.Write([]byte("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n"))
					return
				}
				if strings.Contains(string(buf[:n]), `"hang"`) {
					<-hang
					return
				}
				conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: " + itoa(len(d)) + "\r\n\r\n" + d))
			}()
		}
	}()
	c, err := hookproto.NewClient("http://"+l.Addr().String(), 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	c.SetToken("tok-0123456789abcdef")
	got, err := c.Check(context.Background(), map[string]any{"tool_name": "Bash"})
	if err != nil || got.Behavior != permission.Deny {
		t.Fatalf("%+v %v", got, err)
	}
	_, err = c.Check(context.Background(), map[string]any{"tool_name": "hang"})
	var unreachable *hookproto.UnreachableError
	if err == nil || errors.As(err, &unreachable) || !strings.Contains(err.Error(), "no answer within 200ms") {
		t.Fatalf("hanging server: %v", err)
	}
}

// A socket that belongs to another user is not trusted: its answers could
// have been planted by whoever created it. That blocks (an error), it does
// not count as unreachable (which would decide locally).
func TestClientRefusesAnotherUsersSocket(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give the socket to another user")
	}
	addr := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n{\"behavior\":\"ALLOW\"}")
	if err := os.Chown(strings.TrimPrefix(addr, "unix://"), 12345, 12345); err != nil {
		t.Fatal(err)
	}
	_, err := check(t, addr)
	var unreachable *hookproto.UnreachableError
	if err == nil || errors.As(err, &unreachable) || !strings.Contains(err.Error(), "belongs to uid 12345") {
		t.Fatalf("%v", err)
	}
}

// A TCP server is asked only with a token: with no token file, or one that
// others could read or that is a link, the client sends nothing (a
// NotAsked UnreachableError, so the hook decides locally or, required,
// blocks); with the file the server wrote, the token is presented.
func TestClientTCPNeedsToken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan string, 16)
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 64<<10)
			n, _ := conn.Read(buf)
			got <- string(buf[:n])
			const d = `{"behavior":"ALLOW","message":"ok","step":"read_only"}`
			conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: " + itoa(len(d)) + "\r\n\r\n" + d))
			conn.Close()
		}
	}()
	dir := t.TempDir()
	file := filepath.Join(dir, hookproto.TokenFileName)
	link := filepath.Join(dir, "link")
	cases := map[string]func(){
		"no token file": func() {},
		"a token file others can read": func() {
			if err := os.WriteFile(file, []byte("tok-0123456789abcdef\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"a token file that is a link": func() {
			if err := os.Chmod(file, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(file, link); err != nil {
				t.Fatal(err)
			}
			t.Setenv(hookproto.EnvServerTokenFile, link)
		},
		"a token too short": func() {
			short := filepath.Join(dir, "short")
			if err := os.WriteFile(short, []byte("abc\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv(hookproto.EnvServerTokenFile, short)
		},
	}
	t.Setenv("PERMOPA_CONFIG_DIR", dir)
	for _, name := range []string{"no token file", "a token file others can read", "a token file that is a link", "a token too short"} {
		cases[name]()
		c, err := hookproto.NewClient("http://"+l.Addr().String(), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Check(context.Background(), map[string]any{"tool_name": "Bash"})
		var unreachable *hookproto.UnreachableError
		if !errors.As(err, &unreachable) || !unreachable.NotAsked {
			t.Errorf("%s: %v, want a NotAsked UnreachableError", name, err)
		}
	}
	select {
	case req := <-got:
		t.Fatalf("the client sent without a token: %q", req)
	default:
	}
	t.Setenv(hookproto.EnvServerTokenFile, "")
	c, err := hookproto.NewClient("http://"+l.Addr().String(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := c.Check(context.Background(), map[string]any{"tool_name": "Bash"}); err != nil || d.Behavior != permission.Allow {
		t.Fatalf("with the token file: %+v %v", d, err)
	}
	if req := <-got; !strings.Contains(req, "Authorization: Bearer tok-0123456789abcdef\r\n") {
		t.Errorf("request without the token: %q", req)
	}
}
