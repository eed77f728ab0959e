package main_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// bundleServer is a static HTTP server of bundle tarballs, as an
// organisation would run one for its fleet: nginx when the machine has it
// (Debian's package; .ci/run installs it), otherwise a small Go server that
// behaves the same way for OPA's bundle downloader (a strong ETag, 304 to a
// matching If-None-Match).
type bundleServer struct {
	// URL is the server's base URL (http://127.0.0.1:port), the url of an
	// OPA service.
	URL string
	// Dir is the document root: a file Dir/x is served at URL/x.
	Dir string
	// Kind is "nginx" or "go".
	Kind string
	// statuses lists the status codes answered for one path, in order.
	statuses func(tb testing.TB, urlPath string) []int
}

// startBundleServer starts nginx if it can, else the Go server, and logs
// which one runs. Both are stopped in tb.Cleanup.
func startBundleServer(tb testing.TB) *bundleServer {
	tb.Helper()
	bin := nginxBinary()
	if bin == "" {
		tb.Logf("bundle server: Go (no nginx binary on this machine; .ci/run installs Debian's nginx)")
		return startGoBundleServer(tb)
	}
	s, err := startNginx(tb, bin)
	if err != nil {
		tb.Logf("bundle server: Go (nginx %s did not start: %v)", bin, err)
		return startGoBundleServer(tb)
	}
	tb.Logf("bundle server: nginx (%s) at %s", bin, s.URL)
	return s
}

// nginxBinary finds nginx on PATH or where Debian puts it (/usr/sbin is not
// on every user's PATH).
func nginxBinary() string {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// sharedTempDir is a temporary directory that another user can read: nginx
// runs unprivileged (as nobody when the tests run as root), and t.TempDir's
// parent is private to the test's user.
func sharedTempDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "permopa-bundles-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// nginxConfig is a complete nginx configuration that touches nothing outside
// the test's directory: every path nginx would otherwise take from its
// compiled-in defaults (/var/log, /run, /var/lib/nginx) is set here.
const nginxConfig = `daemon off;
worker_processes 1;
pid {{STATE}}/nginx.pid;
error_log {{STATE}}/error.log warn;
events { worker_connections 256; }
http {
	log_format permopa '$status $request_method $uri';
	access_log {{STATE}}/access.log permopa;
	client_body_temp_path {{STATE}}/client_body;
	proxy_temp_path {{STATE}}/proxy;
	fastcgi_temp_path {{STATE}}/fastcgi;
	uwsgi_temp_path {{STATE}}/uwsgi;
	scgi_temp_path {{STATE}}/scgi;
	default_type application/gzip;
	server {
		listen 127.0.0.1:{{PORT}};
		root {{ROOT}};
		etag on;
	}
}
`

// startNginx runs nginx in the foreground as an unprivileged process with a
// generated configuration. A port taken between choosing and binding it is
// retried with another port.
func startNginx(tb testing.TB, bin string) (*bundleServer, error) {
	tb.Helper()
	base := sharedTempDir(tb)
	root, state := filepath.Join(base, "www"), filepath.Join(base, "nginx")
	for _, d := range []string{root, state} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		// Never serve as root: run the whole nginx as nobody, which
		// owns only its state directory.
		u, err := user.Lookup("nobody")
		if err != nil {
			return nil, fmt.Errorf("running as root and no user nobody: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(state, uid, gid); err != nil {
			return nil, err
		}
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
	}
	var lastErr error
	for range 3 {
		port, err := distFreePort()
		if err != nil {
			return nil, err
		}
		conf := strings.NewReplacer("{{STATE}}", state, "{{ROOT}}", root, "{{PORT}}", strconv.Itoa(port)).Replace(nginxConfig)
		confFile := filepath.Join(state, "nginx.conf")
		if err := os.WriteFile(confFile, []byte(conf), 0o644); err != nil {
			return nil, err
		}
		// -e: the error log before the configuration is read (nginx
		// would otherwise try its compiled-in /var/log path first).
		cmd := exec.Command(bin, "-p", state, "-e", filepath.Join(state, "error.log"), "-c", confFile)
		var out distLog
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		url := "http://127.0.0.1:" + strconv.Itoa(port)
		if err := waitHTTP(url+"/", exited, 10*time.Second); err != nil {
			stopProcess(cmd, exited, syscall.SIGTERM)
			errLog, _ := os.ReadFile(filepath.Join(state, "error.log"))
			lastErr = fmt.Errorf("%v: %s%s", err, out.String(), errLog)
			continue
		}
		tb.Cleanup(func() { stopProcess(cmd, exited, syscall.SIGTERM) })
		// nginx answers, but can it read the document root (a TMPDIR
		// that nobody cannot enter gives 403 or 404)?
		if err := probeServes(url, root); err != nil {
			return nil, err
		}
		s := &bundleServer{URL: url, Dir: root, Kind: "nginx"}
		s.statuses = func(tb testing.TB, urlPath string) []int {
			return nginxStatuses(tb, filepath.Join(state, "access.log"), urlPath)
		}
		return s, nil
	}
	return nil, lastErr
}

// probeServes checks that a file put in root is served at url.
func probeServes(url, root string) error {
	file := filepath.Join(root, "probe.txt")
	if err := os.WriteFile(file, []byte("probe"), 0o644); err != nil {
		return err
	}
	defer os.Remove(file)
	resp, err := http.Get(url + "/probe.txt")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK || body.String() != "probe" {
		return fmt.Errorf("GET /probe.txt: %d %q: the document root %s is not readable by the server", resp.StatusCode, body.String(), root)
	}
	return nil
}

// nginxStatuses reads the status codes for urlPath from the access log
// (format permopa: "status method uri"). nginx writes each line unbuffered
// but only after the response: a client may see its answer first.
func nginxStatuses(tb testing.TB, file, urlPath string) []int {
	tb.Helper()
	raw, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		tb.Fatal(err)
	}
	var out []int
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || f[2] != urlPath {
			continue
		}
		if code, err := strconv.Atoi(f[0]); err == nil {
			out = append(out, code)
		}
	}
	return out
}

