package hookproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/permopa/permopa/builtins/claudepattern"
	"github.com/permopa/permopa/internal/hookwire"
	"github.com/permopa/permopa/permission"
)

// Agent hosts whose hook protocols this package speaks.
const (
	HostClaude = "claude" // Claude Code: PreToolUse and PermissionRequest
	HostCodex  = "codex"  // OpenAI Codex: PreToolUse and PermissionRequest
	HostGemini = "gemini" // Gemini CLI: BeforeTool
)

// Hosts lists the hosts For accepts.
var Hosts = []string{HostClaude, HostCodex, HostGemini}

// Hook events answered.
const (
	EventPreToolUse        = "PreToolUse"
	EventPermissionRequest = "PermissionRequest"
	EventBeforeTool        = "BeforeTool" // Gemini CLI
)

// MaxPayload caps what a hook reads from stdin; a larger payload is refused.
const MaxPayload = hookwire.MaxPayload

// Answer is what a hook process prints and how it exits.
type Answer struct {
	Stdout []byte
	Stderr string
	Exit   int
}

// Write prints the answer and returns the exit code; an answer that cannot
// be written is a block (exit 2).
func (a Answer) Write(stdout, stderr io.Writer) int {
	if len(a.Stdout) > 0 {
		if _, err := stdout.Write(a.Stdout); err != nil {
			fmt.Fprintf(stderr, "permopa: cannot write the answer (%v); blocking\n", err)
			return 2
		}
	}
	if a.Stderr != "" {
		fmt.Fprintln(stderr, a.Stderr)
	}
	return a.Exit
}

// WithNotice is a with notice shown to the host's user as well: in a
// blocking answer (exit 2) on stderr after the reason, else as the JSON
// answer's systemMessage, which all three hosts show the user (an empty
// answer becomes {"systemMessage": notice}: no decision, and the note).
// It never changes the decision.
func (a Answer) WithNotice(notice string) Answer {
	if notice == "" {
		return a
	}
	if a.Exit != 0 {
		a.Stderr = strings.TrimLeft(a.Stderr+"\n"+notice, "\n")
		return a
	}
	if len(bytes.TrimSpace(a.Stdout)) == 0 {
		a.Stdout = mustJSON(map[string]any{"systemMessage": notice})
		return a
	}
	var obj map[string]any
	if err := json.Unmarshal(a.Stdout, &obj); err != nil || obj == nil {
		a.Stderr = strings.TrimLeft(a.Stderr+"\n"+notice, "\n")
		return a
	}
	if m, ok := obj["systemMessage"].(string); ok && m != "" {
		notice = m + "\n" + notice
	}
	obj["systemMessage"] = notice
	a.Stdout = mustJSON(obj)
	return a
}

// Request is a parsed hook payload: the event, the cwd and the permopa
// inputs to decide (one per call; a Codex patch touching several files is
// several Write/Edit inputs, and the strictest decision answers).
type Request struct {
	Event  string
	Cwd    string
	Inputs []map[string]any
	// Mode is the permission_mode the payload names ("" when none).
	Mode string
}

// Options shape the answers.
type Options struct {
	// Destination is the settings destination named in the approve command
	// printed when a host cannot ask (default "local").
	Destination string
}

// Protocol is one host's hook protocol: pure translations between the
// host's JSON and permopa's inputs and decision.
type Protocol interface {
	// Parse turns a payload into the calls to decide.
	Parse(payload map[string]any) (Request, error)
	// Answer is the host's answer for the verdict v on req (Shape of the
	// strictest decision in the payload's host mode).
	Answer(req Request, v Verdict, opts Options) Answer
	// Fail is the blocking answer for any fault; event may be "" when the
	// payload could not be read.
	Fail(event, reason string) Answer
}

