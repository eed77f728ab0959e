package guard

import (
	"context"
	"errors"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/permission"
)

// StopAllToolsDenied is the stop reason when every call of a step was
// denied (AgentScope's ALL_TOOLS_DENIED): the host should stop the agent
// rather than let the model try again blindly.
const StopAllToolsDenied = "ALL_TOOLS_DENIED"

// Step is the tool calls of one reasoning step and what was decided for
// each. If any call asks, none should run until every ask is answered
// (AgentScope's HITL pause).
type Step struct {
	Calls     []adapter.Call
	Decisions []permission.Decision
}

// DecideStep sanitizes and decides every call of a step with policy. A
// malformed call is a DENY with step "error" and code input_error.
func DecideStep(ctx context.Context, policy Policy, calls []adapter.Call) *Step {
	s := &Step{Calls: calls, Decisions: make([]permission.Decision, len(calls))}
	for i, c := range calls {
		if err := Sanitize(c); err != nil {
			s.Decisions[i] = permission.FailClosed(permission.CodeInputError, err.Error())
			continue
		}
		s.Decisions[i] = evaluate(ctx, policy, RequestFor(c))
	}
	return s
}

// Asking lists the calls waiting for a human.
func (s *Step) Asking() []int { return s.indices(permission.Ask) }

// Runnable lists the calls that may run now: the allowed ones, once no
// call of the step is still asking.
func (s *Step) Runnable() []int {
	if len(s.Asking()) > 0 {
		return nil
	}
	return s.indices(permission.Allow)
}

func (s *Step) indices(behavior string) []int {
	var out []int
	for i, d := range s.Decisions {
		if d.Behavior == behavior {
			out = append(out, i)
		}
	}
	return out
}

// Resolve records the human's answer for call i (from Confirm): approved
// calls become ALLOW, the others DENY.
func (s *Step) Resolve(i int, c adapter.Confirmation) error {
	if i < 0 || i >= len(s.Decisions) {
		return errors.New("step: no such call")
	}
	d := c.Decision
	if c.Approved {
		d.Behavior = permission.Allow
	} else {
		d.Behavior = permission.Deny
		d.Message = c.Message
	}
	s.Decisions[i] = d
	return nil
}

// AllDenied reports whether the step had calls and every one was denied,
// by the policy or by the human.
func (s *Step) AllDenied() bool {
	return len(s.Decisions) > 0 && len(s.indices(permission.Deny)) == len(s.Decisions)
}

// StopReason is StopAllToolsDenied when every call was denied, else "".
func (s *Step) StopReason() string {
	if s.AllDenied() {
		return StopAllToolsDenied
	}
	return ""
}
