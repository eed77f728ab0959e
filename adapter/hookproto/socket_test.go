//go:build unix

package hookproto

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPrepareSocket: the per-user socket's directory is created 0700 or
// must already be private to this user; a dead server's socket is removed,
// a live one or anything else at its place is refused.
func TestPrepareSocket(t *testing.T) {
	base, err := os.MkdirTemp("", "ps")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	sock := filepath.Join(base, "new", "permopa.sock")
	if err := PrepareSocket(sock); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Dir(sock)); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("created directory: %v %v", info.Mode(), err)
	}
	// A live server: refused; once it is gone, its socket is removed.
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := PrepareSocket(sock); err == nil || !strings.Contains(err.Error(), "already listens") {
		t.Errorf("live server: %v", err)
	}
	l.Close()
	if err := PrepareSocket(sock); err != nil {
		t.Errorf("stale socket: %v", err)
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("stale socket not removed: %v", err)
	}

	refused := map[string]func(dir string){
		"a directory others can enter": func(dir string) { os.Mkdir(dir, 0o755); os.Chmod(dir, 0o755) },
		"a directory others can write": func(dir string) { os.Mkdir(dir, 0o700); os.Chmod(dir, 0o733) },
		"a link to a directory":        func(dir string) { os.Mkdir(dir+".real", 0o700); os.Symlink(dir+".real", dir) },
		"a file":                       func(dir string) { os.WriteFile(dir, nil, 0o600) },
		"a regular file at the socket": func(dir string) { os.Mkdir(dir, 0o700); os.WriteFile(filepath.Join(dir, "permopa.sock"), nil, 0o600) },
	}
	for name, setup := range refused {
		dir := filepath.Join(base, strings.ReplaceAll(name, " ", "-"))
		setup(dir)
		if err := PrepareSocket(filepath.Join(dir, "permopa.sock")); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestDefaultServer: the hooks use the per-user socket only when
// PERMOPA_SERVER is not set at all and a socket of this user is there, in
// a private directory.
func TestDefaultServer(t *testing.T) {
	rt, err := os.MkdirTemp("", "ds")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(rt)
	t.Setenv("XDG_RUNTIME_DIR", rt)
	sock := filepath.Join(rt, "permopa", "permopa.sock")
	if DefaultSocket() != sock {
		t.Fatalf("DefaultSocket() = %q", DefaultSocket())
	}
	// PERMOPA_SERVER unset; XDG_RUNTIME_DIR is rt.
	unset := func(k string) (string, bool) {
		if k == "XDG_RUNTIME_DIR" {
			return rt, true
		}
		return "", false
	}
	if got := DefaultServer(unset); got != "" {
		t.Errorf("no socket: %q", got)
	}
	if err := PrepareSocket(sock); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := DefaultServer(unset); got != "unix://"+sock {
		t.Errorf("socket there: %q", got)
	}
	if got := DefaultServer(func(k string) (string, bool) { v, _ := unset(k); return v, true }); got != "" {
		t.Errorf("PERMOPA_SERVER= (set, empty): %q", got)
	}
	os.Chmod(filepath.Dir(sock), 0o755)
	if got := DefaultServer(unset); got != "" {
		t.Errorf("directory open to others: %q", got)
	}
	// The runtime directory is read from the environment it is given,
	// as PERMOPA_SERVER is: another one's socket is not this one's.
	os.Chmod(filepath.Dir(sock), 0o700)
	other := func(k string) (string, bool) {
		if k == "XDG_RUNTIME_DIR" {
			return t.TempDir(), true
		}
		return "", false
	}
	if got := DefaultServer(other); got != "" {
		t.Errorf("another runtime directory, no socket there: %q", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if got := DefaultServer(unset); got != "unix://"+sock {
		t.Errorf("the given runtime directory's socket, the process's elsewhere: %q", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	if want := filepath.Join(os.TempDir(), "permopa-"+itoa(os.Getuid()), "permopa.sock"); DefaultSocket() != want {
		t.Errorf("without a runtime directory: %q, want %q", DefaultSocket(), want)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
