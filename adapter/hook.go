package adapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
)

// HookOptions configure RunHook.
type HookOptions struct {
	// Engine builds the engine that decides, given the payload's cwd ("" when
	// the payload names none). It is called once per hook run, and not at
	// all when a Server answers.
	Engine func(ctx context.Context, cwd string) (*engine.Engine, error)
	// Server, when set, is a running `permopa run --server` to ask instead
	// (hookproto.NewClient: unix:///path.sock or http://host:port). A server
	// that cannot be connected to at all is skipped and Engine decides,
	// unless ServerRequired; any other server fault blocks.
	Server string
	// ServerRequired makes an unreachable Server block.
	ServerRequired bool
	// ServerTimeout bounds each server answer (0: hookproto.DefaultServerTimeout).
	ServerTimeout time.Duration
	// Mode is the host mode for payloads that name none (--mode; Gemini
	// CLI's), read with the host's mode table (hookproto.ResolveMode).
	Mode string
	// Timeout bounds the whole run (0: hookproto.DefaultTimeout). Past it the hook
	// answers with a block.
	Timeout time.Duration
	// IgnoreHostMode drops the permission_mode the host sends, so that the
	// settings' default mode (or --mode) applies.
	IgnoreHostMode bool
	// Destination is the settings destination named in the approve command
	// printed when a host cannot ask (default "local").
	Destination string
	// Trace, when set, receives the time each phase took (read, parse,
	// engine or server, decide), for measuring the cold path.
	Trace io.Writer
	// Stderr receives notes that are not the answer (a server that could
	// not be reached); nil: os.Stderr.
	Stderr io.Writer
	// OnDecided, when set, sees each call decided and its decision (the
	// server's or the local engine's), before the answer is written:
	// `permopa hook --log` logs them. It cannot change the answer.
	OnDecided func(input map[string]any, d permission.Decision)
	// Notice, when set, is shown to the host's user with the answer
	// (hookproto.RunOptions.Notice).
	Notice string
	// Decoded, when set, is stdin's payload already decoded
	// (hookproto.RunOptions.Decoded): the hook server's, read once.
	Decoded map[string]any
}

// RunHook answers one hook invocation of host: it reads the payload on
// stdin, decides every call in it (through opts.Server when set and
// reachable, else with the engine opts.Engine builds for the payload's
// cwd), and writes the host's answer. It returns the exit code. Every fault
// (unreadable or empty input, an unknown event, an engine that cannot be
// built, a server error, a panic, the timeout) is a blocking answer: a deny
// in the host's JSON, or exit 2 with the reason on stderr. It never returns
// 1 and never answers a fault with silence.
func RunHook(ctx context.Context, host string, stdin io.Reader, stdout, stderr io.Writer, opts HookOptions) int {
	local := func(ctx context.Context, req hookproto.Request, tr *hookproto.Tracer) ([]permission.Decision, error) {
		return decideLocally(ctx, req, opts, tr)
	}
	decide := local
	if opts.Server != "" {
		client, err := hookproto.NewClient(opts.Server, opts.ServerTimeout)
		if err != nil {
			decide = func(context.Context, hookproto.Request, *hookproto.Tracer) ([]permission.Decision, error) {
				return nil, err
			}
		} else {
			note := opts.Stderr
			if note == nil {
				note = stderr
			}
			decide = func(ctx context.Context, req hookproto.Request, tr *hookproto.Tracer) ([]permission.Decision, error) {
				ds, err := client.Decide(ctx, hookproto.WithMode(req, opts.Mode))
				tr.Phase("server")
				var unreachable *hookproto.UnreachableError
				if err != nil && errors.As(err, &unreachable) && !opts.ServerRequired {
					fmt.Fprintf(note, "permopa: %v; deciding locally\n", err)
					return local(ctx, req, tr)
				}
				return ds, err
			}
		}
	}
	if opts.OnDecided != nil {
		inner := decide
		decide = func(ctx context.Context, req hookproto.Request, tr *hookproto.Tracer) ([]permission.Decision, error) {
			ds, err := inner(ctx, req, tr)
			if err == nil && len(ds) == len(req.Inputs) {
				observeDecided(opts.OnDecided, req.Inputs, ds)
			}
			return ds, err
		}
	}
	return hookproto.Run(ctx, host, stdin, stdout, stderr, hookproto.RunOptions{
		Decide:         decide,
		Timeout:        opts.Timeout,
		IgnoreHostMode: opts.IgnoreHostMode,
		Mode:           opts.Mode,
		Answer:         hookproto.Options{Destination: opts.Destination},
		Trace:          opts.Trace,
		Notice:         opts.Notice,
		Decoded:        opts.Decoded,
	})
}

// observeDecided hands each call and its decision to observe; a panic in
// it does not reach the answer.
func observeDecided(observe func(map[string]any, permission.Decision), inputs []map[string]any, ds []permission.Decision) {
	defer func() { _ = recover() }()
	for i, in := range inputs {
		observe(in, ds[i])
	}
}

// decideLocally builds the engine for the payload's cwd and decides.
func decideLocally(ctx context.Context, req hookproto.Request, opts HookOptions, tr *hookproto.Tracer) ([]permission.Decision, error) {
	if opts.Engine == nil {
		return nil, errors.New("no engine configured")
	}
	eng, err := opts.Engine(ctx, req.Cwd)
	tr.Phase("engine")
	if err != nil {
		return nil, fmt.Errorf("cannot load the policy or settings: %v", err)
	}
	ds := make([]permission.Decision, 0, len(req.Inputs))
	for _, in := range req.Inputs {
		ds = append(ds, eng.Decide(ctx, in))
	}
	return ds, nil
}
