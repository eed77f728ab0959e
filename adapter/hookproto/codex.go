package hookproto

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/permopa/permopa/permission"
)

// codexProtocol is OpenAI Codex's hook protocol.
//
// PreToolUse: the payload (session_id, turn_id, transcript_path, cwd, model,
// permission_mode, hook_event_name, tool_name, tool_input, tool_use_id) uses
// Claude Code's field names. Shell calls arrive as tool_name "Bash" with
// tool_input.command; file edits as "apply_patch" with the patch in
// tool_input.command, which permopa splits into one Write or Edit call per
// file, read as Codex reads the patch (patch.go; a patch Codex would refuse
// is blocked), and the strictest decision answers; MCP tools as
// mcp__server__tool.
// Codex's PreToolUse honours only a refusal: "allow" and "ask" are rejected
// as unsupported and the tool then runs. So ALLOW prints nothing (Codex's own
// approval policy and sandbox still apply), and DENY and ASK block with exit
// 2 and the reason on stderr, which needs no JSON parsing on Codex's side.
// An ASK's reason tells the human the exact `permopa rules add` to approve.
//
// PermissionRequest (Codex is about to ask for approval): DENY answers with
// hookSpecificOutput.decision; anything else gives no decision, so Codex
// asks its human. permopa never approves what Codex wants to ask about.
//
// What each permission mode lets permopa answer is Shape's (modes.go).
type codexProtocol struct{}

func (codexProtocol) Parse(p map[string]any) (Request, error) {
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
	if str(p, "tool_name") == "apply_patch" {
		ti, _ := p["tool_input"].(map[string]any)
		calls, err := patchCalls(str(ti, "command"), req.Cwd)
		if err != nil {
			return req, err
		}
		if len(calls) == 0 {
			return req, errors.New("tool_input.command: the patch changes no file")
		}
		for _, c := range calls {
			in := hostInput(p)
			in["tool_name"] = c.tool
			in["tool_input"] = map[string]any{"file_path": c.path}
			req.Inputs = append(req.Inputs, in)
		}
		return req, nil
	}
	in := hostInput(p)
	if ti, ok := p["tool_input"].(map[string]any); ok && str(p, "tool_name") == "Bash" {
		if argv, ok := ti["command"].([]any); ok {
			t2 := copyPayload(ti)
			t2["command"] = argvCommand(argv)
			in["tool_input"] = t2
		}
	}
	req.Inputs = []map[string]any{in}
	if str(p, "tool_name") == "Bash" {
		ti, _ := in["tool_input"].(map[string]any)
		stdinTerminal(in, ti)
		calls, err := shellPatchCalls(str(ti, "command"), req.Cwd)
		if err != nil {
			return req, err
		}
		for _, c := range calls {
			fc := hostInput(p)
			fc["tool_name"] = c.tool
			fc["tool_input"] = map[string]any{"file_path": c.path}
			req.Inputs = append(req.Inputs, fc)
		}
	}
	return req, nil
}

// stdinTerminal marks a Codex shell call stdin_terminal: exec_command
// can run the command on a terminal and return while it runs, and a later
// write_stdin, which no hook sees, types into it. The payload does not say
// whether the call has a terminal (Codex 0.171 sends tool_input.command
// alone), so only an explicit tool_input.tty false leaves it unmarked
// (docs/hosts.md, "Shell state between calls"). Codex runs every command
// with GIT_PAGER=cat in its environment, which beats git's core.pager and
// pager.<cmd> (e2e/hosts TestCodexWriteStdinPager holds it): the input
// says so in git_pager_cat, and git then keeps no terminal use.
func stdinTerminal(in, toolInput map[string]any) {
	in["git_pager_cat"] = true
	if tty, ok := toolInput["tty"]; ok && tty == false {
		return
	}
	in["stdin_terminal"] = true
}

// argvCommand turns an argv (older Codex shell calls send one) into the
// command line the Bash analysis reads: the script of `bash -lc SCRIPT`,
// else the words shell-quoted.
func argvCommand(argv []any) string {
	words := make([]string, 0, len(argv))
	for _, a := range argv {
		s, ok := a.(string)
		if !ok {
			return "" // not an argv: the empty command fails validation (DENY)
		}
		words = append(words, s)
	}
	if len(words) == 3 && (words[1] == "-c" || words[1] == "-lc") {
		switch filepath.Base(words[0]) {
		case "bash", "sh", "zsh":
			return words[2]
		}
	}
	for i, w := range words {
		words[i] = ShellQuote(w)
	}
	return strings.Join(words, " ")
}

func (codexProtocol) Answer(req Request, v Verdict, opts Options) Answer {
	d := v.Decision
	text := Reason(d)
	if d.Behavior == permission.Ask {
		text = askAsBlock(d, "Codex", req.Cwd, v.Unattended, opts)
	}
	text += denyAdvice(d, req.Cwd, opts)
	if v.Note != "" {
		text += ". " + v.Note
	}
	if req.Event == EventPermissionRequest {
		if v.Kind == KindDeny {
			return permissionRequestDeny(text)
		}
		// No decision: Codex asks its human, as without the hook. A hook
		// never approves what Codex wants to ask about.
		if d.Behavior == permission.Ask || v.Note != "" {
			return Answer{Stdout: mustJSON(map[string]any{"systemMessage": text})}
		}
		return Answer{}
	}
	switch v.Kind {
	case KindDeny, KindAsk:
		// PreToolUse honours only a refusal: an ASK blocks.
		return Answer{Stderr: text, Exit: 2}
	default:
		// Nothing, exit 0: Codex's approval policy and sandbox apply.
		return Answer{Stderr: v.Note}
	}
}

func (codexProtocol) Fail(event, reason string) Answer {
	reason = "permopa blocked this call because it could not decide it: " + reason
	if event == EventPermissionRequest {
		return permissionRequestDeny(reason)
	}
	return Answer{Stderr: reason, Exit: 2}
}