// For returns host's protocol, or nil for a host it does not know.
func For(host string) Protocol {
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

// UnknownHost is the error text for a host For does not know.
func UnknownHost(host string) string {
	return fmt.Sprintf("unknown hook host %q (want one of %s)", host, strings.Join(Hosts, ", "))
}

// ParsePayload reads one hook payload: a single JSON object, which the
// protocol turns into at least one call.
func ParsePayload(proto Protocol, data []byte) (Request, error) {
	payload, err := DecodePayload(data)
	if err != nil {
		return Request{}, err
	}
	return ParseDecoded(proto, payload)
}

// DecodePayload is the first step of ParsePayload: the payload's JSON
// object (numbers as json.Number), or why it is none.
func DecodePayload(data []byte) (map[string]any, error) {
	if len(data) > MaxPayload {
		return nil, fmt.Errorf("hook payload larger than %d bytes", MaxPayload)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, errors.New("empty hook payload on stdin")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("hook payload is not JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("hook payload has data after the JSON object")
	}
	payload, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("hook payload is not a JSON object")
	}
	return payload, nil
}

// ParseDecoded is the rest of ParsePayload, for a payload DecodePayload
// read (the hook server looks at its cwd first): the protocol's calls.
// It keeps parts of payload in the calls; payload is not used again.
func ParseDecoded(proto Protocol, payload map[string]any) (Request, error) {
	req, err := proto.Parse(payload)
	if err != nil {
		return req, err
	}
	if found := projectSettingsEnv(protocolHost(proto), req.Cwd); len(found) > 0 {
		return req, settingsEnvError(found)
	}
	shellPerCall(req.Inputs)
	markProjectEnv(protocolHost(proto), req.Inputs)
	if len(req.Inputs) == 0 {
		return req, errors.New("hook payload has no tool call")
	}
	return req, nil
}

// Inputs translates a host's hook payload into the permopa inputs a hook
// decides (one per call; a Codex patch gives one per file).
func Inputs(host string, payload map[string]any) ([]map[string]any, error) {
	proto := For(host)
	if proto == nil {
		return nil, errors.New(UnknownHost(host))
	}
	req, err := proto.Parse(payload)
	if err != nil {
		return nil, err
	}
	shellPerCall(req.Inputs)
	markProjectEnv(host, req.Inputs)
	return req.Inputs, nil
}

// shellPerCall marks the Bash calls of a hook: Claude Code, Codex and
// Gemini CLI run each command in a shell of its own that ends with it,
// carrying at most the working directory to the next call, whose payload
// names it, and start that shell as bash -c with no words after the
// script (docs/hosts.md, "Shell state between calls";
// e2e/hosts/shellstate_test.go holds each host to both). The analysis then
// counts a state change nothing in the command sees after it as harmless,
// and the command's positional parameters as empty.
func shellPerCall(inputs []map[string]any) {
	for _, in := range inputs {
		if in["tool_name"] == "Bash" {
			in["shell_per_call"] = true
			in["positional_empty"] = true
		}
	}
}

// Strictest picks the decision that answers for several calls: the first
// DENY, else the first ASK, else the first ALLOW. No decision, or one
// without a known behavior, is a DENY.
func Strictest(ds []permission.Decision) permission.Decision {
	rank := map[string]int{permission.Deny: 3, permission.Ask: 2, permission.Allow: 1}
	best := -1
	for i, d := range ds {
		if !permission.ValidBehavior(d.Behavior) {
			return permission.FailClosed(permission.CodeBadDecision, fmt.Sprintf("decision with behavior %q", d.Behavior))
		}
		if best < 0 || rank[d.Behavior] > rank[ds[best].Behavior] {
			best = i
		}
	}
	if best < 0 {
		return permission.FailClosed(permission.CodeInputError, "no call to decide")
	}
	return ds[best]
}

// Combine is the decision that answers for several calls of one host call
// (a Codex patch gives one per file): the behavior of the strictest (DENY,
// then ASK, then ALLOW), and every finding of that behavior named, each
// with the file it is about, so that the human sees all of them at once
// and a retry does not meet the next one. The suggested rules are those of
// every finding together, and none when one of them no rule can approve
// (a safety check, an ask rule, a deny rule): accepting the others would
// not let the call through. inputs are the calls, in the order of ds.
func Combine(inputs []map[string]any, ds []permission.Decision) permission.Decision {
	d := Strictest(ds)
	if len(ds) <= 1 || d.Behavior == permission.Allow {
		return d
	}
	for _, x := range ds {
		if !permission.ValidBehavior(x.Behavior) {
			return d // Strictest failed closed
		}
	}
	var found []int
	for i, x := range ds {
		if x.Behavior == d.Behavior {
			found = append(found, i)
		}
	}
	if len(found) == 1 {
		// One finding among several calls: say which file it is about.
		out := ds[found[0]]
		out.Message = aboutFile(inputs, found[0], out.Message)
		return out
	}
	// The finding that decides how a host words the answer: one that no
	// rule can approve (a safety check, an ask rule) comes first.
	primary := found[0]
	for _, i := range found {
		if ds[i].BypassImmune || ds[i].Step == permission.StepAskRule || len(ds[i].SuggestedRules) == 0 {
			primary = i
			break
		}
	}
	out := ds[primary]
	var msgs []string
	var rules []permission.Rule
	seen := map[string]bool{}
	approvable := true
	for _, i := range found {
		x := ds[i]
		msgs = append(msgs, aboutFile(inputs, i, x.Message))
		out.BypassImmune = out.BypassImmune || x.BypassImmune
		if len(x.SuggestedRules) == 0 {
			approvable = false
		}
		for _, r := range x.SuggestedRules {
			if k := r.String() + " " + r.Behavior; !seen[k] {
				seen[k] = true
				rules = append(rules, r)
			}
		}
	}
	out.Message = fmt.Sprintf("%d findings: %s", len(found), strings.Join(msgs, "; "))
	out.SuggestedRules = nil
	if approvable {
		out.SuggestedRules = rules
	}
	return out
}

// aboutFile is the message of the decision on inputs[i], prefixed with the
// file or URL that call is about when the message does not name it.
func aboutFile(inputs []map[string]any, i int, msg string) string {
	m := strings.TrimSpace(msg)
	if i < len(inputs) {
		if ti, ok := inputs[i]["tool_input"].(map[string]any); ok {
			if f := firstString(ti, "file_path", "url"); f != "" && !strings.Contains(m, f) {
				m = f + ": " + m
			}
		}
	}
	return m
}

// Reason is the text a host shows for a decision: the message, the
// decision point, and the rule with the layer it came from.
func Reason(d permission.Decision) string {
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

// PathTools are the tools whose rule contents are paths (settings.PathRuleTools;
// a test holds the two equal).
var PathTools = map[string]bool{
	"Read": true, "Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true, "Glob": true, "Grep": true,
}

// claudeForm renders a suggested rule as a `permopa rules add` argument. A
// decision's suggestions are AgentScope objects, whose path "/dir/**" is
// absolute; in a settings file a path rule reads as Claude Code reads it,
// where "/dir" is relative to the project, so it is written "//dir/**"
// (docs/rules.md).
func claudeForm(r permission.Rule) string {
	if r.RuleContent != nil && PathTools[r.ToolName] {
		if c, ok := claudepattern.FromFnmatch(*r.RuleContent); ok {
			return r.ToolName + "(" + c + ")"
		}
	}
	return r.String()
}

// ApproveCommand is the `permopa rules add` command that accepts a
// decision's suggested rules into the settings of project (the call's cwd,
// whose settings the hooks read), or "" when there is none.
func ApproveCommand(d permission.Decision, destination, project string) string {
	if destination == "" {
		destination = "local"
	}
	var rules []string
	seen := map[string]bool{}
	for _, r := range d.SuggestedRules {
		s := claudeForm(r)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		rules = append(rules, ShellQuote(s))
	}
	if len(rules) == 0 {
		return ""
	}
	cmd := "permopa rules add"
	if project != "" {
		cmd += " --project " + ShellQuote(project)
	}
	return cmd + " --destination " + destination + " " + strings.Join(rules, " ")
}

// askAsBlock is the text for an ASK that the host cannot express, or that
// nobody could answer (unattended): a block that tells the human how to
// approve.
func askAsBlock(d permission.Decision, hostName, project string, unattended bool, opts Options) string {
	var b strings.Builder
	b.WriteString(Reason(d))
	if unattended {
		b.WriteString(". Blocked because nobody can answer a question in this ")
		b.WriteString(hostName)
		b.WriteString(" mode.")
	} else {
		b.WriteString(". Blocked because ")
		b.WriteString(hostName)
		b.WriteString(" hooks cannot ask a human.")
	}
	switch {
	case d.Step == permission.StepAskRule && d.MatchedRule != nil:
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

// denyAdvice is the approve command for a DENY that an allow rule would
// have prevented (an unattended mode's fallback), as " To allow it from
// now on: …", or "".
func denyAdvice(d permission.Decision, project string, opts Options) string {
	if d.Behavior != permission.Deny || d.Step != permission.StepModeFallback {
		return ""
	}
	if cmd := ApproveCommand(d, opts.Destination, project); cmd != "" {
		return ". To allow it from now on: " + cmd
	}
	return ""
}

// ShellQuote quotes s for a POSIX shell.
func ShellQuote(s string) string {
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

// inputFields are the payload fields a hook passes to the decision: the
// ones the hosts send whose meaning permopa's input shares. Anything else
// a host adds (prompt_id, effort, model, turn_id, timestamp, mcp_context,
// permission_suggestions, fields of later versions) is tolerated and not
// passed on, so that no host field can stand in for one of permopa's
// inputs (working_directories, read_only, tool_check, permission_context)
// and widen what is allowed.
var inputFields = []string{"session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name", "tool_name", "tool_input", "tool_use_id"}

// hostInput is the permopa input of a host payload: its inputFields.
func hostInput(p map[string]any) map[string]any {
	out := make(map[string]any, len(inputFields))
	for _, k := range inputFields {
		if v, ok := p[k]; ok {
			out[k] = v
		}
	}
	return out
}

// copyPayload is a shallow copy of a payload, for use as permopa input.
func copyPayload(p map[string]any) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}

// payloadMode is the payload's permission_mode; a value that is not a
// string is an error (the hook blocks), never "no mode".
func payloadMode(p map[string]any) (string, error) {
	v, ok := p["permission_mode"]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", errors.New("permission_mode: must be a string")
	}
	return s, nil
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
