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
// read_many_files → one Read or Grep per path (manyFilesCall), web_fetch → one WebFetch per URL in
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
		// Every spelling of the directory a Gemini version reads is
		// decided (geminiVariants): the strictest answers.
		for _, dir := range orNone(geminiStrings(ti, "dir_path", "directory")) {
			in := base("Bash", map[string]any{"command": ti["command"]})
			if dir != "" {
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
		}
	case "read_file", "write_file", "replace":
		tool := map[string]string{"read_file": "Read", "write_file": "Write", "replace": "Edit"}[name]
		for _, f := range geminiVariants(ti, "file_path", "absolute_path", "path") {
			req.Inputs = append(req.Inputs, base(tool, map[string]any{"file_path": f}))
		}
	case "glob":
		for _, dir := range orNone(geminiStrings(ti, "dir_path", "path")) {
			req.Inputs = append(req.Inputs, base(globCall(str(ti, "pattern"), dir)))
		}
	case "search_file_content", "grep_search", "grep":
		// What widens the files searched is kept: an include glob (which
		// ripgrep applies over its ignore files) and no_ignore or
		// respect_git_ignore false (docs/hosts.md, Gemini CLI).
		includes := geminiStrings(ti, "include", "include_pattern", "glob")
		if len(includes) == 0 && geminiNoIgnore(ti) {
			includes = []string{"*"}
		}
		for _, dir := range orNone(geminiStrings(ti, "dir_path", "path")) {
			for _, inc := range orNone(includes) {
				in := map[string]any{"pattern": ti["pattern"]}
				if dir != "" {
					in["path"] = dir
				}
				if inc != "" {
					in["glob"] = inc
				}
				if strings.Contains(inc, "..") {
					// Gemini's fallback search globs the include from
					// the directory (node's glob): "../../.ssh/*" leaves it.
					in["path"] = "/"
				}
				req.Inputs = append(req.Inputs, base("Grep", in))
			}
		}
	case "list_directory", "ls":
		for _, dir := range orNone(geminiStrings(ti, "dir_path", "path")) {
			in := map[string]any{"pattern": "*"}
			if dir != "" {
				in["path"] = dir
			}
			req.Inputs = append(req.Inputs, base("Glob", in))
		}
	case "read_many_files":
		// It reads the contents of every file its patterns match, hidden
		// and git-ignored ones on request: a Read of a plain path, else a
		// Grep of the tree the pattern starts in, every file selected
		// (manyFilesCall).
		var paths []any
		for _, k := range []string{"paths", "include"} {
			if xs, ok := ti[k].([]any); ok {
				paths = append(paths, xs...)
			}
		}
		for _, x := range paths {
			s, _ := x.(string)
			req.Inputs = append(req.Inputs, base(manyFilesCall(s)))
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

// manyFilesCall is the permopa call for the files read_many_files reads
// for one pattern: a Read of a path with no glob character, else a Grep of
// the directory the pattern starts in with every file selected (glob "*":
// hidden and ignored files too, as useDefaultExcludes false and
// respect_git_ignore false read them). A ".." in or after a wildcard
// segment leaves that directory (node's glob resolves "src/*/../../.env"
// to ".env"): the Grep starts at "/".
func manyFilesCall(pattern string) (string, map[string]any) {
	tool, in := globCall(pattern, "")
	if tool != "Glob" {
		return tool, in
	}
	out := map[string]any{"pattern": pattern, "glob": "*"}
	if dir, ok := in["path"]; ok {
		out["path"] = dir
	}
	if globLeavesRoot(pattern) {
		out["path"] = "/"
	}
	return "Grep", out
}

// globLeavesRoot reports a ".." in or after the first segment with a glob
// character (files.rego reads a Glob pattern the same way).
func globLeavesRoot(pattern string) bool {
	segs := strings.Split(pattern, "/")
	for i, seg := range segs {
		if strings.ContainsAny(seg, "*?[{") {
			for _, s := range segs[i:] {
				if strings.Contains(s, "..") {
					return true
				}
			}
			return false
		}
	}
	return false
}

// geminiVariants is every value the payload gives under the names Gemini
// CLI versions have used for one parameter (read_file's path was path,
// then absolute_path, then file_path): which one the running version reads
// is not known, and the others are extra keys it does not refuse, so each
// distinct value is decided and the strictest answers. A missing value is
// [nil], which fails the input's validation (DENY).
func geminiVariants(m map[string]any, keys ...string) []any {
	var out []any
	for _, k := range keys {
		v, ok := m[k]
		if !ok || v == nil {
			continue
		}
		dup := false
		for _, o := range out {
			if fmt.Sprint(o) == fmt.Sprint(v) {
				dup = true
			}
		}
		if !dup {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return []any{nil}
	}
	return out
}

// geminiStrings is each distinct non-empty string of geminiVariants.
func geminiStrings(m map[string]any, keys ...string) []string {
	var out []string
	for _, v := range geminiVariants(m, keys...) {
		if s, ok := v.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// orNone is xs, or one "" (no value) when xs is empty.
func orNone(xs []string) []string {
	if len(xs) == 0 {
		return []string{""}
	}
	return xs
}

// geminiNoIgnore reports a Gemini search that reads ignored files too:
// no_ignore true, or file_filtering_options with respect_git_ignore (or
// respect_gemini_ignore) false.
func geminiNoIgnore(m map[string]any) bool {
	if m["no_ignore"] == true {
		return true
	}
	if f, ok := m["file_filtering_options"].(map[string]any); ok {
		return f["respect_git_ignore"] == false || f["respect_gemini_ignore"] == false
	}
	return false
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
