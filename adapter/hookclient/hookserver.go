package hookclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/internal/hookwire"
)

// hookServerFirst answers the hook through the user's hook server
// (docs/hosts.md, "The hook server") before this process does anything
// else: the payload is read and sent as it came (the server parses it, as
// permopa-hook-local would), with no parse, goroutine, timer or context
// here, whose first use is most of what a call through the server costs
// beyond a Go process's start (BENCHMARKS.md, "Hooks"). The hook's time
// bounds the wait for the payload (select) and for the server (the
// socket's timeouts, half the time left). When the server gives no answer
// the payload goes the usual way (hookproto.Run) with the time left: a
// payload that does not parse blocks there, and the call is decided by a
// local process (after starting a hook server when none listened).
func (c config) hookServerFirst() int {
	timeout := c.timeout
	if timeout <= 0 {
		timeout = hookproto.DefaultTimeout
	}
	start := time.Now()
	deadline := start.Add(timeout)
	timedOut := func() int {
		// As hookproto.Run answers a payload not read in time.
		return hookproto.For(c.host).Fail("", fmt.Sprintf("no decision within %s (%v)", timeout, context.DeadlineExceeded)).Write(os.Stdout, os.Stderr)
	}
	payload, err := hookwire.ReadPayload(0, deadline)
	var stdin io.Reader = bytes.NewReader(payload)
	note := ""
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return timedOut()
	case err != nil:
		// hookproto.Run reads what was read, then stdin's error again.
		stdin = io.MultiReader(stdin, os.Stdin)
	case len(payload) <= hookproto.MaxPayload:
		var ans *hookproto.Answer
		ans, note = c.askHookServer(deadline, payload)
		if ans != nil {
			if c.trace {
				ans.Stderr = joinLines(ans.Stderr, fmt.Sprintf("permopa-hook: %s (%.2f ms)", note, float64(time.Since(start).Microseconds())/1000))
			}
			return ans.Write(os.Stdout, os.Stderr)
		}
	default:
		// Too large: hookproto.Run reads the rest and refuses it.
		stdin = io.MultiReader(stdin, os.Stdin)
	}
	if time.Until(deadline) <= 0 {
		return timedOut()
	}
	// The deadline stays the first one: the context's (Run's own timeout,
	// of the same length, ends later).
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	opts := c.runOptions(noServer(false))
	opts.Timeout = timeout
	opts.OnUnreachable = func(ctx context.Context, payload []byte, why error) (hookproto.Answer, error) {
		return c.localAfter(ctx, payload, why, note)
	}
	return hookproto.Run(ctx, c.host, stdin, os.Stdout, os.Stderr, opts)
}

// hookServerThenLocal answers the payload through the user's hook server
// (docs/hosts.md, "The hook server"), which answers exactly as
// permopa-hook-local does; when it cannot (none runs yet, it refuses, it
// fails in any way) the payload is decided by a local process as before,
// and a hook server is started for the next calls when none listens. The
// hook server never makes an answer more permissive: every failure is a
// local decision, and a local decider that fails blocks. (With --log; a
// hook without it asks the server first, hookServerFirst.)
func (c config) hookServerThenLocal(ctx context.Context, payload []byte, why error) (hookproto.Answer, error) {
	start := time.Now()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = start.Add(c.serverTimeout)
	}
	if c.io.served != nil {
		// This is the hook server: it decides in process.
		return c.servedLocal(payload, time.Until(deadline)-100*time.Millisecond), nil
	}
	ans, note := c.askHookServer(deadline, payload)
	if ans != nil {
		if c.trace {
			ans.Stderr = joinLines(ans.Stderr, fmt.Sprintf("permopa-hook: %s (%.2f ms)", note, float64(time.Since(start).Microseconds())/1000))
		}
		return *ans, nil
	}
	return c.localAfter(ctx, payload, why, note)
}

// localAfter decides the payload locally after the hook server gave no
// answer (note: why).
func (c config) localAfter(ctx context.Context, payload []byte, why error, note string) (hookproto.Answer, error) {
	local, err := c.local(ctx, payload, why)
	if c.trace && err == nil {
		local.Stderr = joinLines(local.Stderr, "permopa-hook: "+note+"; decided locally")
	}
	return local, err
}

// askHookServer asks the hook server for this payload's answer; nil and
// why not when it gave none (after starting one when none listens).
// deadline is the hook's: the server's answer must come with time left to
// decide locally should it fail, so it gets half the time left at most.
func (c config) askHookServer(deadline time.Time, payload []byte) (*hookproto.Answer, string) {
	bin, lean, err := c.findLocal()
	if err != nil || !lean {
		return nil, "no hook server: it is permopa-hook-local, which is not found"
	}
	id, err := hookproto.FileIdentity(bin)
	if err != nil {
		return nil, fmt.Sprintf("no hook server: %v", err)
	}
	dir, err := hookproto.OpenHookServerDir(hookproto.HookServerDir(os.Getenv))
	if err != nil {
		return nil, fmt.Sprintf("no hook server: %v", err)
	}
	defer dir.Close()
	env := hookproto.DecisionEnv(os.Environ())
	key := hookproto.HookServerKey(id, os.Getuid(), env)
	wait := min(c.serverTimeout, time.Until(deadline)/2)
	c.logFile = absPath(c.logFile)
	req := hookproto.ServeRequest{Op: "hook", Env: env, Host: c.host, Args: c.localArgs(true, 0)[1:], Payload: payload}
	if c.logFile != "" {
		// The server writes the entry to the file this process opens
		// (hookwire.OpenLog), never to a path it opens itself.
		fd, err := hookwire.OpenLog(c.logFile)
		switch {
		case errors.Is(err, hookwire.ErrLogNotRegular):
			return nil, "no hook server: " + err.Error()
		case err != nil:
			req.LogErr = err.Error()
		default:
			req.LogFD = fd
			defer syscall.Close(fd)
		}
	}
	ans, err := hookproto.AskHookServer(context.Background(), dir, key, req, wait)
	if err == nil {
		// As c.local passes a local decider's stderr on; the note is for
		// --trace only (fmt's first use costs a hook ~0.1 ms).
		note := ""
		if c.trace {
			note = fmt.Sprintf("answered by the hook server, pid %d, %s", ans.Pid, filepath.Join(dir.Name(), hookproto.SocketName(key)))
		}
		return &hookproto.Answer{Stdout: ans.Stdout, Stderr: strings.TrimRight(ans.Stderr, "\n"), Exit: ans.Exit}, note
	}
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
		return nil, startHookServer(dir, key, bin, err)
	}
	return nil, fmt.Sprintf("the hook server gave no answer: %v", err)
}

// startHookServer starts a hook server for the next calls when nothing
// listened (why), one at a time (the lock); the call is decided locally.
func startHookServer(dir *os.File, key, bin string, why error) string {
	switch serr := hookproto.StartHookServer(dir, key, bin, os.Environ()); {
	case serr == nil:
		return fmt.Sprintf("no hook server listened (%v); started one", why)
	case errors.Is(serr, hookproto.ErrHookServerStarting):
		return "a hook server is starting"
	default:
		return fmt.Sprintf("no hook server listened, and none could be started: %v", serr)
	}
}

// absPath is p made absolute against this process's directory ("" stays).
func absPath(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func joinLines(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}
