package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/permopa/permopa/adapter/hookproto"
)

// doctorHookServer reports the hook server a `permopa-hook` hook command
// asks (docs/hosts.md, "The hook server"): off, refused (every call then
// decided by a local process, and why), or the server of the command's
// permopa-hook-local and this environment: running (pid, since, hooks
// answered) or not yet started. It is a note, never a failure: without
// the server every call is decided locally, with the same answer.
func (t target) doctorHookServer(out io.Writer, command string) {
	bin, _, why := t.hookArgv(command)
	if why != "" || filepath.Base(bin) != "permopa-hook" {
		return
	}
	note := func(format string, args ...any) {
		fmt.Fprintf(out, "note hook server: %s\n", fmt.Sprintf(format, args...))
	}
	getenv := func(k string) string { v, _ := t.proc.lookup(k); return v }
	switch {
	case !hookproto.HookServerSupported:
		note("none on this system; every call is decided by a local process")
		return
	case hookproto.HookServerDisabled(getenv):
		note("off (%s=0); every call is decided by a local process", hookproto.EnvHookServer)
		return
	}
	local := filepath.Join(filepath.Dir(bin), "permopa-hook-local")
	id, err := hookproto.FileIdentity(local)
	if err != nil {
		note("none: %v (permopa-hook decides through another binary)", err)
		return
	}
	dirPath := hookproto.HookServerDir(getenv)
	dir, err := hookproto.OpenHookServerDir(dirPath)
	if err != nil {
		note("refused: %v; every call is decided by a local process", err)
		return
	}
	defer dir.Close()
	env := hookproto.DecisionEnv(t.proc.environ())
	key := hookproto.HookServerKey(id, os.Getuid(), env)
	sock := filepath.Join(dirPath, hookproto.SocketName(key))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	ans, err := hookproto.AskHookServer(ctx, dir, key, hookproto.ServeRequest{Op: "status", Env: env}, 2*time.Second)
	if err != nil {
		note("none answers on %s (%v); the next hook starts one (with doctor's environment; the host's may differ: PERMOPA_* variables, HOME)", sock, firstLine(err.Error()))
		return
	}
	note("pid %d on %s (this user's, checked with SO_PEERCRED), running since %s, %d hooks answered, exits after %s idle; its log: %s",
		ans.Pid, sock, ans.Started.Local().Format(time.RFC3339), ans.Answered, ans.Idle, filepath.Join(dirPath, hookproto.LogName(key)))
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
