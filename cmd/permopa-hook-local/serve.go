//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/adapter/hookclient"
	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/internal/hookwire"
)

// serve runs the hook server (docs/hosts.md, "The hook server"):
// `permopa-hook-local --serve KEY`, started by permopa-hook with the lock
// file on descriptor 3 and the checked socket directory on 4. It answers
// each hook exactly as `permopa-hook-local <host> <flags>` would: the same
// RunHook, the settings of the payload's cwd read at every call
// (adapter.ApplyHookSettings), only the policy compiled once. It answers
// only this user's processes (SO_PEERCRED), only requests for its own key
// and environment, and exits when idle, when its socket is no longer its
// own, or when its binary is replaced. Its log is its stderr.
func serve(args []string) int {
	logf := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "%s permopa-hook-local --serve[%d]: %s\n", time.Now().UTC().Format(time.RFC3339), os.Getpid(), fmt.Sprintf(format, a...))
	}
	if len(args) != 1 {
		logf("usage: permopa-hook-local --serve KEY (started by permopa-hook)")
		return 2
	}
	key := args[0]
	logf("starting")
	serverGC()
	lock := os.NewFile(3, "lock")
	dir := os.NewFile(4, "dir")
	if lock == nil || dir == nil {
		logf("no lock file or directory descriptor (started by permopa-hook only)")
		return 2
	}
	if err := hookproto.CheckHookServerDir(dir); err != nil {
		logf("%v", err)
		return 2
	}
	// The lock permopa-hook took is shared with this descriptor; a lock
	// held by another process means another server: this one leaves.
	if err := syscall.Flock(3, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		logf("the lock is held by another hook server: %v", err)
		return 2
	}
	// Held until this server exits: lock must stay reachable, or the
	// garbage collector closes descriptor 3 (os.NewFile's finalizer) and
	// frees the lock while this server runs, and a hook that finds no
	// socket starts a second server beside it.
	defer runtime.KeepAlive(lock)
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		logf("%v", err)
		return 2
	}
	self, err := hookproto.FileIdentity("/proc/self/exe")
	if err != nil {
		logf("%v", err)
		return 2
	}
	env := hookproto.DecisionEnv(os.Environ())
	if own := hookproto.HookServerKey(self, os.Getuid(), env); own != key {
		// The binary was replaced between the hook's look and this start:
		// a server answers only for the binary it runs.
		logf("key %s is not this binary's and environment's (%s); exiting", key, own)
		return 2
	}
	idle := hookproto.HookServerIdle(os.Getenv)
	home, _ := os.UserHomeDir()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	eng, err := adapter.NewHookPolicy(ctx, adapter.HookEngineOptions{})
	if err != nil {
		logf("compiling the policy: %v", err)
		return 2
	}

	syscall.Umask(0o077)
	name := hookproto.SocketName(key)
	// This process holds the lock: a socket file left here is a dead
	// server's.
	if err := syscall.Unlinkat(int(dir.Fd()), name); err != nil && err != syscall.ENOENT {
		logf("removing the old socket: %v", err)
		return 2
	}
	ln, err := net.Listen("unix", hookproto.InDir(dir, name))
	if err != nil {
		logf("listening: %v", err)
		return 2
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(true)
	if err := fchmodat(dir, name, 0o600); err != nil {
		logf("%v", err)
		ln.Close()
		return 2
	}
	sockIno, err := inoAt(dir, name)
	if err != nil {
		logf("%v", err)
		ln.Close()
		return 2
	}

	s := &hookServer{key: key, sock: filepath.Join(dirName(dir), name), env: env, eng: eng, home: home, started: time.Now(), idle: idle}
	s.last.Store(time.Now().UnixNano())
	logf("serving %s (idle exit after %s)", filepath.Join(dirName(dir), name), idle)

	done := make(chan string, 1)
	go func() {
		// The watchdog: idle, the socket replaced or removed, the binary
		// replaced (a new binary is a new key: hooks ask another server).
		// Every second at most (two stats a second per server): a replaced
		// binary's server is gone within a second (docs/hosts.md, "Which
		// server").
		tick := min(idle/4, time.Second)
		t := time.NewTicker(max(tick, 50*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				done <- "signal"
				return
			case <-t.C:
			}
			if s.active.Load() == 0 && time.Since(time.Unix(0, s.last.Load())) >= idle {
				done <- fmt.Sprintf("idle for %s", idle)
				return
			}
			if ino, err := inoAt(dir, name); err != nil || ino != sockIno {
				done <- "the socket is no longer this server's"
				return
			}
			if id, err := hookproto.FileIdentity(exe); err != nil || id != self {
				done <- "the binary was replaced"
				return
			}
		}
	}()
	var wg sync.WaitGroup
	go func() {
		for {
			c, err := ul.AcceptUnix()
			if err != nil {
				if !errors.Is(err, net.ErrClosed) {
					logf("accept: %v", err)
					time.Sleep(10 * time.Millisecond)
					continue
				}
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.handle(ctx, c, logf)
			}()
		}
	}()
	why := <-done
	// The socket goes first, then the lock (at exit): a hook finds no
	// server, and the lock free once this one is gone.
	ln.Close()
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(2 * time.Second):
	}
	logf("exiting: %s (answered %d hooks)", why, s.answered.Load())
	return 0
}

