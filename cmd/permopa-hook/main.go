// Command permopa-hook answers an agent host's permission hook (Claude
// Code, Codex, Gemini CLI): the command `permopa install` writes.
//
//	permopa-hook claude|codex|gemini [--server unix:///path/permopa.sock] [--log FILE] [flags]
//
// The common call, the host alone or with the flags `permopa install`
// writes and docs/replay.md shows (--log, --mode, --destination,
// --ignore-host-mode: fastArgs) and no server configured, is answered
// here by the user's hook server (docs/hosts.md, "The hook server"), in a
// process that links little more than a Go hello-world (internal/hookwire:
// no JSON, regexp, crypto, flag or context) and does nothing else: no
// goroutine, timer or poller, no garbage collection (BENCHMARKS.md,
// "Hooks"). A call the server does not answer (none listens: one is
// started for the next calls; a refusal, a fault, no answer in time) is
// decided by permopa-hook-local beside this binary, run as a child and
// waited for, so that a decider that dies, hangs past the deadline or
// exits with anything but 0 or 2 is answered with a block. Everything else
// is permopa-hook's slow path (adapter/hookclient), which this process
// execs in its place as `permopa-hook-local --hook-client <args>` (else
// `permopa --hook-client <args>`, from this binary's directory or PATH),
// except that a configured server, --timeout, --server-timeout,
// --server-required or --trace (clientArgs) is the hook server's, which
// answers with the slow path's code (servedClient): what remains is a
// command line with other flags, the hook server turned off, no
// permopa-hook-local beside this binary, its directory failing its checks. It never fails open: a payload not read in time,
// unreadable or too large, or no slow path to exec, is a block (exit 2, the
// reason on stderr, which every host's hook takes as a block).
package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/permopa/permopa/internal/hookwire"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// A process that makes one round trip and exits: a collection
		// would cost more than the memory it frees.
		debug.SetGCPercent(-1)
	}
	args := os.Args[1:]
	if host, flags, logFile, ok := fastArgs(args); ok && hookwire.HookServerSupported && autoServer(os.Getenv, os.LookupEnv) {
		os.Exit(served(host, flags, logFile))
	}
	if host, flags, logFile, timeout, ok := clientArgs(args); ok && hookwire.HookServerSupported && !hookwire.HookServerDisabled(os.Getenv) {
		os.Exit(servedClient(host, flags, logFile, timeout))
	}
	os.Exit(slowPath(args))
}

// fastArgs reads a command line the served call takes: a host
// (fastHost) and, before or after it, the flags `permopa install` writes
// and docs/replay.md shows: --log FILE, --mode M, and --destination D and
// --ignore-host-mode, each once (`--flag value` or `--flag=value`, the
// value not empty). flags are permopa-hook-local's for them, --log made
// absolute against this process's directory (logFile); ok is false for
// anything else, which the slow path reads.
func fastArgs(args []string) (host string, flags []string, logFile string, ok bool) {
	values := map[string]string{}
	ignoreHostMode := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			if host != "" || !fastHost(a) {
				return "", nil, "", false
			}
			host = a
			continue
		}
		if a == "--ignore-host-mode" && !ignoreHostMode {
			ignoreHostMode = true
			continue
		}
		name, val, eq := strings.Cut(a, "=")
		switch name {
		case "--log", "--mode", "--destination":
		default:
			return "", nil, "", false
		}
		if !eq {
			if i+1 == len(args) {
				return "", nil, "", false
			}
			i++
			val = args[i]
		}
		if _, twice := values[name]; twice || val == "" {
			return "", nil, "", false
		}
		values[name] = val
	}
	if host == "" {
		return "", nil, "", false
	}
	// The flags the slow path would send (hookclient's localArgs).
	dest := values["--destination"]
	if dest == "" {
		dest = "local"
	}
	flags = []string{"--destination", dest}
	if m := values["--mode"]; m != "" {
		flags = append(flags, "--mode", m)
	}
	if ignoreHostMode {
		flags = append(flags, "--ignore-host-mode")
	}
	if logFile = values["--log"]; logFile != "" {
		abs, err := filepath.Abs(logFile)
		if err != nil {
			return "", nil, "", false
		}
		logFile = abs
		flags = append(flags, "--log", logFile)
	}
	return host, flags, logFile, true
}

