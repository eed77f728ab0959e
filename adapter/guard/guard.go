package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/rego/tables"
)

// Executor runs a tool call and returns its output (ai4j's ToolExecutor).
type Executor interface {
	Execute(ctx context.Context, call adapter.Call) (string, error)
}

// ExecutorFunc adapts a function to Executor.
type ExecutorFunc func(ctx context.Context, call adapter.Call) (string, error)

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, call adapter.Call) (string, error) {
	return f(ctx, call)
}

// ValidationError is a call that is not well formed (missing or non-object
// arguments, a Bash call without a command, ...). It is found before the
// policy is asked, and the tool does not run.
type ValidationError struct {
	Tool, CallID, Message string
}

func (e *ValidationError) Error() string { return e.Message }

// PermissionDeniedError is a DENY: the tool did not run. Hosts turn it into
// a tool result the model sees (ToolErrorResult) and carry on.
type PermissionDeniedError struct {
	Call     adapter.Call
	Decision permission.Decision
}

func (e *PermissionDeniedError) Error() string {
	return "Tool permission denied" + detail(e.Call.ToolName, e.Decision.Message)
}

// ApprovalRequiredError is an ASK (ai4j's REQUIRE_APPROVAL): the tool did
// not run and a human must decide. It is control flow, not a tool result:
// the host catches it (errors.As), asks, sends the answer to Confirm, and
// runs the call again with RunApproved. Decision.SuggestedRules are the
// rules to offer.
type ApprovalRequiredError struct {
	Call     adapter.Call
	Decision permission.Decision
}

func (e *ApprovalRequiredError) Error() string {
	return "Tool requires approval" + detail(e.Call.ToolName, e.Decision.Message)
}

func detail(tool, reason string) string {
	s := ""
	if strings.TrimSpace(tool) != "" {
		s = ": " + tool
	}
	if strings.TrimSpace(reason) != "" {
		s += " (" + reason + ")"
	}
	return s
}

// Guard wraps a tool executor with a policy (ai4j's
// AgentPermissionToolExecutor): the structural sanitizer first, then the
// policy, and only on ALLOW the wrapped executor. It is safe for
// concurrent use if the policy and the executor are.
type Guard struct {
	policy      Policy
	next        Executor
	environment string
}

// New guards next with policy; calls that name no environment get
// environment ("" means LOCAL).
func New(policy Policy, next Executor, environment string) *Guard {
	if environment == "" {
		environment = EnvironmentLocal
	}
	return &Guard{policy: policy, next: next, environment: environment}
}

// Execute runs the call if it is well formed and the policy allows it. A
// malformed call is a *ValidationError, a DENY a *PermissionDeniedError,
// an ASK an *ApprovalRequiredError; the tool runs in none of these cases.
func (g *Guard) Execute(ctx context.Context, call adapter.Call) (string, error) {
	call, d, err := g.check(ctx, call)
	if err != nil {
		return "", err
	}
	switch d.Behavior {
	case permission.Allow:
		return g.next.Execute(ctx, call)
	case permission.Ask:
		return "", &ApprovalRequiredError{Call: call, Decision: d}
	default:
		return "", &PermissionDeniedError{Call: call, Decision: d}
	}
}

// ExecuteJSON is Execute for a call whose arguments arrive as JSON text, as
// from a model: blank or non-object arguments are a *ValidationError.
func (g *Guard) ExecuteJSON(ctx context.Context, tool, callID string, arguments []byte) (string, error) {
	args, err := ParseArguments(tool, arguments)
	if err != nil {
		var v *ValidationError
		if errors.As(err, &v) {
			v.CallID = callID
		}
		return "", err
	}
	return g.Execute(ctx, adapter.Call{ToolName: tool, ToolInput: args, ToolUseID: callID})
}