type hookServer struct {
	key, home string
	sock      string // the socket's path
	env       []string
	eng       *engine.Engine
	started   time.Time
	idle      time.Duration
	last      atomic.Int64 // unix ns of the last request
	active    atomic.Int32
	answered  atomic.Int64
	// mu: one hook at a time sets its settings in the engine and decides.
	mu sync.Mutex
	// stamp: the files the engine's settings were read from, as they were
	// (adapter.HookSettingsStamp; "" none); notes: what reading them said.
	stamp, notes string
}

func (s *hookServer) handle(ctx context.Context, c *net.UnixConn, logf func(string, ...any)) {
	defer c.Close()
	s.active.Add(1)
	defer func() {
		s.last.Store(time.Now().UnixNano())
		s.active.Add(-1)
	}()
	cred, err := hookproto.PeerCred(c)
	if err != nil || int(cred.Uid) != os.Getuid() {
		// Only this user's processes are answered; the socket's mode says
		// the same, the kernel's credentials hold even if it did not.
		logf("refused a connection from %v: %v", cred, err)
		return
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	var req hookproto.ServeRequest
	in := &rightsReader{c: c}
	err = hookproto.ReadFrame(bufio.NewReader(in), &req)
	for _, fd := range in.fds[min(1, len(in.fds)):] {
		syscall.Close(fd)
	}
	if len(in.fds) > 0 {
		req.LogFD = in.fds[0]
		defer syscall.Close(req.LogFD) // decide logs to a copy
	}
	if err == nil && (len(in.fds) > 1 || in.truncated) {
		err = errors.New("more than one descriptor sent")
	}
	if err != nil {
		logf("reading a request: %v", err)
		return
	}
	s.last.Store(time.Now().UnixNano())
	ans := hookproto.ServeAnswer{Pid: os.Getpid(), Key: s.key}
	switch {
	case req.Key != s.key:
		ans.Refused = fmt.Sprintf("this server answers for key %s, not %s", s.key, req.Key)
	case !slices.Equal(req.Env, s.env):
		ans.Refused = "the hook's environment differs from the server's"
	case req.Op == "status":
		ans.Started, ans.Answered, ans.Idle = s.started, s.answered.Load(), s.idle.String()
	case req.Op == "hook":
		s.decide(ctx, req, &ans)
	case req.Op == "client":
		s.client(req, &ans)
	default:
		ans.Refused = fmt.Sprintf("unknown op %q", req.Op)
	}
	if err := hookproto.WriteFrame(c, ans); err != nil {
		logf("writing an answer: %v", err)
	}
}

// decide answers req as `permopa-hook-local <host> <args>` answers its
// payload in a process of this environment, or refuses (the hook then
// runs that process) what it cannot answer the same way.
func (s *hookServer) decide(ctx context.Context, req hookproto.ServeRequest, ans *hookproto.ServeAnswer) {
	opts, host, logFile, err := parseFlags(append([]string{req.Host}, req.Args...))
	if err != nil {
		ans.Refused = err.Error()
		return
	}
	// The payload is decoded once, here, and RunHook parses the object
	// (opts.Decoded).
	payload, refused := servedPayload(logFile, req)
	if refused != "" {
		ans.Refused = refused
		return
	}
	opts.Decoded = payload
	var out, errb bytes.Buffer
	if opts.Trace != nil {
		opts.Trace = &errb
	}
	mode := opts.Mode
	// RunHook answers at its timeout even while the payload's parse still
	// runs (a slow file read): a call of opts.Engine after that must not
	// touch the server's settings, which the next request, holding s.mu,
	// may have checked already (its own cwd's stamp) and decides with.
	var late sync.Mutex
	answered := false
	opts.Engine = func(ctx context.Context, cwd string) (*engine.Engine, error) {
		late.Lock()
		defer late.Unlock()
		if answered {
			return nil, errors.New("the hook was answered already")
		}
		// The settings in the engine are the last call's: kept while no
		// file they come from changed (their notes said again), read again
		// otherwise.
		stamp := adapter.HookSettingsStamp(cwd, s.home, adapter.HookEngineOptions{Mode: mode})
		if stamp == s.stamp {
			errb.WriteString(s.notes)
			return s.eng, nil
		}
		s.stamp = ""
		var notes bytes.Buffer
		if err := adapter.ApplyHookSettings(ctx, s.eng, cwd, s.home, adapter.HookEngineOptions{Mode: mode, Stderr: &notes}); err != nil {
			errb.Write(notes.Bytes())
			return nil, err
		}
		errb.Write(notes.Bytes())
		s.stamp, s.notes = stamp, notes.String()
		return s.eng, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var log *decisionlog.Writer
	if logFile != "" {
		w, err := hookLog(logFile, req, decisionlog.WriterOptions{Source: "hook " + host})
		log = useLog(logFile, w, err, &opts, &errb)
	}
	code := adapter.RunHook(ctx, host, bytes.NewReader(req.Payload), &out, &errb, opts)
	late.Lock()
	answered = true
	late.Unlock()
	log.Close()
	ans.Stdout, ans.Stderr, ans.Exit = out.Bytes(), errb.String(), code
	s.answered.Add(1)
}

// client answers req as permopa-hook's slow path (`permopa-hook-local
// --hook-client <host> <args>`, adapter/hookclient) answers its payload:
// the same code (hookclient.Serve), with the hook's variables that say how
// to reach a server (req.ClientEnv) and its log file, and the decisions
// the slow path has a permopa-hook-local process make made here (decide)
// instead. Nothing of a request outlives it: the configured server's
// client and its token are the request's own, and the settings are the
// payload's cwd's, as for every hook (decide).
func (s *hookServer) client(req hookproto.ServeRequest, ans *hookproto.ServeAnswer) {
	// What the slow path would leave to a process of its own (a relative
	// --log, a payload without an absolute cwd, a log not sent) is refused
	// before a server is asked: the hook then runs the slow path.
	args := append([]string{req.Host}, req.Args...)
	logFile, err := hookclient.ServedArgs(args)
	if err != nil {
		ans.Refused = err.Error()
		return
	}
	if _, refused := servedPayload(logFile, req); refused != "" {
		ans.Refused = refused
		return
	}
	env := map[string]string{}
	for _, kv := range req.ClientEnv {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !slices.Contains(hookwire.ClientEnvNames[:], k) {
			ans.Refused = fmt.Sprintf("%q is not a variable the slow path reads", kv)
			return
		}
		env[k] = v
	}
	getenv := func(k string) string {
		if slices.Contains(hookwire.ClientEnvNames[:], k) {
			return env[k]
		}
		// The decision environment is the hook's (handle checked it).
		return os.Getenv(k)
	}
	// The slow path's decision may go on past its timeout (hookproto.Run
	// answers at the deadline); what it writes then is dropped, as a
	// process that exited would.
	var out, errb lateBuffer
	var decided atomic.Bool
	// A local decision may start after the answer (hookproto.Run answers at
	// its deadline while its work goes on), when handle has closed
	// req.LogFD and the number may be another file's: local decisions log
	// to a copy, closed once the last of them is done, and none starts
	// after the answer.
	var (
		lateMu   sync.Mutex
		finished bool
		inflight sync.WaitGroup
	)
	localReq := req
	if req.LogFD > 0 {
		fd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(req.LogFD), syscall.F_DUPFD_CLOEXEC, 3)
		if errno != 0 {
			ans.Refused = "the --log file sent: " + errno.Error()
			return
		}
		localReq.LogFD = int(fd)
	}
	defer func() {
		lateMu.Lock()
		finished = true
		lateMu.Unlock()
		if localReq.LogFD > 0 {
			go func() {
				inflight.Wait()
				syscall.Close(localReq.LogFD)
			}()
		}
	}()
	served := &hookclient.Served{
		Getenv:        getenv,
		DefaultServer: req.DefaultServer,
		Socket:        s.sock,
		OpenLog: func(path string, opts decisionlog.WriterOptions) (*decisionlog.Writer, error) {
			return hookLog(path, req, opts)
		},
		Local: func(ctx context.Context, args []string, payload []byte) hookproto.Answer {
			lateMu.Lock()
			if finished {
				lateMu.Unlock()
				return hookproto.Answer{Stderr: "permopa-hook-local: the hook was answered already; blocking\n", Exit: 2}
			}
			inflight.Add(1)
			lateMu.Unlock()
			defer inflight.Done()
			decided.Store(true)
			sub := localReq
			sub.Op, sub.Host, sub.Args, sub.Payload = "hook", args[0], args[1:], payload
			var a hookproto.ServeAnswer
			s.decide(ctx, sub, &a)
			if a.Refused != "" {
				// Not reached (the checks above are decide's): a block.
				return hookproto.Answer{Stderr: "permopa-hook-local: " + a.Refused + "; blocking\n", Exit: 2}
			}
			return hookproto.Answer{Stdout: a.Stdout, Stderr: a.Stderr, Exit: a.Exit}
		},
	}
	code := hookclient.Serve(args, req.Payload, &out, &errb, served)
	ans.Stdout, ans.Stderr, ans.Exit = out.close(), string(errb.close()), code
	if !decided.Load() {
		// One request, one answered hook (decide counts its own).
		s.answered.Add(1)
	}
}

// lateBuffer is a buffer that drops what is written after close.
type lateBuffer struct {
	mu     sync.Mutex
	b      []byte
	closed bool
}

func (w *lateBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.b = append(w.b, p...)
	}
	return len(p), nil
}

