package opaplugin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/server/authorizer"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// RouteHookClaude answers Claude Code's http hooks ("type": "http",
// docs/hosts.md): the body is the PreToolUse or PermissionRequest payload a
// command hook reads on stdin, the answer is what `permopa hook claude`
// prints for it, so the hook costs one HTTP request instead of a process.
const RouteHookClaude = "POST " + HookClaudePath

// HookClaudePath is the path of RouteHookClaude.
const HookClaudePath = "/v1/permission/hook/claude"

// hookQueryKeys are the query parameters the hook route takes: the
// options a hook command takes as flags (`permopa hook claude --destination
// user`), since Claude Code's http hook has only its URL.
var hookQueryKeys = []string{"destination", "mode", "ignore_host_mode"}

// serveHookClaude decides a Claude Code hook payload as a check does (the
// same pools, deadline, decision log and confirmable ASKs) and answers as
// hookproto.Run answers `permopa hook claude --server`: the same decision,
// reason and suggestions, byte for byte. Every fault is a 200 whose body
// blocks the call (hookAnswer): Claude Code reads a non-2xx answer as a
// failed hook, which lets the call through unless the hook has
// "onFailure": "block".
func (p *Plugin) serveHookClaude(w http.ResponseWriter, r *http.Request) {
	cfg := p.cfg.Load()
	proto := hookproto.For(hookproto.HostClaude)
	if !jsonContentType(r) {
		refuseHook(w, r, cfg, unsupportedMedia(r))
		return
	}
	opts, err := hookOptions(r.URL.Query())
	if err != nil {
		refuseHook(w, r, cfg, refusal(permission.CodeInvalidRequest, err.Error()))
		return
	}
	started := time.Now()
	ctx, cancel := context.WithTimeout(r.Context(), cfg.Timeout())
	defer cancel()
	// As for a check, a slot is taken before the body is read.
	release, busy := p.checkSlot(ctx, cfg, r.ContentLength)
	if busy != nil {
		id := decisionlog.NewDecisionID()
		busy.DecisionID = id
		p.logDecision(r, nil, cfg, map[string]any{}, *busy, metrics.New(), started, id)
		writeHookAnswer(w, proto.Fail(peekEvent(r, cfg.MaxBodyBytes), busy.Message))
		return
	}
	// The slot is given to the first evaluation, or back here: exactly once.
	var slot atomic.Pointer[func()]
	slot.Store(&release)
	take := func() func() {
		if f := slot.Swap(nil); f != nil {
			return *f
		}
		return nil
	}
	defer func() {
		if f := take(); f != nil {
			f()
		}
	}()
	// The payload goes to hookproto.Run as read, so that a payload it
	// cannot read gets the command hook's answer; system.authz has read it
	// already when it judges the request.
	var raw []byte
	if v, ok := authorizer.GetBodyOnContext(r.Context()); ok {
		if raw, err = json.Marshal(v); err == nil && int64(len(raw)) > cfg.MaxBodyBytes {
			err = fmt.Errorf("request body is over %d bytes (plugins.permopa.max_body_bytes)", cfg.MaxBodyBytes)
		}
	} else if b, aerr := readRawBody(w, r, cfg.MaxBodyBytes); aerr != nil {
		err = aerr
	} else {
		raw = b
	}
	if err != nil {
		writeHookAnswer(w, proto.Fail("", err.Error()))
		return
	}
	opts.Timeout = cfg.Timeout()
	opts.Decide = func(ctx context.Context, req hookproto.Request, _ *hookproto.Tracer) ([]permission.Decision, error) {
		ds := make([]permission.Decision, 0, len(req.Inputs))
		for _, in := range req.Inputs {
			rel := take()
			if rel == nil {
				// A payload of several calls (not Claude Code's): each
				// holds a slot of its own.
				var busy *permission.Decision
				if rel, busy = p.checkSlot(ctx, cfg, r.ContentLength); busy != nil {
					ds = append(ds, *busy)
					continue
				}
			}
			d, err := p.evaluate(ctx, r, cfg, in, decisionlog.NewDecisionID(), started, rel)
			if err != nil {
				return nil, err
			}
			ds = append(ds, d)
		}
		return ds, nil
	}
	var out, errOut bytes.Buffer
	code := hookproto.Run(ctx, hookproto.HostClaude, bytes.NewReader(raw), &out, &errOut, opts)
	writeHookAnswer(w, hookproto.Answer{Stdout: out.Bytes(), Stderr: strings.TrimSpace(errOut.String()), Exit: code})
}