// clientArgs reads a command line the hook server answers in the slow
// path's place (Op "client", adapter/hookclient.Serve): a host and, before
// or after it, the flags of fastArgs and --timeout D, --server ADDR,
// --server-timeout D, --server-required and --trace, each once, as
// `--flag value` or `--flag=value` (value not empty; the boolean flags
// bare). flags are the slow path's, normalised as `--flag value`, --log
// made absolute (logFile); timeout is --timeout's (the default when not
// given or not above 0, as the slow path reads it). ok is false for
// anything else (--permopa, a flag's other spellings, a duration that
// does not parse), which the slow path reads.
func clientArgs(args []string) (host string, flags []string, logFile string, timeout time.Duration, ok bool) {
	seen := map[string]bool{}
	timeout = hookwire.DefaultTimeout
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			if host != "" || !fastHost(a) {
				return "", nil, "", 0, false
			}
			host = a
			continue
		}
		name, val, eq := strings.Cut(a, "=")
		if seen[name] {
			return "", nil, "", 0, false
		}
		seen[name] = true
		switch name {
		case "--ignore-host-mode", "--trace", "--server-required":
			if eq {
				return "", nil, "", 0, false
			}
			flags = append(flags, name)
			continue
		case "--log", "--mode", "--destination", "--timeout", "--server", "--server-timeout":
		default:
			return "", nil, "", 0, false
		}
		if !eq {
			if i+1 == len(args) {
				return "", nil, "", 0, false
			}
			i++
			val = args[i]
		}
		if val == "" {
			return "", nil, "", 0, false
		}
		switch name {
		case "--timeout", "--server-timeout":
			d, err := time.ParseDuration(val)
			if err != nil {
				return "", nil, "", 0, false
			}
			if name == "--timeout" && d > 0 {
				timeout = d
			}
		case "--log":
			abs, err := filepath.Abs(val)
			if err != nil {
				return "", nil, "", 0, false
			}
			val, logFile = abs, abs
		}
		flags = append(flags, name, val)
	}
	if host == "" {
		return "", nil, "", 0, false
	}
	return host, flags, logFile, timeout, true
}

// fastHost: the hosts as `permopa install` writes them (the slow path
// knows their other names).
func fastHost(host string) bool {
	return host == "claude" || host == "codex" || host == "gemini"
}

// autoServer reports whether the environment leaves the call to the hook
// server: no server configured or running on the default socket, none
// required, the hook server not turned off (as the slow path decides,
// hookclient.Main).
func autoServer(getenv func(string) string, lookupEnv func(string) (string, bool)) bool {
	return strings.TrimSpace(getenv(hookwire.EnvServer)) == "" && !hookwire.ServerRequired(getenv) &&
		!hookwire.HookServerDisabled(getenv) && hookwire.DefaultServer(lookupEnv) == ""
}

// servedCall is what both served paths need before they ask the hook
// server: the server's binary (permopa-hook-local beside this one, as the
// slow path finds it first; Linux's /proc/self/exe has every link
// resolved) and its identity, the server directory, the --log file opened
// here and the payload.
type servedCall struct {
	local   string
	id      hookwire.BinaryIdentity
	dir     *os.File
	logFD   int
	logErr  string
	payload []byte
}

