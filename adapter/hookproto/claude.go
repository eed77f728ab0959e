package hookproto

import (
	"fmt"
	"strings"
)

// claudeProtocol is Claude Code's hook protocol.
//
// PreToolUse: the payload (session_id, transcript_path, cwd, permission_mode,
// hook_event_name, tool_name, tool_input, tool_use_id) is permopa input as is;
// the answer is exit 0 with
// {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow|deny|ask","permissionDecisionReason":"..."}}.
//
// PermissionRequest (the permission dialog is about to be shown): ALLOW
// answers {"decision":{"behavior":"allow"}} and DENY {"decision":{"behavior":"deny","message":...}}.
// The event has no "ask": for an ASK permopa gives no decision, so Claude
// Code shows its dialog to the human, and says in systemMessage which
// `permopa rules add` would stop the question. permopa never answers an ASK
// with updatedPermissions: that would approve the call (and write a rule)
// without the human who was to be asked.
type claudeProtocol struct{}

func (claudeProtocol) Parse(p map[string]any) (Request, error) {
	req := Request{Event: str(p, "hook_event_name"), Cwd: str(p, "cwd")}
	if req.Event == "" {
		req.Event = EventPreToolUse
	}
	if req.Event != EventPreToolUse && req.Event != EventPermissionRequest {
		return req, fmt.Errorf("hook event %q is not one permopa answers (PreToolUse, PermissionRequest)", req.Event)
	}
	// MultiEdit and NotebookEdit go to the policy as they are: it treats
	// every edit tool as one (rego/permopa/policy/tools/files), so decide
	// and the Go API decide them as the hook does.
	req.Inputs = []map[string]any{copyPayload(p)}
	return req, nil
}

func (claudeProtocol) Answer(req Request, d Decision, opts Options) Answer {
	reason := Reason(d)
	if d.Behavior == Ask {
		if cmd := ApproveCommand(d, opts.Destination, req.Cwd); cmd != "" && d.Step != StepAskRule {
			reason += ". To allow it from now on: " + cmd
		}
	}
	if req.Event == EventPermissionRequest {
		switch d.Behavior {
		case Allow:
			return Answer{Stdout: mustJSON(map[string]any{
				"hookSpecificOutput": map[string]any{
					"hookEventName": EventPermissionRequest,
					"decision":      map[string]any{"behavior": "allow"},
				},
			})}
		case Ask:
			return Answer{Stdout: mustJSON(map[string]any{"systemMessage": reason})}
		default:
			return permissionRequestDeny(reason)
		}
	}
	return Answer{Stdout: mustJSON(map[string]any{
		"hookSpecificOutput": map[string]any{
			"hookEventName":            EventPreToolUse,
			"permissionDecision":       strings.ToLower(d.Behavior),
			"permissionDecisionReason": reason,
		},
	})}
}

// permissionRequestDeny is the deny answer to a PermissionRequest event;
// Claude Code and Codex share its shape.
func permissionRequestDeny(reason string) Answer {
	return Answer{Stdout: mustJSON(map[string]any{
		"hookSpecificOutput": map[string]any{
			"hookEventName": EventPermissionRequest,
			"decision":      map[string]any{"behavior": "deny", "message": reason},
		},
	})}
}

func (claudeProtocol) Fail(event, reason string) Answer {
	reason = "permopa blocked this call because it could not decide it: " + reason
	switch event {
	case EventPermissionRequest:
		return permissionRequestDeny(reason)
	case EventPreToolUse, "":
		return Answer{Stdout: mustJSON(map[string]any{
			"hookSpecificOutput": map[string]any{
				"hookEventName":            EventPreToolUse,
				"permissionDecision":       "deny",
				"permissionDecisionReason": reason,
			},
		})}
	default:
		// An event whose JSON answer permopa does not know: exit 2 blocks
		// every blockable event and shows stderr.
		return Answer{Stderr: reason, Exit: 2}
	}
}
