package hookproto

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/permopa/permopa/internal/hookwire"
	"github.com/permopa/permopa/permission"
)

// DefaultTimeout bounds a hook's whole answer: reading stdin, deciding (a
// policy compile or a server's answer) and answering.
const DefaultTimeout = hookwire.DefaultTimeout

// Decider decides every input of req, in order. An error blocks the call
// (the host gets a deny naming it), except an *UnreachableError when the
// run has an OnUnreachable handler.
type Decider func(ctx context.Context, req Request, tr *Tracer) ([]permission.Decision, error)

// RunOptions configure Run.
type RunOptions struct {
	// Decide decides the calls of the payload.
	Decide Decider
	// Timeout bounds the whole run (0: DefaultTimeout). Past it the hook
	// answers with a block.
	Timeout time.Duration
	// IgnoreHostMode drops the permission_mode the host sends, so that
	// Mode or the settings' default mode applies.
	IgnoreHostMode bool
	// Mode is the host mode for payloads that name none (--mode), read
	// with the host's mode table (ResolveMode).
	Mode string
	// Answer shapes the host's answer.
	Answer Options
	// OnUnreachable, when set, handles a Decide error that is an
	// *UnreachableError: it gets the payload as read from stdin and returns
	// the answer to give (another decider's), or an error that blocks.
	OnUnreachable func(ctx context.Context, payload []byte, err error) (Answer, error)
	// Trace, when set, receives the time each phase took.
	Trace io.Writer
	// Notice, when set, is shown to the host's user with the answer
	// (Answer.WithNotice): a decision log that cannot be written.
	Notice string
	// Decoded, when set, is stdin's payload as DecodePayload read it
	// already (the hook server's): it is not decoded again.
	Decoded map[string]any
}

// Tracer writes phase timings (nothing when it or its writer is nil).
type Tracer struct {
	w    io.Writer
	last time.Time
}

// NewTracer starts timing phases on w (nil: no output).
func NewTracer(w io.Writer) *Tracer { return &Tracer{w: w, last: time.Now()} }

// Phase reports the time since the previous phase under name.
func (t *Tracer) Phase(name string) {
	if t == nil || t.w == nil {
		return
	}
	now := time.Now()
	fmt.Fprintf(t.w, "permopa trace: %-8s %8.2f ms\n", name, float64(now.Sub(t.last).Microseconds())/1000)
	t.last = now
}

// Run answers one hook invocation of host: it reads the payload on stdin,
// has opts.Decide decide every call in it, and writes the host's answer for
// the strictest decision. It returns the exit code. Every fault (unreadable
// or empty input, an unknown event, a Decide error, a decision without a
// known behavior, a panic, the timeout) is a blocking answer: a deny in the
// host's JSON, or exit 2 with the reason on stderr. It never returns 1 and
// never answers a fault with silence.
func Run(ctx context.Context, host string, stdin io.Reader, stdout, stderr io.Writer, opts RunOptions) int {
	proto := For(host)
	if proto == nil {
		fmt.Fprintf(stderr, "permopa: %s; blocking\n", UnknownHost(host))
		return 2
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()

	done := make(chan Answer, 1)
	// event is known once the payload is parsed; the timeout answer uses it.
	eventCh := make(chan string, 1)
	tr := NewTracer(opts.Trace)
	go func() {
		event := ""
		defer func() {
			if r := recover(); r != nil {
				done <- proto.Fail(event, fmt.Sprintf("internal error: %v", r))
			}
		}()
		data, err := io.ReadAll(io.LimitReader(stdin, MaxPayload+1))
		tr.Phase("read")
		if err != nil {
			done <- proto.Fail("", fmt.Sprintf("cannot read the hook payload: %v", err))
			return
		}
		var req Request
		if opts.Decoded != nil {
			req, err = ParseDecoded(proto, opts.Decoded)
		} else {
			req, err = ParsePayload(proto, data)
		}
		tr.Phase("parse")
		event = req.Event
		eventCh <- event
		if err != nil {
			done <- proto.Fail(event, err.Error())
			return
		}
		done <- decide(ctx, host, proto, req, data, opts, tr)
	}()

	var ans Answer
	select {
	case ans = <-done:
	case <-ctx.Done():
		event := ""
		select {
		case event = <-eventCh:
		default:
		}
		ans = proto.Fail(event, fmt.Sprintf("no decision within %s (%v)", opts.Timeout, ctx.Err()))
	}
	return ans.WithNotice(opts.Notice).Write(stdout, stderr)
}

func decide(ctx context.Context, host string, proto Protocol, req Request, payload []byte, opts RunOptions, tr *Tracer) Answer {
	if opts.Decide == nil {
		return proto.Fail(req.Event, "no decider configured")
	}
	hm := ResolveMode(host, req.Mode, opts.Mode, opts.IgnoreHostMode)
	applyMode(req, hm)
	ds, err := opts.Decide(ctx, req, tr)
	var unreachable *UnreachableError
	if err != nil && opts.OnUnreachable != nil && errors.As(err, &unreachable) {
		ans, err := opts.OnUnreachable(ctx, payload, err)
		if err != nil {
			return proto.Fail(req.Event, err.Error())
		}
		return ans
	}
	if err != nil {
		return proto.Fail(req.Event, err.Error())
	}
	if len(ds) != len(req.Inputs) {
		return proto.Fail(req.Event, fmt.Sprintf("%d decisions for %d calls", len(ds), len(req.Inputs)))
	}
	d := Combine(req.Inputs, ds)
	tr.Phase("decide")
	if d.Step == permission.StepError && d.Code == permission.CodeTimeout {
		return proto.Fail(req.Event, d.Message)
	}
	return proto.Answer(req, Shape(hm, req.Event, d), opts.Answer)
}