// prepareServed returns the call, or slow true when the slow path must
// answer it as called (no server binary or directory, a --log that is no
// regular file), or an error when the payload could not be read by the
// deadline (os.ErrDeadlineExceeded) or at all. --log: the server writes
// the entry to the file opened here, with this process's permissions
// (hookwire.OpenLog); one it cannot open is said in the answer, as
// permopa-hook-local says it.
func prepareServed(logFile string, deadline time.Time) (c servedCall, slow bool, err error) {
	self, err := os.Executable()
	if err != nil {
		return c, true, nil
	}
	c.local = filepath.Join(filepath.Dir(self), "permopa-hook-local")
	var st syscall.Stat_t
	if syscall.Stat(c.local, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Mode&0o111 == 0 {
		return c, true, nil
	}
	if c.id, err = hookwire.FileIdentity(c.local); err != nil {
		return c, true, nil
	}
	if c.dir, err = hookwire.OpenHookServerDir(hookwire.HookServerDir(os.Getenv)); err != nil {
		return c, true, nil
	}
	if logFile != "" {
		fd, err := hookwire.OpenLog(logFile)
		switch {
		case errors.Is(err, hookwire.ErrLogNotRegular):
			return c, true, nil
		case err != nil:
			c.logErr = err.Error()
		default:
			c.logFD = fd
		}
	}
	c.payload, err = hookwire.ReadPayload(0, deadline)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return c, false, err
	case err != nil:
		return c, false, errors.New("reading the hook payload: " + err.Error())
	case len(c.payload) > hookwire.MaxPayload:
		return c, false, errors.New("hook payload larger than " + strconv.Itoa(hookwire.MaxPayload) + " bytes")
	}
	return c, false, nil
}

// served answers the call through the hook server and returns the exit
// status; what it cannot answer goes to the slow path.
func served(host string, flags []string, logFile string) int {
	deadline := time.Now().Add(hookwire.DefaultTimeout)
	c, slow, err := prepareServed(logFile, deadline)
	switch {
	case slow:
		return slowPath(os.Args[1:])
	case errors.Is(err, os.ErrDeadlineExceeded):
		return block("no decision within " + hookwire.DefaultTimeout.String() + " (context deadline exceeded)")
	case err != nil:
		return block(err.Error())
	}
	local, id, dir, logFD, logErr, payload := c.local, c.id, c.dir, c.logFD, c.logErr, c.payload
	env := hookwire.DecisionEnv(os.Environ())
	key := hookwire.HookServerKey(id, os.Getuid(), env)
	// Half the time left at most: the rest is for a local decision should
	// the server fail.
	wait := min(hookwire.DefaultServerTimeout, time.Until(deadline)/2)
	req := hookwire.ServeRequest{Op: "hook", Env: env, Host: host, Args: flags, Payload: payload, LogErr: logErr, LogFD: logFD}
	ans, err := hookwire.Ask(dir, key, req, time.Now().Add(wait), wait)
	if logFD > 0 {
		syscall.Close(logFD)
	}
	if err == nil {
		return write(ans)
	}
	why := "the hook server gave no answer: " + err.Error()
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
		// Nothing listens: start one for the next calls (one at a time:
		// the lock), and decide this call locally.
		switch serr := hookwire.StartHookServer(dir, key, local, os.Environ()); {
		case serr == nil:
			why = "no hook server listened (" + err.Error() + "); started one"
		case errors.Is(serr, hookwire.ErrHookServerStarting):
			why = "a hook server is starting"
		default:
			why = "no hook server listened, and none could be started: " + serr.Error()
		}
	}
	return decideLocally(dir, local, host, flags, payload, deadline, why)
}