func (w *lateBuffer) close() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return w.b
}

// servedPayload checks what every served request must hold and returns
// its payload decoded, or why the request is refused. The log is the file
// the hook opened and sent (hookwire.OpenLog): this server never opens a
// --log path, so a hook cannot make it write where the hook itself could
// not. A payload without an absolute cwd would be decided with the
// process's working directory: the hook's, not this server's.
func servedPayload(logFile string, req hookproto.ServeRequest) (map[string]any, string) {
	if logFile != "" && !filepath.IsAbs(logFile) {
		return nil, "a relative --log path is the hook's"
	}
	if refused := checkHookLog(logFile, req); refused != "" {
		return nil, refused
	}
	payload, err := hookproto.DecodePayload(req.Payload)
	if err != nil {
		return nil, "the payload is not a JSON object"
	}
	if cwd, _ := payload["cwd"].(string); !filepath.IsAbs(cwd) {
		return nil, "the payload names no absolute cwd"
	}
	return payload, ""
}

// checkHookLog says why the log the hook sent for --log path (req.LogFD,
// or req.LogErr: why the hook could not open it) is not taken, or "": it
// must be a regular file open for appending, and come with --log.
func checkHookLog(path string, req hookproto.ServeRequest) string {
	switch {
	case path == "" && req.LogFD > 0:
		return "a log file without --log"
	case path == "":
		return ""
	case req.LogFD > 0:
		var st syscall.Stat_t
		if err := syscall.Fstat(req.LogFD, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
			return "the --log file sent is not a regular file"
		}
		fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(req.LogFD), syscall.F_GETFL, 0)
		if errno != 0 || fl&syscall.O_APPEND == 0 || fl&syscall.O_ACCMODE == syscall.O_RDONLY {
			return "the --log file sent is not open for appending"
		}
		return ""
	case req.LogErr != "":
		return ""
	}
	return "--log without the file the hook opened (hookwire.OpenLog)"
}