// RunApproved runs a call a human approved (Confirmation.Approved). The
// call is still sanitized and a DENY still stops it: an approval answers
// an ASK, it does not override a deny rule.
func (g *Guard) RunApproved(ctx context.Context, call adapter.Call) (string, error) {
	call, d, err := g.check(ctx, call)
	if err != nil {
		return "", err
	}
	if d.Behavior != permission.Allow && d.Behavior != permission.Ask {
		return "", &PermissionDeniedError{Call: call, Decision: d}
	}
	return g.next.Execute(ctx, call)
}

func (g *Guard) check(ctx context.Context, call adapter.Call) (adapter.Call, permission.Decision, error) {
	if err := Sanitize(call); err != nil {
		return call, permission.Decision{}, err
	}
	if call.Environment == "" {
		call.Environment = g.environment
	}
	return call, evaluate(ctx, g.policy, RequestFor(call)), nil
}

// evaluate asks the policy, failing closed: no policy, a panic or an
// answer that is not ALLOW, DENY or ASK is a DENY.
func evaluate(ctx context.Context, p Policy, req Request) (d permission.Decision) {
	if p == nil {
		return permission.FailClosed(permission.CodeEvalError, "no permission policy")
	}
	defer func() {
		if r := recover(); r != nil {
			d = permission.FailClosed(permission.CodeEvalError, fmt.Sprintf("permission policy failed: %v", r))
		}
	}()
	d = p.Evaluate(ctx, req)
	switch d.Behavior {
	case permission.Allow, permission.Deny, permission.Ask:
		return d
	default:
		return failedPolicy(d)
	}
}

// Sanitize checks a call's structure only (ai4j's AgentToolCallSanitizer):
// a tool name, arguments, and for the built-in tools the argument they
// cannot run without as a non-empty string. It never decides permission.
func Sanitize(call adapter.Call) error {
	invalid := func(format string, args ...any) error {
		return &ValidationError{Tool: call.ToolName, CallID: call.ToolUseID, Message: fmt.Sprintf(format, args...)}
	}
	name := strings.TrimSpace(call.ToolName)
	if name == "" {
		return invalid("tool name is required")
	}
	if call.ToolInput == nil {
		return invalid("%s arguments are required", name)
	}
	// The arguments the policy's input check requires (call.schema.required).
	for _, field := range tables.RequiredArguments(name) {
		v, present := call.ToolInput[field]
		s, isString := v.(string)
		switch {
		case !present || v == nil:
			return invalid("%s requires a non-empty %s", name, field)
		case !isString:
			return invalid("%s %s must be a string", name, field)
		case strings.TrimSpace(s) == "":
			return invalid("%s requires a non-empty %s", name, field)
		}
	}
	return nil
}

// ParseArguments reads a call's JSON arguments, which must be an object.
func ParseArguments(tool string, raw []byte) (map[string]any, error) {
	invalid := func(msg string) error { return &ValidationError{Tool: tool, Message: tool + " arguments " + msg} }
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil, invalid("are required")
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil || args == nil {
		return nil, invalid("must be a JSON object")
	}
	return args, nil
}

// ToolErrorResult renders an error of Execute as the tool result the model
// sees, in ai4j's observable form:
// TOOL_ERROR: {"errorType":..,"error":..,"tool":..,"callId":..}.
// errorType is invalid_tool_call, permission_denied, approval_required or
// tool_failed.
func ToolErrorResult(call adapter.Call, err error) string {
	kind := "tool_failed"
	var v *ValidationError
	var p *PermissionDeniedError
	var a *ApprovalRequiredError
	switch {
	case errors.As(err, &v):
		kind = "invalid_tool_call"
	case errors.As(err, &p):
		kind = "permission_denied"
	case errors.As(err, &a):
		kind = "approval_required"
	}
	b, _ := json.Marshal(map[string]string{"errorType": kind, "error": err.Error(), "tool": call.ToolName, "callId": call.ToolUseID})
	return "TOOL_ERROR: " + string(b)
}
