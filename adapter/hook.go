package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/permopa/permopa/engine"
)

// Agent hosts whose hook protocols RunHook speaks.
const (
	HostClaude = "claude" // Claude Code: PreToolUse and PermissionRequest
	HostCodex  = "codex"  // OpenAI Codex: PreToolUse and PermissionRequest
	HostGemini = "gemini" // Gemini CLI: BeforeTool
)

// Hosts lists the hosts RunHook accepts.
var Hosts = []string{HostClaude, HostCodex, HostGemini}

// DefaultHookTimeout bounds a hook's whole answer: reading stdin, loading
// settings, compiling the policy and deciding.
const DefaultHookTimeout = 5 * time.Second

// maxHookPayload caps what a hook reads from stdin; a larger payload is refused.
const maxHookPayload = 16 << 20

// HookOptions configure RunHook.
type HookOptions struct {
	// Engine builds the engine that decides, given the payload's cwd ("" when
	// the payload names none). It is called once per hook run.
	Engine func(ctx context.Context, cwd string) (*engine.Engine, error)
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
	// engine, decide), for measuring the cold path.
	Trace io.Writer
}

// tracer writes phase timings to w (nothing when w is nil).
type tracer struct {
	w    io.Writer
	last time.Time
}

func (t *tracer) phase(name string) {
	if t == nil || t.w == nil {
		return
	}
	now := time.Now()
	fmt.Fprintf(t.w, "permopa trace: %-8s %8.2f ms\n", name, float64(now.Sub(t.last).Microseconds())/1000)
	t.last = now
}

// HookAnswer is what a hook process prints and how it exits.
type HookAnswer struct {
	Stdout []byte
	Stderr string
	Exit   int
}

// hookRequest is a parsed hook payload: the event, the cwd and the permopa
// inputs to decide (one per call; a Codex patch touching several files is
// several Write/Edit inputs, and the strictest decision answers).
type hookRequest struct {
	Event  string
	Cwd    string
	Inputs []map[string]any
}

// hookProtocol is one host's hook protocol: pure translations between the
// host's JSON and permopa's input and decision.
type hookProtocol interface {
	parse(payload map[string]any) (hookRequest, error)
	answer(req hookRequest, d engine.Decision, opts HookOptions) HookAnswer
	// fail is the blocking answer for any fault; event may be "" when the
	// payload could not be read.
	fail(event, reason string) HookAnswer
}

func protocolFor(host string) hookProtocol {
	switch strings.ToLower(host) {
	case HostClaude, "claude-code", "claudecode":
		return claudeProtocol{}
	case HostCodex:
		return codexProtocol{}
	case HostGemini, "gemini-cli":
		return geminiProtocol{}
	}
	return nil
}