// hookLog is the decision log the hook sent (checkHookLog took it): a
// Writer to a copy of its descriptor, or the hook's error opening it, as
// decisionlog.Open words it.
func hookLog(path string, req hookproto.ServeRequest, opts decisionlog.WriterOptions) (*decisionlog.Writer, error) {
	if req.LogFD <= 0 {
		return nil, fmt.Errorf("decision log: %s", req.LogErr)
	}
	fd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(req.LogFD), syscall.F_DUPFD_CLOEXEC, 3)
	if errno != 0 {
		return nil, fmt.Errorf("decision log: %s: %w", path, os.NewSyscallError("fcntl", errno))
	}
	return decisionlog.NewWriter(os.NewFile(fd, path), path, opts)
}

// rightsReader reads a request from c and keeps the descriptors sent with
// it (SCM_RIGHTS: the hook's --log file); truncated: more were sent than
// one, and the kernel closed the rest.
type rightsReader struct {
	c         *net.UnixConn
	fds       []int
	truncated bool
}

func (r *rightsReader) Read(p []byte) (int, error) {
	oob := make([]byte, syscall.CmsgSpace(4))
	n, oobn, flags, _, err := r.c.ReadMsgUnix(p, oob)
	if flags&syscall.MSG_CTRUNC != 0 {
		r.truncated = true
	}
	if oobn > 0 {
		msgs, perr := syscall.ParseSocketControlMessage(oob[:oobn])
		if perr != nil {
			r.truncated = true
		}
		for i := range msgs {
			if fds, err := syscall.ParseUnixRights(&msgs[i]); err == nil {
				r.fds = append(r.fds, fds...)
			}
		}
	}
	return n, err
}

// serverGC sets the collector for a long-lived server, unless GOGC or
// GOMEMLIMIT says otherwise. Each request allocates ~100 KB over a live
// heap of ~4 MB: at the default 100% the collector ran every ~40
// requests and took ~10% of the server's CPU (BENCHMARKS.md, "Hooks"); at
// 400% the heap stays near 20 MB. The soft limit bounds the heap of a
// large settings set well above its live size, where it cannot thrash.
func serverGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(256 << 20)
	}
}

func fchmodat(dir *os.File, name string, mode uint32) error {
	if err := syscall.Fchmodat(int(dir.Fd()), name, mode, 0); err != nil {
		return fmt.Errorf("chmod %s: %w", name, err)
	}
	return nil
}

func inoAt(dir *os.File, name string) (uint64, error) {
	fi, err := os.Lstat(hookproto.InDir(dir, name))
	if err != nil {
		return 0, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, errors.New("no inode")
	}
	return st.Ino, nil
}

// dirName is the path of the directory open as dir.
func dirName(dir *os.File) string {
	p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", dir.Fd()))
	if err != nil {
		return dir.Name()
	}
	return p
}
