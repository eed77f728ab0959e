package hookproto

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/permopa/permopa/permission"
)

// geminiProtocol is Gemini CLI's BeforeTool hook protocol.
//
// The payload has session_id, transcript_path, cwd, hook_event_name,
// timestamp, tool_name, tool_input and, for MCP tools, mcp_context; it names
// no permission mode, so the settings' default mode (or --mode) applies.
// Gemini's built-in tools are renamed to permopa's (run_shell_command →
// Bash, read_file → Read, write_file → Write, replace → Edit, glob → Glob,
// search_file_content/grep_search → Grep, list_directory → Glob,
// read_many_files → one Glob per path, web_fetch → one WebFetch per URL in
// its url and prompt, geminiFetchURLs);
// MCP tools, which Gemini names mcp_<server>_<tool>, are decided as
// mcp__<server>__<tool> (geminiMCPNames); other tools keep their names.
//
// The answer is exit 0 with {"decision":"allow"}, {"decision":"ask",...}
// (Gemini CLI then asks for confirmation, whatever its approval mode) or
// {"decision":"deny","reason":...,"systemMessage":...}: reason goes to the
// model, systemMessage to the user. Gemini's "allow" does not override its
// own policy (a call its policy asks about or denies still is), so a hook
// cannot loosen Gemini CLI. In an unattended mode (--mode dontAsk, for
// headless runs) an ASK is a deny whose text gives the `permopa rules add`
// that approves it.
type geminiProtocol struct{}

func (geminiProtocol) Parse(p map[string]any) (Request, error) {
	req := Request{Event: str(p, "hook_event_name"), Cwd: str(p, "cwd")}
	if req.Event == "" {
		req.Event = EventBeforeTool
	}
	if req.Event != EventBeforeTool {
		return req, fmt.Errorf("hook event %q is not one permopa answers (BeforeTool)", req.Event)
	}
	mode, err := payloadMode(p)
	if err != nil {
		return req, err
	}
	req.Mode = mode
	ti, _ := p["tool_input"].(map[string]any)
	base := func(tool string, toolInput map[string]any) map[string]any {
		in := hostInput(p)
		in["tool_name"] = tool
		in["tool_input"] = toolInput
		return in
	}
	name := str(p, "tool_name")
	switch name {
	case "run_shell_command":
		in := base("Bash", map[string]any{"command": ti["command"]})
		if dir := firstString(ti, "dir_path", "directory"); dir != "" {
			if !filepath.IsAbs(dir) && req.Cwd != "" {
				dir = filepath.Join(req.Cwd, dir)
			}
			in["cwd"] = dir
			// The settings that apply are still those of the payload's
			// cwd: a server reading projects (settings.projects) keys
			// them by project_dir.
			if req.Cwd != "" && dir != req.Cwd {
				in["project_dir"] = req.Cwd
			}
		}
		req.Inputs = append(req.Inputs, in)
	case "read_file":
		req.Inputs = append(req.Inputs, base("Read", map[string]any{"file_path": firstOf(ti, "file_path", "absolute_path", "path")}))
	case "write_file":
		req.Inputs = append(req.Inputs, base("Write", map[string]any{"file_path": firstOf(ti, "file_path", "absolute_path", "path")}))
	case "replace":
		req.Inputs = append(req.Inputs, base("Edit", map[string]any{"file_path": firstOf(ti, "file_path", "absolute_path", "path")}))
	case "glob":
		req.Inputs = append(req.Inputs, base(globCall(str(ti, "pattern"), firstString(ti, "dir_path", "path"))))
	case "search_file_content", "grep_search", "grep":
		in := map[string]any{"pattern": ti["pattern"]}
		if dir := firstString(ti, "dir_path", "path"); dir != "" {
			in["path"] = dir
		}
		req.Inputs = append(req.Inputs, base("Grep", in))
	case "list_directory", "ls":
		in := map[string]any{"pattern": "*"}
		if dir := firstString(ti, "dir_path", "path"); dir != "" {
			in["path"] = dir
		}
		req.Inputs = append(req.Inputs, base("Glob", in))
	case "read_many_files":
		var paths []any
		for _, k := range []string{"paths", "include"} {
			if xs, ok := ti[k].([]any); ok {
				paths = append(paths, xs...)
			}
		}
		for _, x := range paths {
			s, _ := x.(string)
			req.Inputs = append(req.Inputs, base(globCall(s, "")))
		}
		if len(paths) == 0 {
			req.Inputs = append(req.Inputs, hostInput(p))
		}
	case "web_fetch":
		// One WebFetch per URL Gemini may fetch; the strictest answers.
		urls, err := geminiFetchURLs(ti)
		if err != nil {
			return req, err
		}
		for _, u := range urls {
			req.Inputs = append(req.Inputs, base("WebFetch", map[string]any{"url": u}))
		}
	default:
		if names := geminiMCPNames(name, p["mcp_context"]); len(names) > 0 {
			for _, n := range names {
				req.Inputs = append(req.Inputs, base(n, ti))
			}
			break
		}
		req.Inputs = append(req.Inputs, hostInput(p))
	}
	return req, nil
}

