package hookproto

import (
	"fmt"

	"github.com/permopa/permopa/permission"
)

// claudeProtocol is Claude Code's hook protocol.
//
// PreToolUse: the payload (session_id, transcript_path, cwd, permission_mode,
// hook_event_name, tool_name, tool_input, tool_use_id) is permopa input as is;
// the answer is exit 0 with
// {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow|deny|ask","permissionDecisionReason":"..."}}.
//
// PermissionRequest (the permission dialog is about to be shown): DENY
// answers {"decision":{"behavior":"deny","message":...}}; anything else
// gives no decision, so Claude Code shows its dialog to the human (a
// systemMessage carries permopa's reason). permopa never approves here:
// the dialog may come from one of Claude Code's own ask rules, which a
// hook must not answer for the human, and never answers with
// updatedPermissions (that would write a rule without the human).
//
// What each permission mode lets permopa answer is Shape's (modes.go).
type claudeProtocol struct{}

func (claudeProtocol) Parse(p map[string]any) (Request, error) {
	req := Request{Event: str(p, "hook_event_name"), Cwd: str(p, "cwd")}
	if req.Event == "" {
		req.Event = EventPreToolUse
	}
	if req.Event != EventPreToolUse && req.Event != EventPermissionRequest {
		return req, fmt.Errorf("hook event %q is not one permopa answers (PreToolUse, PermissionRequest)", req.Event)
	}
	mode, err := payloadMode(p)
	if err != nil {
		return req, err
	}
	req.Mode = mode
	// MultiEdit and NotebookEdit go to the policy as they are: it treats
	// every edit tool as one (rego/permopa/policy/tools/files), so decide
	// and the Go API decide them as the hook does.
	req.Inputs = []map[string]any{hostInput(p)}
	return req, nil
}

func (claudeProtocol) Answer(req Request, v Verdict, opts Options) Answer {
	d := v.Decision
	reason := Reason(d)
	if d.Behavior == permission.Ask && !v.Unattended {
		if cmd := ApproveCommand(d, opts.Destination, req.Cwd); cmd != "" && d.Step != permission.StepAskRule {
			reason += ". To allow it from now on: " + cmd
		}
	}
	if v.Kind == KindDeny && v.Unattended {
		reason = askAsBlock(d, "Claude Code", req.Cwd, true, opts)
	}
	reason += denyAdvice(d, req.Cwd, opts)
	if v.Note != "" {
		reason += ". " + v.Note
	}
	if req.Event == EventPermissionRequest {
		switch v.Kind {
		case KindDeny:
			return permissionRequestDeny(reason)
		default:
			// No decision: Claude Code asks its human, as it would without
			// the hook. A hook never approves here: the dialog may be one
			// of Claude Code's own ask rules.
			return deferAnswer(d, reason, v.Note)
		}
	}
	if v.Kind == KindDefer {
		// No decision: Claude Code's own permission system decides.
		return deferAnswer(d, reason, v.Note)
	}
	return Answer{Stdout: mustJSON(map[string]any{
		"hookSpecificOutput": map[string]any{
			"hookEventName":            EventPreToolUse,
			"permissionDecision":       v.Kind,
			"permissionDecisionReason": reason,
		},
	})}
}

// deferAnswer gives no decision; the human sees permopa's reason when
// permopa would have asked, or a note (an unknown mode).
func deferAnswer(d permission.Decision, reason, note string) Answer {
	if d.Behavior != permission.Ask && note == "" {
		return Answer{}
	}
	return Answer{Stdout: mustJSON(map[string]any{"systemMessage": reason})}
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