// startGoBundleServer serves the files of a temporary directory with a
// strong ETag (a hash of the content, so two revisions never share one) and
// answers a matching If-None-Match with 304, as OPA's polling expects.
func startGoBundleServer(tb testing.TB) *bundleServer {
	tb.Helper()
	root := sharedTempDir(tb)
	var mu sync.Mutex
	seen := map[string][]int{}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Clean("/" + r.URL.Path)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			mu.Lock()
			seen[name] = append(seen[name], rec.status)
			mu.Unlock()
		}()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(rec, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		// The whole file is read at once: a publisher replaces it by
		// rename, so this is one revision or the other, never a mix.
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			http.NotFound(rec, r)
			return
		}
		sum := sha256.Sum256(data)
		rec.Header().Set("ETag", `"`+hex.EncodeToString(sum[:16])+`"`)
		rec.Header().Set("Content-Type", "application/gzip")
		// ServeContent compares If-None-Match with the ETag set above.
		http.ServeContent(rec, r, name, time.Time{}, bytes.NewReader(data))
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	tb.Cleanup(func() { _ = srv.Close() })
	return &bundleServer{
		URL:  "http://" + l.Addr().String(),
		Dir:  root,
		Kind: "go",
		statuses: func(_ testing.TB, urlPath string) []int {
			mu.Lock()
			defer mu.Unlock()
			return append([]int(nil), seen[urlPath]...)
		},
	}
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// publish replaces the file name in the document root atomically: the new
// content is written next to it and renamed over it, so a download sees the
// old revision or the new one, never half of each.
func (s *bundleServer) publish(tb testing.TB, name string, data []byte) {
	tb.Helper()
	dst := filepath.Join(s.Dir, name)
	tmp, err := os.CreateTemp(s.Dir, "."+name+".tmp-")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tb.Fatal(err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tb.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		tb.Fatal(err)
	}
	// nginx's ETag is the modification time in seconds plus the size: two
	// revisions of equal size published within one second would share an
	// ETag, and a poller holding the first would never fetch the second.
	// A publisher must give each revision a later mtime.
	if old, err := os.Stat(dst); err == nil {
		if fi, err := os.Stat(tmp.Name()); err == nil && fi.ModTime().Unix() <= old.ModTime().Unix() {
			later := old.ModTime().Truncate(time.Second).Add(time.Second)
			if err := os.Chtimes(tmp.Name(), later, later); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		tb.Fatal(err)
	}
}

// count is how many times code was answered for urlPath.
func (s *bundleServer) count(tb testing.TB, urlPath string, code int) int {
	tb.Helper()
	n := 0
	for _, c := range s.statuses(tb, urlPath) {
		if c == code {
			n++
		}
	}
	return n
}

// distFreePort is a loopback TCP port that was free a moment ago.
func distFreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitHTTP waits until url answers anything over HTTP, the process behind it
// exits, or the limit passes.
func waitHTTP(url string, exited <-chan struct{}, limit time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-exited:
			return errors.New("the process exited")
		default:
		}
		if resp, err := client.Get(url); err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer from %s within %v", url, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stopProcess asks a process this test started to stop, and kills its
// process group if it has not exited after a while.
func stopProcess(cmd *exec.Cmd, exited <-chan struct{}, sig syscall.Signal) {
	_ = cmd.Process.Signal(sig)
	select {
	case <-exited:
		return
	case <-time.After(15 * time.Second):
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-exited
}

// distLog collects a process's output; safe for the copying goroutines of
// os/exec and a reader at once.
type distLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *distLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *distLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestBundleServerAnswers304 checks what OPA's bundle polling relies on, for
// nginx (when the machine has it) and for the Go fallback: the tarball comes
// with an ETag, a request with that ETag in If-None-Match gets 304 and no
// body, and a new revision gets a new ETag and a 200.
func TestBundleServerAnswers304(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"nginx", "go"} {
		t.Run(kind, func(t *testing.T) {
			var s *bundleServer
			if kind == "go" {
				s = startGoBundleServer(t)
			} else {
				bin := nginxBinary()
				if bin == "" {
					t.Skip("no nginx binary on this machine (.ci/run installs Debian's nginx)")
				}
				var err error
				if s, err = startNginx(t, bin); err != nil {
					t.Fatalf("nginx %s: %v", bin, err)
				}
			}
			s.publish(t, "rules.tar.gz", []byte("revision one"))
			get := func(etag string) (int, string, string) {
				req, _ := http.NewRequest(http.MethodGet, s.URL+"/rules.tar.gz", nil)
				if etag != "" {
					req.Header.Set("If-None-Match", etag)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var body bytes.Buffer
				_, _ = body.ReadFrom(resp.Body)
				return resp.StatusCode, resp.Header.Get("ETag"), body.String()
			}
			code, etag, body := get("")
			if code != 200 || etag == "" || body != "revision one" {
				t.Fatalf("first GET: %d, ETag %q, body %q", code, etag, body)
			}
			if code, _, body := get(etag); code != http.StatusNotModified || body != "" {
				t.Fatalf("GET with If-None-Match %s: %d %q, want 304 and no body", etag, code, body)
			}
			s.publish(t, "rules.tar.gz", []byte("revision two"))
			code, etag2, body := get(etag)
			if code != 200 || etag2 == etag || body != "revision two" {
				t.Fatalf("after publishing: %d, ETag %q (was %q), body %q", code, etag2, etag, body)
			}
			// nginx logs a request just after answering it.
			waitFor(t, 10*time.Second, "the server recording three requests", func() bool {
				return len(s.statuses(t, "/rules.tar.gz")) >= 3
			})
			if got := s.statuses(t, "/rules.tar.gz"); len(got) != 3 || got[1] != 304 {
				t.Errorf("%s recorded %v, want [200 304 200]", kind, got)
			}
		})
	}
}
