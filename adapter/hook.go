package adapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/engine"
)

// Agent hosts whose hook protocols RunHook speaks (hookproto has the
// protocols themselves, without OPA).
const (
	HostClaude = hookproto.HostClaude // Claude Code: PreToolUse and PermissionRequest
	HostCodex  = hookproto.HostCodex  // OpenAI Codex: PreToolUse and PermissionRequest
	HostGemini = hookproto.HostGemini // Gemini CLI: BeforeTool
)

// Hook events permopa answers.
const (
	EventPreToolUse        = hookproto.EventPreToolUse
	EventPermissionRequest = hookproto.EventPermissionRequest
	EventBeforeTool        = hookproto.EventBeforeTool // Gemini CLI
)

// Hosts lists the hosts RunHook accepts.
var Hosts = hookproto.Hosts

// DefaultHookTimeout bounds a hook's whole answer: reading stdin, loading
// settings, compiling the policy (or asking the server) and deciding.
const DefaultHookTimeout = hookproto.DefaultTimeout

// HookAnswer is what a hook process prints and how it exits.
type HookAnswer = hookproto.Answer

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
	// Timeout bounds the whole run (0: DefaultHookTimeout). Past it the hook
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
	OnDecided func(input map[string]any, d hookproto.Decision)
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
	local := func(ctx context.Context, req hookproto.Request, tr *hookproto.Tracer) ([]hookproto.Decision, error) {
		return decideLocally(ctx, req, opts, tr)
	}
	decide := local
	if opts.Server != "" {
		client, err := hookproto.NewClient(opts.Server, opts.ServerTimeout)
		if err != nil {
			decide = func(context.Context, hookproto.Request, *hookproto.Tracer) ([]hookproto.Decision, error) {
				return nil, err
			}
		} else {
			note := opts.Stderr
			if note == nil {
				note = stderr
			}
			decide = func(ctx context.Context, req hookproto.Request, tr *hookproto.Tracer) ([]hookproto.Decision, error) {
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
		decide = func(ctx context.Context, req hookproto.Request, tr *hookproto.Tracer) ([]hookproto.Decision, error) {
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
	})
}

// observeDecided hands each call and its decision to observe; a panic in
// it does not reach the answer.
func observeDecided(observe func(map[string]any, hookproto.Decision), inputs []map[string]any, ds []hookproto.Decision) {
	defer func() { _ = recover() }()
	for i, in := range inputs {
		observe(in, ds[i])
	}
}

// decideLocally builds the engine for the payload's cwd and decides.
func decideLocally(ctx context.Context, req hookproto.Request, opts HookOptions, tr *hookproto.Tracer) ([]hookproto.Decision, error) {
	if opts.Engine == nil {
		return nil, errors.New("no engine configured")
	}
	eng, err := opts.Engine(ctx, req.Cwd)
	tr.Phase("engine")
	if err != nil {
		return nil, fmt.Errorf("cannot load the policy or settings: %v", err)
	}
	ds := make([]hookproto.Decision, 0, len(req.Inputs))
	for _, in := range req.Inputs {
		ds = append(ds, HookDecision(eng.Decide(ctx, in)))
	}
	return ds, nil
}

// HookDecision is d in the form the hook protocols answer from (the same
// fields as its JSON, which a server sends).
func HookDecision(d engine.Decision) hookproto.Decision {
	out := hookproto.Decision{
		Behavior:     d.Behavior,
		Message:      d.Message,
		Reason:       d.Reason,
		Step:         d.Step,
		BypassImmune: d.BypassImmune,
		ToolUseID:    d.ToolUseID,
		Code:         d.Code,
	}
	if d.MatchedRule != nil {
		r := hookRule(*d.MatchedRule)
		out.MatchedRule = &r
	}
	for _, r := range d.SuggestedRules {
		out.SuggestedRules = append(out.SuggestedRules, hookRule(r))
	}
	return out
}

func hookRule(r engine.Rule) hookproto.Rule {
	return hookproto.Rule{ToolName: r.ToolName, RuleContent: r.RuleContent, Behavior: r.Behavior, Source: r.Source, Layer: r.Layer, Expires: r.Expires}
}

// HookReason is the text a host shows for a decision: the message, the
// decision point, and the rule with the layer it came from.
func HookReason(d engine.Decision) string { return hookproto.Reason(HookDecision(d)) }

// ApproveCommand is the `permopa rules add` command that accepts a
// decision's suggested rules into the settings of project (the call's cwd,
// whose settings the hooks read), or "" when there is none.
func ApproveCommand(d engine.Decision, destination, project string) string {
	return hookproto.ApproveCommand(HookDecision(d), destination, project)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return hookproto.ShellQuote(s) }

// HookInputs translates a host's hook payload into the permopa inputs the
// hook decides (one per call; a Codex patch gives one per file), for
// `permopa explain --host`.
func HookInputs(host string, payload map[string]any) ([]map[string]any, error) {
	return hookproto.Inputs(host, payload)
}
