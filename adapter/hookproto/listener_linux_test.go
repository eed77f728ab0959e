package hookproto

import (
	"bufio"
	"context"
	"errors"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseProcAddr(t *testing.T) {
	for in, want := range map[string]string{
		"0100007F:1F90":                         "127.0.0.1:8080",
		"00000000:0050":                         "0.0.0.0:80",
		"00000000000000000000000001000000:1F91": "[::1]:8081",
		"0000000000000000FFFF00000100007F:1F92": "[::ffff:127.0.0.1]:8082",
	} {
		a, p, ok := parseProcAddr(in)
		if got := netip.AddrPortFrom(a, p).String(); !ok || got != want {
			t.Errorf("parseProcAddr(%q) = %s %v, want %s", in, got, ok, want)
		}
	}
}

// A loopback port another user listens on is not asked: whoever listens
// there would get the token and answer for the server. That blocks (an
// error), it does not count as unreachable.
func TestClientRefusesAnotherUsersListener(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to listen as another user")
	}
	// The system's python (a user's shim may not be readable by uid 12345).
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3 to listen as another user")
	}
	cmd := exec.Command(py, "-c", "import socket,time\ns=socket.socket()\ns.bind(('127.0.0.1',0))\ns.listen()\nprint(s.getsockname()[1],flush=True)\ntime.sleep(60)")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 12345, Gid: 12345}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skip("cannot run as another user:", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	port, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient("http://127.0.0.1:"+strings.TrimSpace(port), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetToken("tok-0123456789abcdef")
	_, err = c.Check(context.Background(), map[string]any{"tool_name": "Bash"})
	var unreachable *UnreachableError
	if err == nil || errors.As(err, &unreachable) || !strings.Contains(err.Error(), "belongs to uid 12345") {
		t.Fatalf("%v", err)
	}
}
