package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/decisionlog"
)

// hookCommand is `permopa hook`; p is the environment it reads
// (HOME, PERMOPA_SERVER, XDG_RUNTIME_DIR).
func hookCommand(p procEnv) *cobra.Command {
	lookupEnv, getenv := p.lookup, p.getenv
	f := engineFlags{proc: p}
	var timeout time.Duration
	var ignoreHostMode bool
	var destination string
	var trace bool
	var server, serverTimeout = "", hookproto.DefaultServerTimeout
	var serverRequired bool
	var logFile string
	c := &cobra.Command{
		Use:   "hook claude|codex|gemini",
		Short: "Answer an agent host's permission hook (Claude Code, Codex, Gemini CLI)",
		Long: `Reads one hook payload on stdin and answers in the host's protocol:

  claude   Claude Code PreToolUse (allow/deny/ask with a reason naming the rule
           and layer) and PermissionRequest (deny, or no decision so the
           dialog asks the human; never an approval).
  codex    OpenAI Codex PreToolUse: DENY and ASK block (exit 2, reason on
           stderr; an ASK says which 'permopa rules add' approves it), ALLOW
           prints nothing. PermissionRequest: deny or no decision.
  gemini   Gemini CLI BeforeTool: allow, ask (Gemini asks for confirmation)
           or deny; with --mode dontAsk an ASK is a deny that says which
           'permopa rules add' approves it.

A hook never loosens its host: each host's permission modes are read with
their own meaning (docs/hosts.md), permopa approves in a mode only what the
host would run unasked or what a permopa allow rule approves, an ASK where
nobody can answer (Claude Code's dontAsk, codex exec) is a deny, and a mode
permopa does not know is decided as default and never approved.

Settings: the --settings files, then <cwd>/.permopa/settings.local.yaml,
<cwd>/.permopa/settings.yaml and ~/.config/permopa/settings.yaml, where cwd
is the payload's. Any fault (unreadable or empty stdin, a policy that does
not compile, the --timeout) blocks: a deny in the host's JSON or exit 2.
The exit status is never 1. 'permopa install <host>' writes the hooks.

Fast path: with --server (or PERMOPA_SERVER) the hook asks a running
'permopa run --server' (POST /v1/permission/check) instead of compiling the
policy; the server decides with its own settings. Without either, it asks
the server on the per-user socket ($XDG_RUNTIME_DIR/permopa/permopa.sock,
where 'permopa run --server' listens when given no --addr) when one runs;
PERMOPA_SERVER= (set, empty) turns that off. A server that cannot be
connected to is skipped (the hook decides locally, as without --server)
unless --server-required or PERMOPA_SERVER_REQUIRED=1; any other server
fault (an error status, an answer that is not a decision, no answer within
--server-timeout) blocks. cmd/permopa-hook is a small client that does the
same without OPA's start-up cost.`,
		Args:      cobra.ArbitraryArgs, // checked in RunE: a usage error must block too
		ValidArgs: hookproto.Hosts,
		// Errors are answered in the host's protocol by RunHook; cobra's
		// own errors (a bad flag) must still block, hence the exit 2 below.
		RunE: func(c *cobra.Command, args []string) error {
			stderr := c.ErrOrStderr()
			if len(args) != 1 {
				fmt.Fprintln(stderr, "permopa hook: want one host: claude, codex or gemini; blocking")
				return exitCode(2)
			}
			// One payload, one answer, then the process exits: the
			// collector's percent stays raised (coldstart.go).
			p.coldGC()
			home := getenv("HOME")
			addr, required := hookproto.ServerFromEnv(server, serverRequired, getenv)
			if addr == "" && f.localOnly() == "" {
				// The user's own server on the per-user socket, when one
				// runs (unreachable: decided locally, as below).
				addr = hookproto.DefaultServer(lookupEnv)
			}
			if local := f.localOnly(); local != "" && addr != "" {
				if server != "" {
					fmt.Fprintf(stderr, "permopa hook: %s cannot be used with --server: the server decides with its own settings and policy; blocking\n", local)
					return exitCode(2)
				}
				// PERMOPA_SERVER is a default for every hook; a command
				// that names its own settings or policy decides locally.
				addr, required = "", false
			}
			var eng *engine.Engine
			calls := newCallLog(p.path(logFile), "hook "+args[0], stderr, func() map[string]string {
				if eng == nil {
					return nil // decided by the server, which logs its own revisions
				}
				return eng.BundleRevisions()
			})
			opts := adapter.HookOptions{
				Server:         addr,
				ServerRequired: required,
				ServerTimeout:  serverTimeout,
				Mode:           f.mode,
				Timeout:        timeout,
				IgnoreHostMode: ignoreHostMode,
				Destination:    destination,
				Engine: func(ctx context.Context, cwd string) (*engine.Engine, error) {
					e, err := f.hookEngine(ctx, cwd, home, stderr, false)
					eng = e
					return e, err
				},
			}
			if calls != nil {
				opts.OnDecided = calls.hookDecision
				// The log's directory is made (0700) and the file opened
				// before deciding, so that a log that cannot be written is
				// said in the answer, where the host's user sees it
				// (once: decisionlog.FailureNotice), not only on stderr.
				if err := decisionlog.Prepare(calls.path); err != nil {
					opts.Notice = decisionlog.FailureNotice(calls.path, err, p.cacheDir())
				} else {
					decisionlog.ClearFailureNotice(calls.path, p.cacheDir())
				}
			}
			if trace {
				opts.Trace = stderr
				fmt.Fprintf(stderr, "permopa trace: start    %8.2f ms (process start to the hook command, Go package initialisation included)\n", sinceProcessStart())
			}
			code := adapter.RunHook(c.Context(), args[0], c.InOrStdin(), c.OutOrStdout(), stderr, opts)
			calls.close(time.Second) // after the answer: the log never holds it back
			if code != 0 {
				return exitCode(code)
			}
			return nil
		},
	}
	f.register(c)
	c.Flags().DurationVar(&timeout, "timeout", hookproto.DefaultTimeout, "answer with a block if no decision is reached within this time")
	c.Flags().BoolVar(&ignoreHostMode, "ignore-host-mode", false, "ignore the permission_mode the host sends; use the settings' defaultMode or --mode")
	c.Flags().StringVar(&destination, "destination", "local", "settings destination named in the 'permopa rules add' advice (local, project, user)")
	c.Flags().BoolVar(&trace, "trace", false, "print the time each phase takes to stderr")
	c.Flags().StringVar(&server, "server", "", "ask a running 'permopa run --server' at this address (unix:///path/permopa.sock or http://127.0.0.1:8181); default $"+hookproto.EnvServer)
	c.Flags().BoolVar(&serverRequired, "server-required", false, "block when the server cannot be reached instead of deciding locally (also $"+hookproto.EnvServerRequired+"=1)")
	c.Flags().DurationVar(&serverTimeout, "server-timeout", hookproto.DefaultServerTimeout, "block when the server gives no answer within this time")
	c.Flags().StringVar(&logFile, "log", "", logFlagUsage)
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		fmt.Fprintf(c.ErrOrStderr(), "permopa hook: %v; blocking\n", err)
		return exitCode(2)
	})
	return c
}

