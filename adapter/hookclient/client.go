// Package hookclient is permopa-hook's slow path (docs/hosts.md, "Fast
// path"): everything the thin client cmd/permopa-hook does not do itself,
// run as `permopa-hook-local --hook-client <args>` (or `permopa
// --hook-client <args>` when permopa-hook-local is not there), which
// permopa-hook execs in its place: a command line with flags other than
// those the thin client takes (--permopa, other spellings), the hook
// server turned off, no permopa-hook-local beside it; it starts the hook
// server and decides locally when no server answers, as the thin client
// does. The hook server runs the same code for a configured server,
// --timeout or --trace in this process's place (Serve, served.go).
//
//	permopa-hook claude|codex|gemini [--server unix:///path/permopa.sock] [--log FILE]
//
// It speaks the same protocols as `permopa hook <host>` with the same code
// (adapter/hookproto). Without a server it runs permopa-hook-local as a
// child and waits for it (not exec'ing over itself), so that a decider
// that dies or exits with anything but 0 or 2 is still answered with a
// block. It never fails open:
//   - no server configured, or the server cannot be connected to (no
//     socket, connection refused): permopa-hook-local (else `permopa hook
//     <host>`) decides the same payload and its answer is passed on; with
//     --server-required or PERMOPA_SERVER_REQUIRED=1 it blocks instead;
//   - any other server fault (an error status, an answer that is not a
//     decision, no answer within --server-timeout) blocks;
//   - a local decider that cannot be found or run, or that answers with
//     an exit status other than 0 or 2, blocks.
package hookclient

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/permission"
)

// config is the command line.
type config struct {
	host           string
	server         string
	serverRequired bool
	serverTimeout  time.Duration
	timeout        time.Duration
	ignoreHostMode bool
	destination    string
	mode           string
	permopa        string
	trace          bool
	logFile        string
	hasServer      bool // a server address was configured
	auto           bool // ask the hook server (started on demand) before a local process
	// io: where the call comes from and goes (the process's, or the hook
	// server's for a call it answers in its place: Serve).
	io *callIO
	// tried: the thin client asked the hook server already and got no
	// answer (why; hookwire.TriedUnreachable first when nothing listened): this
	// process does not ask again.
	tried string
}

func parseArgs(args []string) (config, error) {
	if len(args) == 1 && hookproto.For(args[0]) != nil {
		// The command line `permopa install` writes: every flag's default
		// (parseFlags gives the same, TestParseArgsHostOnly), without the
		// flag package, whose first use costs a hook ~0.4 ms of CPU
		// (BENCHMARKS.md, "Hooks").
		return config{host: args[0], serverTimeout: hookproto.DefaultServerTimeout, timeout: hookproto.DefaultTimeout, destination: defaultDestination}, nil
	}
	return parseFlags(args)
}

// defaultDestination is --destination's default.
const defaultDestination = "local"

// parseFlags reads the command line: flags, and the host before or after
// them.
func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("permopa-hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.server, "server", "", "permopa server address (unix:///path.sock or http://host:port); default $"+hookproto.EnvServer)
	fs.BoolVar(&c.serverRequired, "server-required", false, "block when the server cannot be reached; default $"+hookproto.EnvServerRequired)
	fs.DurationVar(&c.serverTimeout, "server-timeout", hookproto.DefaultServerTimeout, "block when the server gives no answer within this time")
	fs.DurationVar(&c.timeout, "timeout", hookproto.DefaultTimeout, "block when no answer is reached within this time")
	fs.BoolVar(&c.ignoreHostMode, "ignore-host-mode", false, "ignore the permission_mode the host sends")
	fs.StringVar(&c.destination, "destination", defaultDestination, "settings destination named in approval advice")
	fs.StringVar(&c.mode, "mode", "", "mode for calls that name none")
	fs.StringVar(&c.permopa, "permopa", "", "the binary for local decisions: permopa-hook-local, or permopa (default: permopa-hook-local next to this one, else permopa next to it, else either on PATH)")
	fs.BoolVar(&c.trace, "trace", false, "print the time each phase takes to stderr")
	fs.StringVar(&c.logFile, "log", "", "append one decision log event per call to this file, as `permopa hook --log` (docs/replay.md)")
	// The host may come before or after the flags.
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return c, err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) != 1 {
		return c, errors.New("want one host: claude, codex or gemini")
	}
	c.host = positional[0]
	if hookproto.For(c.host) == nil {
		return c, errors.New(hookproto.UnknownHost(c.host))
	}
	return c, nil
}