// RunHook answers one hook invocation of host: it reads the payload on
// stdin, decides every call in it with the engine opts.Engine builds for
// the payload's cwd, and writes the host's answer. It returns the exit
// code. Every fault (unreadable or empty input, an unknown event, an engine
// that cannot be built, a panic, the timeout) is a blocking answer: a deny
// in the host's JSON, or exit 2 with the reason on stderr. It never returns
// 1 and never answers a fault with silence.
func RunHook(ctx context.Context, host string, stdin io.Reader, stdout, stderr io.Writer, opts HookOptions) int {
	proto := protocolFor(host)
	if proto == nil {
		fmt.Fprintf(stderr, "permopa: unknown hook host %q (want one of %s); blocking\n", host, strings.Join(Hosts, ", "))
		return 2
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultHookTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()

	type result struct {
		ans HookAnswer
	}
	done := make(chan result, 1)
	// event is known once the payload is parsed; the timeout answer uses it.
	eventCh := make(chan string, 1)
	tr := &tracer{w: opts.Trace, last: time.Now()}
	go func() {
		event := ""
		defer func() {
			if r := recover(); r != nil {
				done <- result{proto.fail(event, fmt.Sprintf("internal error: %v", r))}
			}
		}()
		data, err := io.ReadAll(io.LimitReader(stdin, maxHookPayload+1))
		tr.phase("read")
		if err != nil {
			done <- result{proto.fail("", fmt.Sprintf("cannot read the hook payload: %v", err))}
			return
		}
		req, err := parseHookPayload(proto, data)
		tr.phase("parse")
		event = req.Event
		eventCh <- event
		if err != nil {
			done <- result{proto.fail(event, err.Error())}
			return
		}
		done <- result{decideHook(ctx, proto, req, opts, tr)}
	}()

	var ans HookAnswer
	select {
	case r := <-done:
		ans = r.ans
	case <-ctx.Done():
		event := ""
		select {
		case event = <-eventCh:
		default:
		}
		ans = proto.fail(event, fmt.Sprintf("no decision within %s (%v)", opts.Timeout, ctx.Err()))
	}
	return writeAnswer(ans, stdout, stderr)
}

func writeAnswer(ans HookAnswer, stdout, stderr io.Writer) int {
	if len(ans.Stdout) > 0 {
		if _, err := stdout.Write(ans.Stdout); err != nil {
			fmt.Fprintf(stderr, "permopa: cannot write the answer (%v); blocking\n", err)
			return 2
		}
	}
	if ans.Stderr != "" {
		fmt.Fprintln(stderr, ans.Stderr)
	}
	return ans.Exit
}

func parseHookPayload(proto hookProtocol, data []byte) (hookRequest, error) {
	if len(data) > maxHookPayload {
		return hookRequest{}, fmt.Errorf("hook payload larger than %d bytes", maxHookPayload)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return hookRequest{}, errors.New("empty hook payload on stdin")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return hookRequest{}, fmt.Errorf("hook payload is not JSON: %v", err)
	}
	if dec.More() {
		return hookRequest{}, errors.New("hook payload has data after the JSON object")
	}
	payload, ok := v.(map[string]any)
	if !ok {
		return hookRequest{}, errors.New("hook payload is not a JSON object")
	}
	req, err := proto.parse(payload)
	if err != nil {
		return req, err
	}
	if len(req.Inputs) == 0 {
		return req, errors.New("hook payload has no tool call")
	}
	return req, nil
}

func decideHook(ctx context.Context, proto hookProtocol, req hookRequest, opts HookOptions, tr *tracer) HookAnswer {
	if opts.Engine == nil {
		return proto.fail(req.Event, "no engine configured")
	}
	eng, err := opts.Engine(ctx, req.Cwd)
	tr.phase("engine")
	if err != nil {
		return proto.fail(req.Event, fmt.Sprintf("cannot load the policy or settings: %v", err))
	}
	var decisions []engine.Decision
	for _, in := range req.Inputs {
		if opts.IgnoreHostMode {
			delete(in, "permission_mode")
		}
		decisions = append(decisions, eng.Decide(ctx, in))
	}
	d := strictest(decisions)
	tr.phase("decide")
	if d.Step == engine.StepError && d.Code == engine.CodeTimeout {
		return proto.fail(req.Event, d.Message)
	}
	return proto.answer(req, d, opts)
}

// strictest picks the decision that answers for several calls: the first
// DENY, else the first ASK, else the first ALLOW.
func strictest(ds []engine.Decision) engine.Decision {
	rank := map[string]int{engine.Deny: 3, engine.Ask: 2, engine.Allow: 1}
	best := -1
	for i, d := range ds {
		if best < 0 || rank[d.Behavior] > rank[ds[best].Behavior] {
			best = i
		}
	}
	if best < 0 {
		return engine.FailClosed(engine.CodeInputError, "no call to decide")
	}
	if rank[ds[best].Behavior] == 0 {
		return engine.FailClosed(engine.CodeBadDecision, fmt.Sprintf("decision with behavior %q", ds[best].Behavior))
	}
	return ds[best]
}

// HookReason is the text a host shows for a decision: the message, the
// decision point, and the rule with the layer it came from.
func HookReason(d engine.Decision) string {
	var b strings.Builder
	b.WriteString("permopa ")
	b.WriteString(d.Behavior)
	b.WriteString(": ")
	b.WriteString(strings.TrimSpace(d.Message))
	var facts []string
	if d.Step != "" {
		facts = append(facts, "step "+d.Step)
	}
	if r := d.MatchedRule; r != nil {
		rule := "rule " + r.String()
		if r.Layer != "" {
			rule += " from " + r.Layer
		}
		if r.Source != "" && r.Source != r.Layer {
			rule += " (" + r.Source + ")"
		}
		facts = append(facts, rule)
	}
	if d.Code != "" {
		facts = append(facts, "code "+d.Code)
	}
	if len(facts) > 0 {
		b.WriteString(" [")
		b.WriteString(strings.Join(facts, "; "))
		b.WriteString("]")
	}
	return b.String()
}

// ApproveCommand is the `permopa rules add` command that accepts a
// decision's suggested rules into the settings of project (the call's cwd,
// whose settings the hooks read), or "" when there is none.
func ApproveCommand(d engine.Decision, destination, project string) string {
	if destination == "" {
		destination = "local"
	}
	var rules []string
	seen := map[string]bool{}
	for _, r := range d.SuggestedRules {
		s := r.String()
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		rules = append(rules, shellQuote(s))
	}
	if len(rules) == 0 {
		return ""
	}
	cmd := "permopa rules add"
	if project != "" {
		cmd += " --project " + shellQuote(project)
	}
	return cmd + " --destination " + destination + " " + strings.Join(rules, " ")
}

// askAsBlock is the text for an ASK that the host cannot express: a block
// that tells the human how to approve.
func askAsBlock(d engine.Decision, hostName, project string, opts HookOptions) string {
	var b strings.Builder
	b.WriteString(HookReason(d))
	b.WriteString(". Blocked because ")
	b.WriteString(hostName)
	b.WriteString(" hooks cannot ask a human.")
	switch {
	case d.Step == engine.StepAskRule && d.MatchedRule != nil:
		b.WriteString(" The ask rule " + d.MatchedRule.String() + " requires a human every time, and allow rules do not override it; run the command yourself, or remove that ask rule.")
	case d.BypassImmune:
		b.WriteString(" This is a safety check that no rule can approve; run it yourself if it is intended.")
	default:
		if cmd := ApproveCommand(d, opts.Destination, project); cmd != "" {
			b.WriteString(" To approve it from now on, run: ")
			b.WriteString(cmd)
			b.WriteString(" , then retry.")
		} else {
			b.WriteString(" Add an allow rule with `permopa rules add` to approve it, then retry.")
		}
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func mustJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only unencodable values fail, and the answers are maps of strings.
		return []byte(`{"decision":"deny","reason":"permopa: internal error encoding the answer"}` + "\n")
	}
	return buf.Bytes()
}

// copyPayload is a shallow copy of a payload, for use as permopa input.
func copyPayload(p map[string]any) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := str(m, k); s != "" {
			return s
		}
	}
	return ""
}

// HookInputs translates a host's hook payload into the permopa inputs the
// hook decides (one per call; a Codex patch gives one per file), for
// `permopa explain --host`.
func HookInputs(host string, payload map[string]any) ([]map[string]any, error) {
	proto := protocolFor(host)
	if proto == nil {
		return nil, fmt.Errorf("unknown hook host %q (want one of %s)", host, strings.Join(Hosts, ", "))
	}
	req, err := proto.parse(payload)
	if err != nil {
		return nil, err
	}
	return req.Inputs, nil
}