// servedClient has the hook server answer the call as the slow path would
// (adapter/hookclient.Serve: a configured server asked, with the slow
// path's fallbacks), sending the command line, the variables that say how
// to reach a server and the --log file opened here. A server that gives
// no answer by the deadline (the hook's: --timeout) is a block, as the
// slow path's own timeout is; any other failure (none listens: one is
// started for the next calls; a refusal, a fault) is the slow path's, run
// with the payload read here as its stdin.
func servedClient(host string, flags []string, logFile string, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	c, slow, err := prepareServed(logFile, deadline)
	switch {
	case slow:
		return slowPath(os.Args[1:])
	case errors.Is(err, os.ErrDeadlineExceeded):
		return timedOut(host, timeout)
	case err != nil:
		return block(err.Error())
	}
	local, id, dir, logFD, logErr, payload := c.local, c.id, c.dir, c.logFD, c.logErr, c.payload
	var clientEnv []string
	for _, k := range hookwire.ClientEnvNames {
		if v, ok := os.LookupEnv(k); ok {
			clientEnv = append(clientEnv, k+"="+v)
		}
	}
	env := hookwire.DecisionEnv(os.Environ())
	key := hookwire.HookServerKey(id, os.Getuid(), env)
	// The server answers by the deadline (its own --timeout is the same):
	// a little more for the round trip.
	wait := time.Until(deadline) + 250*time.Millisecond
	req := hookwire.ServeRequest{Op: "client", Env: env, Host: host, Args: flags, Payload: payload, LogErr: logErr, LogFD: logFD,
		ClientEnv: clientEnv, DefaultServer: hookwire.DefaultServer(os.LookupEnv)}
	ans, err := hookwire.Ask(dir, key, req, time.Now().Add(wait), wait)
	if logFD > 0 {
		syscall.Close(logFD)
	}
	switch {
	case err == nil:
		return write(ans)
	case (errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)) && configured(flags):
		// Nothing listens: start one for the next calls (one at a time:
		// the lock); this call is the slow path's, which starts none when
		// a server is configured (with none, it starts one itself).
		hookwire.StartHookServer(dir, key, local, os.Environ())
	case ans.Refused == "" && time.Now().After(deadline):
		return timedOut(host, timeout)
	}
	return slowPathWith(dir, payload)
}

// configured reports whether the call names a server (flags, or the
// environment as autoServer reads it): the slow path then asks it and
// starts no hook server.
func configured(flags []string) bool {
	return slices.Contains(flags, "--server") || slices.Contains(flags, "--server-required") || !autoServer(os.Getenv, os.LookupEnv)
}

// timedOut answers as the slow path answers a hook not decided within
// timeout (hookproto's Fail for an event not read yet): a deny in
// Claude Code's and Gemini CLI's JSON, exit 2 for Codex. The reason needs
// no JSON escaping: a duration's text is digits, letters, '.' and 'µ'.
func timedOut(host string, timeout time.Duration) int {
	reason := "permopa blocked this call because it could not decide it: no decision within " + timeout.String() + " (context deadline exceeded)"
	switch host {
	case "claude":
		return write(hookwire.ServeAnswer{Stdout: []byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"` + reason + "\"}}\n")})
	case "gemini":
		return write(hookwire.ServeAnswer{Stdout: []byte(`{"decision":"deny","reason":"` + reason + `","systemMessage":"` + reason + "\"}\n")})
	}
	return write(hookwire.ServeAnswer{Stderr: reason, Exit: 2})
}

// slowPathWith runs the slow path with payload (read from this process's
// stdin already) as its stdin: an unlinked file in dir.
func slowPathWith(dir *os.File, payload []byte) int {
	f, err := unlinkedFile(dir, 0)
	if err == nil {
		_, err = f.Write(payload)
	}
	if err == nil {
		_, err = f.Seek(0, 0)
	}
	if err == nil {
		err = syscall.Dup3(int(f.Fd()), 0, 0)
	}
	if err != nil {
		return block("the payload could not be handed to the slow path: " + err.Error())
	}
	return slowPath(os.Args[1:])
}