// Main runs permopa-hook's slow path with its arguments (those after
// hookwire.SlowPathArg) and returns the exit status.
func Main(args []string) int {
	return run(args, &callIO{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
}

// callIO is a call's input, output and environment.
type callIO struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// served: the hook server answers the call in this slow path's place
	// (Serve); nil in a process of its own.
	served *Served
}

func run(args []string, cio *callIO) int {
	c, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(cio.stderr, "permopa-hook: %v; blocking\n", err)
		return 2
	}
	c.io = cio
	addr, required := hookproto.ServerFromEnv(c.server, c.serverRequired, cio.getenv)
	if addr == "" {
		// The user's own server on the per-user socket, when one runs.
		if cio.served != nil {
			addr = cio.served.DefaultServer
		} else {
			addr = hookproto.DefaultServer(os.LookupEnv)
		}
	}
	// No server named or running: the hook server, started on demand,
	// answers what permopa-hook-local would (hookserver.go); it is not a
	// server in PERMOPA_SERVER's sense (PERMOPA_SERVER= leaves it on),
	// PERMOPA_HOOK_SERVER=0 turns it off.
	c.auto = addr == "" && !required && hookproto.HookServerSupported && !hookproto.HookServerDisabled(cio.getenv)
	if c.auto && cio.served != nil {
		// The hook server answers what it would be asked.
		return c.servedAuto()
	}
	if c.auto && c.logFile == "" {
		// The common case (the command `permopa install` writes): the hook
		// server first, with nothing else done (hookserver.go).
		return c.hookServerFirst()
	}
	decide := noServer(required)
	if addr != "" {
		c.hasServer = true
		client, err := hookproto.NewClientEnv(addr, c.serverTimeout, cio.getenv)
		if err != nil {
			decide = func(context.Context, hookproto.Request, *hookproto.Tracer) ([]permission.Decision, error) {
				return nil, err
			}
		} else {
			decide = func(ctx context.Context, req hookproto.Request, tr *hookproto.Tracer) ([]permission.Decision, error) {
				ds, err := client.Decide(ctx, hookproto.WithMode(req, c.mode))
				tr.Phase("server")
				var unreachable *hookproto.UnreachableError
				if required && errors.As(err, &unreachable) {
					return nil, fmt.Errorf("%v, and a server is required (--server-required or %s)", err, hookproto.EnvServerRequired)
				}
				return ds, err
			}
		}
	}
	// --log: the server's decisions are logged here; a call decided
	// locally is logged by the local decider, which gets --log too.
	var log *decisionlog.Writer
	var notice string
	if c.logFile != "" {
		open := decisionlog.Open
		if cio.served != nil {
			open = cio.served.OpenLog
		}
		w, err := open(c.logFile, decisionlog.WriterOptions{Source: "hook " + c.host})
		if err != nil {
			fmt.Fprintf(cio.stderr, "permopa-hook: %v (calls are decided all the same)\n", err)
		}
		if w == nil {
			notice = decisionlog.FailureNotice(c.logFile, err, decisionlog.UserCacheDir())
		} else {
			decisionlog.ClearFailureNotice(c.logFile, decisionlog.UserCacheDir())
			log = w
			inner := decide
			decide = func(ctx context.Context, req hookproto.Request, tr *hookproto.Tracer) ([]permission.Decision, error) {
				ds, err := inner(ctx, req, tr)
				if err == nil && len(ds) == len(req.Inputs) {
					for i, in := range req.Inputs {
						if lerr := log.Log(in, ds[i]); lerr != nil {
							fmt.Fprintf(cio.stderr, "permopa-hook: %v (calls are decided all the same)\n", lerr)
							break
						}
					}
				}
				return ds, err
			}
		}
	}
	opts := c.runOptions(decide)
	opts.Notice = notice
	if c.auto {
		opts.OnUnreachable = c.hookServerThenLocal
	}
	code := hookproto.Run(context.Background(), c.host, cio.stdin, cio.stdout, cio.stderr, opts)
	log.Close()
	return code
}

// noServer is the decider when no server is configured: unreachable (a
// local decision follows), or an error that blocks when one is required.
func noServer(required bool) hookproto.Decider {
	return func(context.Context, hookproto.Request, *hookproto.Tracer) ([]permission.Decision, error) {
		if required {
			return nil, fmt.Errorf("a permopa server is required (%s) but none is configured: set --server or %s", hookproto.EnvServerRequired, hookproto.EnvServer)
		}
		return nil, &hookproto.UnreachableError{Addr: "(none)", Err: errors.New("no server configured")}
	}
}

// runOptions are hookproto.Run's options for this command line, deciding
// with decide and locally (c.local) when it finds no server.
func (c config) runOptions(decide hookproto.Decider) hookproto.RunOptions {
	opts := hookproto.RunOptions{
		Decide:         decide,
		Timeout:        c.timeout,
		IgnoreHostMode: c.ignoreHostMode,
		Mode:           c.mode,
		Answer:         hookproto.Options{Destination: c.destination},
		OnUnreachable:  c.local,
	}
	if c.trace {
		opts.Trace = c.io.stderr
	}
	return opts
}