// hookOptions reads the route's query: destination (local, project or
// user: where the approve command an ASK names writes), mode (the mode of
// payloads that name none) and ignore_host_mode. Anything else is an
// error, so that a misspelt option is not silently dropped.
func hookOptions(q url.Values) (hookproto.RunOptions, error) {
	var o hookproto.RunOptions
	for k, v := range q {
		known := false
		for _, want := range hookQueryKeys {
			known = known || k == want
		}
		if !known {
			return o, fmt.Errorf("query parameter %q: unknown (want %s)", k, strings.Join(hookQueryKeys, ", "))
		}
		if len(v) != 1 {
			return o, fmt.Errorf("query parameter %q: given %d times", k, len(v))
		}
	}
	if d := q.Get("destination"); d != "" {
		switch d {
		case settings.DestinationLocal, settings.DestinationProject, settings.DestinationUser:
		default:
			return o, fmt.Errorf("query parameter destination: %q is not local, project or user", d)
		}
		o.Answer.Destination = d
	}
	o.Mode = q.Get("mode")
	if s := q.Get("ignore_host_mode"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return o, fmt.Errorf("query parameter ignore_host_mode: %q is not true or false", s)
		}
		o.IgnoreHostMode = b
	}
	return o, nil
}

// isHookPath says whether a request is for the hook route, whose refusals
// are answers that block (refuseHook).
func isHookPath(r *http.Request) bool {
	return r.Method == http.MethodPost && r.URL.Path == HookClaudePath
}

// refuseHook answers a refused hook request (a foreign Host or Origin, a
// bad token, a body that is not JSON) with a block that names the
// refusal: the request is not decided, and Claude Code, which would read
// a 403 as a failed hook, blocks the call.
func refuseHook(w http.ResponseWriter, r *http.Request, cfg *Config, e *permission.Error) {
	msg := fmt.Sprintf("the permopa server refused the hook request (%d %s): %s", e.HTTPStatus(), e.Code, e.Message)
	writeHookAnswer(w, hookproto.For(hookproto.HostClaude).Fail(peekEvent(r, cfg.MaxBodyBytes), msg))
}

// peekEvent is the hook_event_name of a request body that is not decided,
// so that the blocking answer has that event's shape ("" when unknown).
func peekEvent(r *http.Request, max int64) string {
	var p struct {
		Event string `json:"hook_event_name"`
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, max))
	if err == nil {
		_ = json.Unmarshal(raw, &p)
	}
	switch p.Event {
	case hookproto.EventPreToolUse, hookproto.EventPermissionRequest:
		return p.Event
	}
	return ""
}

// writeHookAnswer writes a hook answer as Claude Code reads an http hook's
// response: always 200, the body what the command hook prints on stdout.
// An answer that is an exit status 2 (an event permopa does not answer)
// has no stdout to send: it is sent as the block Claude Code's JSON
// output has for every event ("decision": "block") with the reason.
func writeHookAnswer(w http.ResponseWriter, a hookproto.Answer) {
	body := a.Stdout
	if a.Exit != 0 {
		reason := a.Stderr
		if reason == "" {
			reason = "permopa blocked this call"
		}
		b, err := json.Marshal(map[string]any{"decision": "block", "reason": reason})
		if err != nil {
			b = []byte(`{"decision":"block","reason":"permopa blocked this call"}`)
		}
		body = append(b, '\n')
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