// decideLocally has permopa-hook-local (a child, waited for) decide the
// payload, as the slow path would (hookclient's local): its answer is
// passed on when it exits 0 or 2; anything else, or no answer by the
// deadline (the child is killed), blocks.
func decideLocally(dir *os.File, local, host string, flags []string, payload []byte, deadline time.Time, why string) int {
	// The child's own deadline inside this one, so that its block (which
	// names the cause) is the one the host sees.
	left := time.Until(deadline) - 100*time.Millisecond
	if left <= 0 {
		return block(why + ", and no time is left to decide locally")
	}
	var files [3]*os.File
	for i := range files {
		f, err := unlinkedFile(dir, i)
		if err != nil {
			return block(why + ", and " + err.Error())
		}
		defer f.Close()
		files[i] = f
	}
	if _, err := files[0].Write(payload); err != nil {
		return block(why + ", and the payload could not be handed on: " + err.Error())
	}
	if _, err := files[0].Seek(0, 0); err != nil {
		return block(why + ", and the payload could not be handed on: " + err.Error())
	}
	// The child must not ask a server (none is configured: autoServer).
	env := []string{hookwire.EnvServer + "=", hookwire.EnvServerRequired + "="}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != hookwire.EnvServer && k != hookwire.EnvServerRequired {
			env = append(env, kv)
		}
	}
	argv := append(append([]string{local, host}, flags...), "--timeout", left.String())
	p, err := os.StartProcess(local, argv, &os.ProcAttr{Env: env, Files: files[:]})
	if err != nil {
		return block(why + ", and " + local + " could not run: " + err.Error())
	}
	kill := time.AfterFunc(time.Until(deadline), func() { p.Kill() })
	st, err := p.Wait()
	kill.Stop()
	if err != nil {
		return block(why + ", and " + local + " could not run: " + err.Error())
	}
	var out [2][]byte
	for i, f := range files[1:] {
		if _, err := f.Seek(0, 0); err == nil {
			out[i], err = io.ReadAll(f)
		}
		if err != nil {
			return block(why + ", and " + local + "'s answer could not be read: " + err.Error())
		}
	}
	if code := st.ExitCode(); code != 0 && code != 2 {
		return block(why + ", and " + strings.Join(argv, " ") + " exited " + strconv.Itoa(code) + ": " + strings.TrimSpace(string(out[1])))
	}
	return write(hookwire.ServeAnswer{Stdout: out[0], Stderr: string(out[1]), Exit: st.ExitCode()})
}

// write prints the server's answer as permopa-hook-local would have
// (hookproto.Answer.Write).
func write(ans hookwire.ServeAnswer) int {
	if len(ans.Stdout) > 0 {
		if _, err := os.Stdout.Write(ans.Stdout); err != nil {
			os.Stderr.WriteString("permopa: cannot write the answer (" + err.Error() + "); blocking\n")
			return 2
		}
	}
	if msg := strings.TrimRight(ans.Stderr, "\n"); msg != "" {
		os.Stderr.WriteString(msg + "\n")
	}
	return ans.Exit
}

// block answers with a block: exit 2 and the reason on stderr.
func block(reason string) int {
	os.Stderr.WriteString("permopa blocked this call because it could not decide it: " + reason + "\n")
	return 2
}

// unlinkedFile is a new file in dir (the hook server directory: this
// user's, 0700), unlinked at once, so that only its descriptor holds what
// is written to it.
func unlinkedFile(dir *os.File, n int) (*os.File, error) {
	name := "hook." + strconv.Itoa(os.Getpid()) + "." + strconv.Itoa(n) + "." + strconv.FormatInt(time.Now().UnixNano(), 36)
	dfd := int(dir.Fd())
	fd, err := syscall.Openat(dfd, name, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, os.NewSyscallError("open", err)
	}
	f := os.NewFile(uintptr(fd), name)
	if err := syscall.Unlinkat(dfd, name); err != nil {
		f.Close()
		return nil, os.NewSyscallError("unlink", err)
	}
	return f, nil
}

// slowPath execs the slow path with args: permopa-hook-local
// --hook-client, else permopa --hook-client, each from this binary's
// directory, else PATH. It returns only when none can be run: a block.
func slowPath(args []string) int {
	var dirs []string
	if self, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(self))
	}
	dirs = append(dirs, filepath.SplitList(os.Getenv("PATH"))...)
	var tried []string
	for _, name := range []string{"permopa-hook-local", "permopa"} {
		for _, d := range dirs {
			if !filepath.IsAbs(d) {
				// A relative PATH entry is the host's working directory:
				// the project's own files are not run.
				continue
			}
			bin := filepath.Join(d, name)
			var st syscall.Stat_t
			if syscall.Stat(bin, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Mode&0o111 == 0 {
				continue
			}
			err := syscall.Exec(bin, append([]string{bin, hookwire.SlowPathArg}, args...), os.Environ())
			tried = append(tried, bin+": "+err.Error())
		}
	}
	if len(tried) == 0 {
		return block("neither permopa-hook-local nor permopa is next to permopa-hook or on PATH")
	}
	return block("cannot run " + strings.Join(tried, "; "))
}