// local has the local decider (permopa-hook-local, else `permopa hook
// <host>`) decide the payload, and returns its answer. Only exit 0 or 2 is
// an answer: anything else blocks.
func (c config) local(ctx context.Context, payload []byte, why error) (hookproto.Answer, error) {
	bin, lean, err := "permopa-hook-local", true, error(nil)
	if c.io.served == nil {
		bin, lean, err = c.findLocal()
	}
	if err != nil {
		return hookproto.Answer{}, fmt.Errorf("%v, and %v", why, err)
	}
	var left time.Duration
	if deadline, ok := ctx.Deadline(); ok {
		// Leave the child's own deadline inside ours, so that its block
		// (which names the cause) is the one the host sees.
		left = time.Until(deadline) - 100*time.Millisecond
		if left <= 0 {
			return hookproto.Answer{}, fmt.Errorf("%v, and no time is left to decide locally", why)
		}
	}
	args := c.localArgs(lean, left)
	var out, errb bytes.Buffer
	code := 0
	if c.io.served != nil {
		// The hook server decides in process, as that child would (with
		// no server: it never asks one).
		ans := c.io.served.Local(ctx, args, payload)
		out.Write(ans.Stdout)
		errb.WriteString(ans.Stderr)
		code = ans.Exit
	} else {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Stdin = bytes.NewReader(payload)
		cmd.Stdout, cmd.Stderr = &out, &errb
		// The child must not try the server again.
		cmd.Env = append(os.Environ(), hookproto.EnvServer+"=", hookproto.EnvServerRequired+"=")
		err = cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			code = exit.ExitCode()
		case err != nil:
			return hookproto.Answer{}, fmt.Errorf("%v, and %s could not run: %v", why, bin, err)
		}
	}
	if code != 0 && code != 2 {
		return hookproto.Answer{}, fmt.Errorf("%v, and %s exited %d: %s", why, strings.Join(append([]string{bin}, args...), " "), code, strings.TrimSpace(errb.String()))
	}
	note := strings.TrimRight(errb.String(), "\n")
	if c.hasServer {
		// Say why the fast path was not taken, as `permopa hook` does.
		note = strings.TrimLeft(fmt.Sprintf("permopa-hook: %v; deciding locally\n%s", why, note), "\n")
	}
	return hookproto.Answer{Stdout: out.Bytes(), Stderr: strings.TrimRight(note, "\n"), Exit: code}, nil
}

// localArgs is the command line of the local decider for this hook:
// `permopa-hook-local <host> …` when lean, else `permopa hook <host> …`;
// timeout 0 leaves the decider's default.
func (c config) localArgs(lean bool, timeout time.Duration) []string {
	args := []string{"hook", c.host}
	if lean {
		args = args[1:]
	}
	args = append(args, "--destination", c.destination)
	if timeout > 0 {
		args = append(args, "--timeout", timeout.String())
	}
	if c.ignoreHostMode {
		args = append(args, "--ignore-host-mode")
	}
	if c.mode != "" {
		args = append(args, "--mode", c.mode)
	}
	if c.trace {
		args = append(args, "--trace")
	}
	if c.logFile != "" {
		args = append(args, "--log", c.logFile)
	}
	return args
}

// findLocal is the binary that decides locally, and whether it is the lean
// permopa-hook-local (else the full permopa): --permopa, else
// permopa-hook-local in this binary's directory, else permopa there, else
// permopa-hook-local or permopa on PATH.
func (c config) findLocal() (string, bool, error) {
	if c.permopa != "" {
		return c.permopa, filepath.Base(c.permopa) == "permopa-hook-local", nil
	}
	if self, err := os.Executable(); err == nil {
		// Linux's /proc/self/exe is the binary's path with every link
		// resolved already: no lstat of each directory on the way.
		if runtime.GOOS != "linux" {
			if resolved, err := filepath.EvalSymlinks(self); err == nil {
				self = resolved
			}
		}
		for _, name := range []string{"permopa-hook-local", "permopa"} {
			p := filepath.Join(filepath.Dir(self), name)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return p, name == "permopa-hook-local", nil
			}
		}
	}
	if p, err := exec.LookPath("permopa-hook-local"); err == nil {
		return p, true, nil
	}
	p, err := exec.LookPath("permopa")
	if err != nil {
		return "", false, fmt.Errorf("neither permopa-hook-local nor permopa is next to permopa-hook or on PATH (set --permopa): %v", err)
	}
	return p, false, nil
}
