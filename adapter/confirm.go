package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// ConfirmResult is the human's answer to an ASK, in AgentScope's
// ConfirmResult shape (docs/api.md): whether the call is confirmed, the
// call itself (an input), the rules the human accepted (usually the
// decision's suggested_rules, possibly edited), where to keep them and for
// how long.
type ConfirmResult struct {
	Confirmed bool `json:"confirmed"`
	ToolCall  Call `json:"tool_call"`
	// Rules are rule objects or Claude Code strings; a rule without a
	// behavior is an allow rule.
	Rules RuleList `json:"rules,omitempty"`
	// Destination is session (the default: in memory, for the call's
	// session_id), local, project or user.
	Destination string `json:"destination,omitempty"`
	// TTL limits the rules' lifetime ("30m", "24h", "7d"); "" is forever.
	TTL string `json:"ttl,omitempty"`
}

// RuleList is a list of rules that reads both AgentScope PermissionRule
// objects and Claude Code strings from JSON.
type RuleList []permission.Rule

// UnmarshalJSON reads each entry with settings.RuleFrom; an entry that is not
// a valid rule is an error naming it.
func (rl *RuleList) UnmarshalJSON(b []byte) error {
	var xs []any
	if err := json.Unmarshal(b, &xs); err != nil {
		return fmt.Errorf("rules: want a list of rules: %w", err)
	}
	out := make(RuleList, 0, len(xs))
	for i, x := range xs {
		r, err := settings.RuleFrom(x, "")
		if err != nil {
			return fmt.Errorf("rules[%d]: %w", i, err)
		}
		if _, obj := x.(map[string]any); obj && r.Syntax == "" {
			// AgentScope's PermissionRule objects match as AgentScope
			// matches them; Claude Code strings as Claude Code does.
			r.Syntax = permission.SyntaxAgentScope
		}
		out = append(out, r)
	}
	*rl = out
	return nil
}

// Confirmation is what Confirm did.
type Confirmation struct {
	// Approved: the human confirmed and the policy does not deny the call
	// now, so the host may run it (once, even without rules).
	Approved bool `json:"approved"`
	// Message is for the agent when the call is not approved.
	Message string `json:"message,omitempty"`
	// Rules are the rules written, with their source, layer and expiry.
	Rules []permission.Rule `json:"rules"`
	// Decision is the call decided again after the rules were written: ALLOW
	// when the accepted rules cover it, so the next identical call runs
	// without asking.
	Decision permission.Decision `json:"decision"`
}

// Confirm applies a human's answer. When confirmed, the accepted rules are
// written to the destination (session rules into eng, file destinations
// through layers, atomically) and the call is decided again. When not
// confirmed, the call is not approved; deny and ask rules in the answer
// are still kept ("no, and don't ask again"), allow rules are ignored.
// Session rules go into eng; file destinations need layers attached to eng
// (Layers.Attach), which may be nil when only the session destination is used.
func Confirm(ctx context.Context, eng *engine.Engine, layers *settings.Layers, res ConfirmResult) (Confirmation, error) {
	if strings.TrimSpace(res.ToolCall.ToolName) == "" {
		return Confirmation{}, confirmError(permission.CodeInvalidToolCall, errors.New("tool_call.tool_name: missing"))
	}
	dest := res.Destination
	switch dest {
	case "":
		dest = settings.DestinationSession
	case settings.DestinationSession, settings.DestinationLocal, settings.DestinationProject, settings.DestinationUser:
	default:
		return Confirmation{}, confirmError(permission.CodeInvalidDestination, fmt.Errorf("destination %q: want session, local, project or user", dest))
	}
	ttl, err := settings.ParseTTL(res.TTL)
	if err != nil {
		return Confirmation{}, confirmError(permission.CodeInvalidTTL, err)
	}
	var rules []permission.Rule
	for _, r := range res.Rules {
		if r.Behavior == "" {
			r.Behavior = permission.Allow
		}
		if r.Syntax == "" && r.Source == "suggested" {
			// A decision's suggested_rules are AgentScope objects: an
			// absolute "/dir/**" is absolute, not relative to a project.
			r.Syntax = permission.SyntaxAgentScope
		}
		r.Behavior = strings.ToUpper(r.Behavior)
		if !res.Confirmed && r.Behavior == permission.Allow {
			continue
		}
		if err := settings.ValidateRule(r); err != nil {
			return Confirmation{}, confirmError(permission.CodeInvalidRule, err)
		}
		rules = append(rules, r)
	}
	var written []permission.Rule
	switch {
	case len(rules) == 0:
	case dest == settings.DestinationSession:
		written, err = sessionRules(ctx, eng, res.ToolCall.SessionID, rules, ttl)
	case layers != nil:
		written, err = layers.AddRules(ctx, dest, res.ToolCall.SessionID, rules, ttl)
	default:
		err = fmt.Errorf("destination %s: needs settings layers (settings.NewLayers)", dest)
	}
	if err != nil {
		return Confirmation{}, confirmError(permission.CodeRulesNotSaved, err)
	}
	c := Confirmation{Rules: written, Decision: Decide(ctx, eng, res.ToolCall)}
	if c.Rules == nil {
		c.Rules = []permission.Rule{}
	}
	switch {
	case !res.Confirmed:
		c.Message = "Permission denied by user"
	case c.Decision.Behavior == permission.Deny:
		c.Message = "confirmed, but the policy now denies the call: " + c.Decision.Message
	default:
		c.Approved = true
	}
	return c, nil
}

// confirmError is why Confirm did nothing: a stable code and the error,
// which names the field, rule or file.
func confirmError(code string, err error) error { return permission.NewError(code, err) }

func sessionRules(ctx context.Context, eng *engine.Engine, session string, rules []permission.Rule, ttl time.Duration) ([]permission.Rule, error) {
	written, err := settings.WithExpiry(rules, ttl)
	if err != nil {
		return nil, err
	}
	if err := eng.AddSessionRules(ctx, session, written...); err != nil {
		return nil, err
	}
	for i := range written {
		written[i].Source, written[i].Layer = settings.SourceSession, settings.SessionLayer(session)
	}
	return written, nil
}
