package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/permopa/permopa/adapter/hookproto"
)

// hookServerThenLocal answers the payload through the user's hook server
// (docs/hosts.md, "The hook server"), which answers exactly as
// permopa-hook-local does; when it cannot (none runs yet, it refuses, it
// fails in any way) the payload is decided by a local process as before,
// and a hook server is started for the next calls when none listens. The
// hook server never makes an answer more permissive: every failure is a
// local decision, and a local decider that fails blocks.
func (c config) hookServerThenLocal(ctx context.Context, payload []byte, why error) (hookproto.Answer, error) {
	start := time.Now()
	ans, note := c.askHookServer(ctx, payload)
	if ans != nil {
		if c.trace {
			ans.Stderr = joinLines(ans.Stderr, fmt.Sprintf("permopa-hook: %s (%.2f ms)", note, float64(time.Since(start).Microseconds())/1000))
		}
		return *ans, nil
	}
	local, err := c.local(ctx, payload, why)
	if c.trace && err == nil {
		local.Stderr = joinLines(local.Stderr, "permopa-hook: "+note+"; decided locally")
	}
	return local, err
}

// askHookServer asks the hook server for this payload's answer; nil and
// why not when it gave none (after starting one when none listens).
func (c config) askHookServer(ctx context.Context, payload []byte) (*hookproto.Answer, string) {
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
	// The server's answer must come with time left to decide locally
	// should it fail: half the hook's time at most.
	wait := c.serverTimeout
	if deadline, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(deadline)/2)
	}
	c.logFile = absPath(c.logFile)
	req := hookproto.ServeRequest{Op: "hook", Env: env, Host: c.host, Args: c.localArgs(true, 0)[1:], Payload: payload}
	ans, err := hookproto.AskHookServer(ctx, dir, key, req, wait)
	if err == nil {
		// As c.local passes a local decider's stderr on.
		return &hookproto.Answer{Stdout: ans.Stdout, Stderr: strings.TrimRight(ans.Stderr, "\n"), Exit: ans.Exit}, fmt.Sprintf("answered by the hook server, pid %d, %s", ans.Pid, filepath.Join(dir.Name(), hookproto.SocketName(key)))
	}
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
		// Nothing listens: start one for the next calls (one at a time:
		// the lock), and decide this call locally.
		switch serr := hookproto.StartHookServer(dir, key, bin, os.Environ()); {
		case serr == nil:
			return nil, fmt.Sprintf("no hook server listened (%v); started one", err)
		case errors.Is(serr, hookproto.ErrHookServerStarting):
			return nil, "a hook server is starting"
		default:
			return nil, fmt.Sprintf("no hook server listened, and none could be started: %v", serr)
		}
	}
	return nil, fmt.Sprintf("the hook server gave no answer: %v", err)
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
