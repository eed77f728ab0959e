// Command permopa-hook-local answers an agent host's permission hook
// (Claude Code, Codex, Gemini CLI) by deciding locally, as `permopa hook`
// does without a server, in a binary that links only what a local decision
// needs: the engine with the embedded policy and the built-ins, the
// settings layers and the hook protocols. No OPA command line, no server,
// no bundle downloads or plugins, so the process starts in a fraction of
// the time the full permopa binary takes (BENCHMARKS.md, "Hooks").
//
//	permopa-hook-local claude|codex|gemini [--mode M] [--destination D] [--timeout T] [--ignore-host-mode] [--trace] [--log FILE]
//
// permopa-hook runs it when no permopa server answers (docs/hosts.md,
// "Fast path"); it never asks a server itself. `permopa-hook-local
// --hook-client <args>` is permopa-hook's slow path (adapter/hookclient),
// which permopa-hook execs for what it does not answer itself. The settings are those of
// `permopa hook` (the payload's cwd's .permopa files, the user's, managed,
// PERMOPA_* variables), read and decided by the same code
// (adapter.NewHookEngine, adapter.RunHook), so it answers exactly as
// `permopa hook <host>` does with PERMOPA_SERVER= set. It never fails
// open: a bad command line, unreadable or empty input, a settings file
// that cannot be read, a policy that does not compile or the timeout is a
// block (a deny in the host's JSON, or exit 2), never exit 1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/adapter/hookclient"
	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/internal/hookwire"
	"github.com/permopa/permopa/permission"
)

func main() {
	// A process that compiles the policy once and exits: the collector's
	// cycles at the default 4 MB heap goal cost more CPU than the ~16 MB
	// the process then holds at most (BENCHMARKS.md, "Hooks"). A GOGC
	// in the environment still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if len(os.Args) > 1 && os.Args[1] == "--serve" {
		// The hook server permopa-hook starts (serve.go).
		os.Exit(serve(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == hookwire.SlowPathArg {
		// permopa-hook's slow path, which permopa-hook execs for what it
		// does not answer itself (adapter/hookclient).
		os.Exit(hookclient.Main(os.Args[2:]))
	}
	opts, host, logFile, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "permopa-hook-local: %v; blocking\n", err)
		os.Exit(2)
	}
	log := openLog(logFile, "hook "+host, &opts, os.Stderr)
	code := adapter.RunHook(context.Background(), host, os.Stdin, os.Stdout, os.Stderr, opts)
	log.Close()
	os.Exit(code)
}

// openLog opens --log (docs/replay.md): one decision log event per call,
// written as `permopa hook --log` writes them. A log that cannot be
// written is said in the answer (opts.Notice, once per log path) and on
// stderr; it never changes a decision.
func openLog(path, source string, opts *adapter.HookOptions, stderr io.Writer) *decisionlog.Writer {
	if path == "" {
		return nil
	}
	w, err := decisionlog.Open(path, decisionlog.WriterOptions{Source: source})
	return useLog(path, w, err, opts, stderr)
}

// useLog logs each call of opts to w, the log at path (nil: err says why
// it could not be opened), and says err as openLog does.
func useLog(path string, w *decisionlog.Writer, err error, opts *adapter.HookOptions, stderr io.Writer) *decisionlog.Writer {
	if err != nil {
		fmt.Fprintf(stderr, "permopa-hook-local: %v (calls are decided all the same)\n", err)
	}
	if w == nil {
		opts.Notice = decisionlog.FailureNotice(path, err, decisionlog.UserCacheDir())
		return nil
	}
	decisionlog.ClearFailureNotice(path, decisionlog.UserCacheDir())
	opts.OnDecided = func(input map[string]any, d permission.Decision) {
		if err := w.Log(input, d); err != nil {
			fmt.Fprintf(stderr, "permopa-hook-local: %v (calls are decided all the same)\n", err)
		}
	}
	return w
}

// parseArgs reads the command line: the host, before or after the flags
// permopa-hook passes on.
func parseArgs(args []string) (adapter.HookOptions, string, string, error) {
	opts, host, logFile, err := parseFlags(args)
	if err != nil {
		return opts, host, logFile, err
	}
	home, _ := os.UserHomeDir()
	mode := opts.Mode
	opts.Engine = func(ctx context.Context, cwd string) (*engine.Engine, error) {
		return adapter.NewHookEngine(ctx, cwd, home, adapter.HookEngineOptions{Mode: mode})
	}
	return opts, host, logFile, nil
}

// parseFlags reads the command line, leaving opts.Engine to the caller (a
// process or the hook server, which also points opts.Trace, os.Stderr when
// --trace is given, at the answer's stderr).
func parseFlags(args []string) (adapter.HookOptions, string, string, error) {
	var (
		opts    adapter.HookOptions
		trace   bool
		logFile string
	)
	fs := flag.NewFlagSet("permopa-hook-local", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.DurationVar(&opts.Timeout, "timeout", hookproto.DefaultTimeout, "block when no answer is reached within this time")
	fs.BoolVar(&opts.IgnoreHostMode, "ignore-host-mode", false, "ignore the permission_mode the host sends")
	fs.StringVar(&opts.Destination, "destination", "local", "settings destination named in approval advice")
	fs.StringVar(&opts.Mode, "mode", "", "mode for calls that name none")
	fs.BoolVar(&trace, "trace", false, "print the time each phase takes to stderr")
	fs.StringVar(&logFile, "log", "", "append one decision log event per call to this file, as `permopa hook --log` (docs/replay.md)")
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return opts, "", "", err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) != 1 {
		return opts, "", "", errors.New("want one host: claude, codex or gemini")
	}
	if trace {
		opts.Trace = os.Stderr
	}
	return opts, positional[0], logFile, nil
}