// localOnly names the first flag that only the local path can honour
// (settings files, bundles, policy files), or "".
func (f *engineFlags) localOnly() string {
	switch {
	case len(f.settings) > 0:
		return "--settings"
	case len(f.bundles) > 0:
		return "--bundle"
	case len(f.policies) > 0:
		return "--policy"
	}
	return ""
}

// hookEngine builds the engine for a hook call made in cwd
// (adapter.NewHookEngine): the cwd's settings layers with the command
// line's files first, --mode as the default mode, and the bundles and
// policies flags; settings problems it decides without go to stderr. With
// explain, the engine also evaluates the policy's explanation.
func (f *engineFlags) hookEngine(ctx context.Context, cwd, home string, stderr io.Writer, explain bool) (*engine.Engine, error) {
	return adapter.NewHookEngine(ctx, cwd, home, adapter.HookEngineOptions{
		Settings: f.proc.paths(f.settings), Bundles: f.proc.paths(f.bundles), Policies: f.proc.paths(f.policies),
		Mode: f.mode, Timeout: f.timeout, Concurrent: f.concurrent, Stderr: stderr,
		Environ: f.proc.Environ, Explain: explain,
	})
}

// sinceProcessStart is the time since the process started, in ms, from
// /proc (Linux; 10 ms resolution), or -1 when unknown.
func sinceProcessStart() float64 {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return -1
	}
	// Field 22 (starttime, clock ticks since boot) follows the ")" of the command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return -1
	}
	ticks, err := strconv.ParseFloat(f[19], 64)
	if err != nil {
		return -1
	}
	up, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return -1
	}
	uf := strings.Fields(string(up))
	if len(uf) == 0 {
		return -1
	}
	uptime, err := strconv.ParseFloat(uf[0], 64)
	if err != nil {
		return -1
	}
	return (uptime - ticks/100) * 1000
}
