package guard

import (
	"context"
	"fmt"
	"slices"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
)

// Execution environments (ai4j's AgentExecutionEnvironment). They are
// metadata for the policy: running in a sandbox does not relax anything by
// itself; a policy may choose to look at it.
const (
	EnvironmentLocal         = "LOCAL"
	EnvironmentSandbox       = "SANDBOX"
	EnvironmentRemoteSandbox = "REMOTE_SANDBOX"
)

// Request is what a Policy sees (ai4j's AgentPermissionRequest): the tool
// call and the environment it would run in.
type Request struct {
	ToolName    string
	Arguments   map[string]any
	CallID      string
	Environment string
	// Call is the whole call, for policies that need more (cwd, session, mode).
	Call adapter.Call
}

// RequestFor builds the request for a call.
func RequestFor(c adapter.Call) Request {
	return Request{ToolName: c.ToolName, Arguments: c.ToolInput, CallID: c.ToolUseID, Environment: c.Environment, Call: c}
}

// Policy decides whether a well-formed tool call may run: ALLOW, DENY or
// ASK (ai4j's REQUIRE_APPROVAL). An implementation should fail closed: a
// Decision with a behavior other than ALLOW is never treated as ALLOW.
type Policy interface {
	Evaluate(ctx context.Context, req Request) permission.Decision
}

// PolicyFunc adapts a function to Policy.
type PolicyFunc func(ctx context.Context, req Request) permission.Decision

// Evaluate calls f.
func (f PolicyFunc) Evaluate(ctx context.Context, req Request) permission.Decision {
	return f(ctx, req)
}

// EnginePolicy is the permopa engine as a Policy: the full decision of
// docs/decision.md (rules, modes, tool checks, suggestions).
func EnginePolicy(eng *engine.Engine) Policy {
	return PolicyFunc(func(ctx context.Context, req Request) permission.Decision {
		c := req.Call
		if c.ToolName == "" {
			c.ToolName, c.ToolInput, c.ToolUseID = req.ToolName, req.Arguments, req.CallID
		}
		if c.Environment == "" {
			c.Environment = req.Environment
		}
		return adapter.Decide(ctx, eng, c)
	})
}

// ProjectPolicy is EnginePolicy deciding each call with the rules of its
// cwd's project too, through pc (adapter.ProjectCache: what a project's
// files loosen counts once the user trusts it).
func ProjectPolicy(pc *adapter.ProjectCache) Policy {
	return PolicyFunc(func(ctx context.Context, req Request) permission.Decision {
		c := req.Call
		if c.ToolName == "" {
			c.ToolName, c.ToolInput, c.ToolUseID = req.ToolName, req.Arguments, req.CallID
		}
		if c.Environment == "" {
			c.Environment = req.Environment
		}
		return pc.Decide(ctx, c.Input())
	})
}

func policyDecision(behavior, step, message string) permission.Decision {
	return permission.Decision{Behavior: behavior, Step: step, Message: message, Reason: message, SuggestedRules: []permission.Rule{}}
}

// AllowTools allows the named tools and denies every other (ai4j's
// allowTools). Names match exactly.
func AllowTools(tools ...string) Policy {
	set := slices.Clone(tools)
	return PolicyFunc(func(_ context.Context, req Request) permission.Decision {
		if req.ToolName != "" && slices.Contains(set, req.ToolName) {
			return policyDecision(permission.Allow, "policy", req.ToolName+" is in the allow list")
		}
		return policyDecision(permission.Deny, "policy", "tool is not in the allow list")
	})
}

// DenyTools denies the named tools with reason and allows every other
// (ai4j's denyTools).
func DenyTools(tools []string, reason string) Policy {
	set := slices.Clone(tools)
	return PolicyFunc(func(_ context.Context, req Request) permission.Decision {
		if slices.Contains(set, req.ToolName) {
			return policyDecision(permission.Deny, "policy", reason)
		}
		return policyDecision(permission.Allow, "policy", req.ToolName+" is not in the deny list")
	})
}

// RequireApprovalForTools asks before the named tools run, with reason, and
// allows every other (ai4j's requireApprovalForTools).
func RequireApprovalForTools(tools []string, reason string) Policy {
	set := slices.Clone(tools)
	return PolicyFunc(func(_ context.Context, req Request) permission.Decision {
		if slices.Contains(set, req.ToolName) {
			return policyDecision(permission.Ask, "policy", reason)
		}
		return policyDecision(permission.Allow, "policy", req.ToolName+" needs no approval")
	})
}

// AllOf combines policies the strict way ai4j lacks: every policy is
// asked; any DENY denies, else any ASK asks, else ALLOW. The decision
// returned is the first of the strictest kind. No policies: DENY.
func AllOf(policies ...Policy) Policy {
	return PolicyFunc(func(ctx context.Context, req Request) permission.Decision {
		if len(policies) == 0 {
			return policyDecision(permission.Deny, permission.StepError, "no policy to ask")
		}
		var ask, allow *permission.Decision
		for _, p := range policies {
			d := p.Evaluate(ctx, req)
			switch d.Behavior {
			case permission.Allow:
				if allow == nil {
					allow = &d
				}
			case permission.Ask:
				if ask == nil {
					ask = &d
				}
			default:
				if d.Behavior != permission.Deny {
					d = failedPolicy(d)
				}
				return d
			}
		}
		if ask != nil {
			return *ask
		}
		return *allow
	})
}

// failedPolicy is the DENY for a policy answer that is not a decision.
func failedPolicy(d permission.Decision) permission.Decision {
	return permission.FailClosed(permission.CodeBadDecision, fmt.Sprintf("policy returned behavior %q", d.Behavior))
}
