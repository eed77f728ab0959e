package main_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Shared servers: a `permopa run --server` process started once for the
// tests that only ask it (none confirms a rule on it, writes its settings
// or stops it), instead of one process per test. Each is started the first
// time a test asks for it and stopped by TestMain after the last test
// (stopSharedServers). A test that changes a server's state, or needs a
// configuration of its own, starts its own (startServerCommand,
// startServer).

var (
	sharedMu    sync.Mutex
	sharedStops []func()
)

// stopSharedServers stops every shared server (TestMain, after the tests).
func stopSharedServers() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	for _, stop := range sharedStops {
		stop()
	}
	sharedStops = nil
}

// launched is a server process started by launchServer.
type launched struct {
	sock   string // the unix socket it listens on
	out    *lockedBuffer
	exited chan struct{}
}

// launchServer starts argv (a `permopa run --server` listening on the unix
// socket sock, and on tcp when that is not "") in dir with env, waits
// until /health answers on both, and registers its stop with the shared
// servers. It returns an error, not a test failure: a shared server is
// started for whichever test comes first.
func launchServer(dir, sock, tcp string, env, argv []string) (*launched, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	l := &launched{sock: sock, out: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = l.out, l.out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = cmd.Wait(); close(l.exited) }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-l.exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-l.exited
		}
	}
	hc := unixHTTPClient(sock)
	// Readiness, not a timing assertion: poll /health for up to a minute.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		select {
		case <-l.exited:
			return nil, fmt.Errorf("permopa run --server exited: %s", l.out.String())
		default:
		}
		if resp, err := hc.Get("http://permopa/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("permopa run --server did not become healthy: %s", l.out.String())
		}
	}
	if tcp != "" {
		if err := waitHealthy("http://"+tcp, l.exited, time.Minute); err != nil {
			stop()
			return nil, fmt.Errorf("permopa run --server on %s: %v: %s", tcp, err, l.out.String())
		}
	}
	sharedMu.Lock()
	sharedStops = append(sharedStops, stop)
	sharedMu.Unlock()
	return l, nil
}

// sharedDir is a directory that lives as long as the shared servers, with
// a path short enough for a unix socket in it.
func sharedDir() (string, error) {
	dir, err := os.MkdirTemp("", "phs")
	if err != nil {
		return "", err
	}
	sharedMu.Lock()
	sharedStops = append(sharedStops, func() { os.RemoveAll(dir) })
	sharedMu.Unlock()
	return dir, nil
}

// workspaceServer is a server with the settings layers of a hook workspace
// (hookWorkspace's project and empty home), on a unix socket and on
// loopback TCP.
type workspaceServer struct {
	cwd, home string
	// unix is its unix:// address, tcp its http://127.0.0.1:PORT one.
	unix, tcp string
}

var (
	wsServerOnce sync.Once
	wsServer     workspaceServer
	wsServerErr  error
)

// sharedWorkspaceServer is the shared `permopa run --server` deciding with
// the settings of a hook workspace (plugins.permopa.settings.project_dir)
// and its home, as startHookServer starts one: the tests that compare its
// answers with the local hook's for that workspace read it, none writes
// it. It writes its token in the workspace's home at its start (TCP
// clients present it).
func sharedWorkspaceServer(t testing.TB) workspaceServer {
	t.Helper()
	wsServerOnce.Do(func() {
		root, err := sharedDir()
		if err != nil {
			wsServerErr = err
			return
		}
		cwd, home, err := makeWorkspace(root)
		if err != nil {
			wsServerErr = err
			return
		}
		sock := filepath.Join(root, "permopa.sock")
		for range 3 {
			port, err := distFreePort()
			if err != nil {
				wsServerErr = err
				return
			}
			tcp := fmt.Sprintf("127.0.0.1:%d", port)
			_, err = launchServer(cwd, sock, tcp, append(os.Environ(), "HOME="+home),
				[]string{permopaBin, "run", "--server", "--skip-version-check", "--log-level", "error",
					"--addr", "unix://" + sock, "--addr", tcp, "--set", "plugins.permopa.settings.project_dir=" + cwd})
			if err != nil && strings.Contains(err.Error(), "address already in use") {
				os.Remove(sock)
				continue
			}
			wsServer, wsServerErr = workspaceServer{cwd: cwd, home: home, unix: "unix://" + sock, tcp: "http://" + tcp}, err
			return
		}
		wsServerErr = errors.New("no free port for the shared workspace server")
	})
	if wsServerErr != nil {
		t.Fatal(wsServerErr)
	}
	return wsServer
}

