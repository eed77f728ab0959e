// Package adapter turns an agent's tool call into permopa's OPA input and the
// engine's answer back into what a host understands: the Go Call type for
// embedders, the JSON-lines protocol of `permopa decide`, and (in later
// files) hook formats, the executor guard and HITL confirmation.
package adapter

import (
	"context"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
)

// ToolCheck is a host's own check_permissions result for a custom tool.
type ToolCheck struct {
	// Behavior is ALLOW, DENY, ASK or PASSTHROUGH.
	Behavior string `json:"behavior"`
	// BypassImmune marks a safety ASK that allow rules cannot silence.
	BypassImmune bool   `json:"bypass_immune,omitempty"`
	Message      string `json:"message,omitempty"`
}

// Call is one tool call an agent wants to make (docs/api.md).
type Call struct {
	ToolName  string         `json:"tool_name"`
	ToolInput map[string]any `json:"tool_input"`
	ToolUseID string         `json:"tool_use_id,omitempty"`
	// Mode is a mode name in AgentScope or Claude Code form ("" = the settings' default).
	Mode               string   `json:"permission_mode,omitempty"`
	Cwd                string   `json:"cwd,omitempty"`
	WorkingDirectories []string `json:"working_directories,omitempty"`
	// PermissionContext is an AgentScope PermissionContext document.
	PermissionContext map[string]any `json:"permission_context,omitempty"`
	// ReadOnly and ToolCheck carry a custom tool's own answers.
	ReadOnly  *bool      `json:"read_only,omitempty"`
	ToolCheck *ToolCheck `json:"tool_check,omitempty"`
	// Environment is LOCAL, SANDBOX or REMOTE_SANDBOX (ai4j metadata).
	Environment string `json:"environment,omitempty"`
	SessionID   string `json:"session_id,omitempty"`
	AgentID     string `json:"agent_id,omitempty"`
}

// Input is the OPA input document for the call.
func (c Call) Input() map[string]any {
	in := map[string]any{"tool_name": c.ToolName}
	if c.ToolInput != nil {
		in["tool_input"] = c.ToolInput
	} else {
		in["tool_input"] = map[string]any{}
	}
	set := func(k, v string) {
		if v != "" {
			in[k] = v
		}
	}
	set("tool_use_id", c.ToolUseID)
	set("permission_mode", c.Mode)
	set("cwd", c.Cwd)
	set("environment", c.Environment)
	set("session_id", c.SessionID)
	set("agent_id", c.AgentID)
	if len(c.WorkingDirectories) > 0 {
		dirs := make([]any, len(c.WorkingDirectories))
		for i, d := range c.WorkingDirectories {
			dirs[i] = d
		}
		in["working_directories"] = dirs
	}
	if c.PermissionContext != nil {
		in["permission_context"] = c.PermissionContext
	}
	if c.ReadOnly != nil {
		in["read_only"] = *c.ReadOnly
	}
	if c.ToolCheck != nil {
		tc := map[string]any{"behavior": c.ToolCheck.Behavior, "bypass_immune": c.ToolCheck.BypassImmune}
		if c.ToolCheck.Message != "" {
			tc["message"] = c.ToolCheck.Message
		}
		in["tool_check"] = tc
	}
	return in
}

// Decide asks the engine about one call.
func Decide(ctx context.Context, eng *engine.Engine, c Call) permission.Decision {
	return eng.Decide(ctx, c.Input())
}