// geminiMCPNames is the canonical permopa name of a Gemini CLI MCP tool
// call, mcp__<server>__<tool> as Claude Code and Codex name them, so that
// the same rules (mcp__memory__*, mcp__db__query) match on every host.
// Gemini names the tool mcp_<server>_<tool> (one underscore) and says
// which server and tool in mcp_context; without that context the name
// cannot be split reliably (server and tool names hold underscores), so
// every split is returned and each is decided: the strictest answers, so
// a deny rule for any reading holds. nil when name is not an MCP name.
func geminiMCPNames(name string, mcpContext any) []string {
	rest, ok := strings.CutPrefix(name, "mcp_")
	if !ok || strings.HasPrefix(rest, "_") {
		return nil
	}
	if ctx, ok := mcpContext.(map[string]any); ok {
		server, tool := str(ctx, "server_name"), str(ctx, "tool_name")
		if server != "" && tool != "" {
			return []string{"mcp__" + server + "__" + tool}
		}
	}
	var out []string
	for i := 1; i < len(rest)-1; i++ {
		if rest[i] == '_' {
			out = append(out, "mcp__"+rest[:i]+"__"+rest[i+1:])
		}
	}
	if len(out) == 0 {
		// One word after mcp_: no server/tool split; keep the name
		// whole as the server (rules such as mcp__name match it).
		out = append(out, "mcp__"+rest)
	}
	return out
}

// globCall is the permopa call for reading what a glob pattern names. The
// literal leading directories of the pattern become the call's path, so
// that the path checks see them (`~/.ssh/*` reads in ~/.ssh, not in the
// cwd); a pattern with no glob character is a Read of that file.
func globCall(pattern, dir string) (string, map[string]any) {
	if pattern != "" && !strings.ContainsAny(pattern, "*?[{") {
		p := pattern
		if dir != "" && !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") {
			p = filepath.Join(dir, p)
		}
		return "Read", map[string]any{"file_path": p}
	}
	segs := strings.Split(pattern, "/")
	i := 0
	for i < len(segs)-1 && !strings.ContainsAny(segs[i], "*?[{") {
		i++
	}
	prefix := strings.Join(segs[:i], "/")
	if strings.HasPrefix(pattern, "/") && prefix == "" {
		prefix = "/"
	}
	in := map[string]any{"pattern": strings.Join(segs[i:], "/")}
	switch {
	case prefix != "" && dir != "" && !filepath.IsAbs(prefix) && !strings.HasPrefix(prefix, "~"):
		in["path"] = filepath.Join(dir, prefix)
	case prefix != "":
		in["path"] = prefix
	case dir != "":
		in["path"] = dir
	}
	if in["pattern"] == "" {
		in["pattern"] = pattern
	}
	return "Glob", in
}

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			return v
		}
	}
	return nil
}

func (geminiProtocol) Answer(req Request, v Verdict, opts Options) Answer {
	d := v.Decision
	text := Reason(d)
	if v.Kind == KindDeny && d.Behavior == permission.Ask {
		text = askAsBlock(d, "Gemini CLI", req.Cwd, v.Unattended, opts)
	} else if v.Kind == KindAsk {
		if cmd := ApproveCommand(d, opts.Destination, req.Cwd); cmd != "" && d.Step != permission.StepAskRule && !d.BypassImmune {
			text += ". To allow it from now on: " + cmd
		}
	}
	text += denyAdvice(d, req.Cwd, opts)
	if v.Note != "" {
		text += ". " + v.Note
	}
	switch v.Kind {
	case KindAllow:
		return Answer{Stdout: mustJSON(map[string]any{"decision": "allow"})}
	case KindAsk:
		// Gemini CLI asks for confirmation (its "ask" decision), showing
		// systemMessage.
		return Answer{Stdout: mustJSON(map[string]any{"decision": "ask", "reason": text, "systemMessage": text})}
	case KindDefer:
		if v.Note != "" {
			return Answer{Stdout: mustJSON(map[string]any{"systemMessage": text})}
		}
		return Answer{Stdout: []byte("{}\n")}
	default:
		return Answer{Stdout: mustJSON(map[string]any{"decision": "deny", "reason": text, "systemMessage": text})}
	}
}

func (geminiProtocol) Fail(event, reason string) Answer {
	reason = "permopa blocked this call because it could not decide it: " + reason
	if event != "" && event != EventBeforeTool {
		return Answer{Stderr: reason, Exit: 2}
	}
	return Answer{Stdout: mustJSON(map[string]any{"decision": "deny", "reason": reason, "systemMessage": reason})}
}