var (
	plainServerOnce sync.Once
	plainServer     *launched
	plainServerErr  error
)

// sharedPlainServer is the shared `permopa run --server` with no
// configuration, in an empty directory with an isolated home (isolatedEnv):
// the embedded policy and no rules. The tests using it only check.
func sharedPlainServer(t *testing.T) *server {
	t.Helper()
	plainServerOnce.Do(func() {
		dir, err := sharedDir()
		if err != nil {
			plainServerErr = err
			return
		}
		work := filepath.Join(dir, "w")
		if plainServerErr = os.Mkdir(work, 0o755); plainServerErr != nil {
			return
		}
		sock := filepath.Join(dir, "s.sock")
		plainServer, plainServerErr = launchServer(work, sock, "", append(os.Environ(), isolatedEnv(work)...),
			[]string{permopaBin, "run", "--server", "--addr", "unix://" + sock, "--shutdown-grace-period", "1"})
	})
	if plainServerErr != nil {
		t.Fatal(plainServerErr)
	}
	sock := plainServer.sock
	return &server{t: t, out: plainServer.out, exited: plainServer.exited, client: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
	}}}
}

// plainServerAddr is the shared plain server's unix:// address.
func plainServerAddr(t *testing.T) string {
	t.Helper()
	sharedPlainServer(t)
	return "unix://" + plainServer.sock
}

var (
	projServerOnce sync.Once
	projServer     struct{ root, home, addr string }
	projServerErr  error
)

// sharedProjectsServer is the shared `permopa run --server` that reads the
// .permopa files of each check's cwd under its root
// (plugins.permopa.settings.projects, as startProjectsServer starts one),
// with an empty home: the one docs/hosts.md's user service starts, its
// ExecStart line run as written (%h/.local/bin/permopa is the test's
// binary, %t a runtime directory, %h in the roots the server's root;
// TestHostsDocFastPath). projectWorkspace makes a project under the root.
func sharedProjectsServer(t testing.TB) (root, home, addr string) {
	t.Helper()
	projServerOnce.Do(func() {
		raw, err := os.ReadFile("../../docs/hosts.md")
		if err != nil {
			projServerErr = err
			return
		}
		execStart := regexp.MustCompile(`(?m)^ExecStart=(.*)$`).FindStringSubmatch(string(raw))
		if execStart == nil {
			projServerErr = errors.New("docs/hosts.md has no ExecStart line")
			return
		}
		dir, err := sharedDir()
		if err != nil {
			projServerErr = err
			return
		}
		root, home, work, rt := filepath.Join(dir, "projects"), filepath.Join(dir, "home"), filepath.Join(dir, "w"), filepath.Join(dir, "rt")
		for _, d := range []string{root, home, work, rt} {
			if projServerErr = os.Mkdir(d, 0o755); projServerErr != nil {
				return
			}
		}
		argv := strings.Fields(strings.NewReplacer("%h/.local/bin/permopa", permopaBin, "%t", rt, "%h", root).Replace(execStart[1]))
		sock := ""
		for i, a := range argv {
			if a == "--addr" && i+1 < len(argv) {
				sock = strings.TrimPrefix(argv[i+1], "unix://")
			}
		}
		if !strings.HasPrefix(sock, rt+"/") {
			projServerErr = fmt.Errorf("docs/hosts.md's ExecStart line listens on no socket in %%t: %s", execStart[1])
			return
		}
		_, projServerErr = launchServer(work, sock, "", append(os.Environ(), "HOME="+home), argv)
		projServer.root, projServer.home, projServer.addr = root, home, "unix://"+sock
	})
	if projServerErr != nil {
		t.Fatal(projServerErr)
	}
	return projServer.root, projServer.home, projServer.addr
}

// projectWorkspace is a hook workspace (hookWorkspace's settings) of its
// own under the shared projects server's root, removed when the test
// ends, with the server's home (empty: nothing writes there) and address.
func projectWorkspace(t *testing.T) (cwd, home, addr string) {
	t.Helper()
	root, home, addr := sharedProjectsServer(t)
	dir, err := os.MkdirTemp(root, "ws")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cwd, _, err = makeWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := recordTrust(home, cwd); err != nil {
		t.Fatal(err)
	}
	return cwd, home, addr
}
