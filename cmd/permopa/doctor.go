package main

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"

	"github.com/permopa/permopa/adapter/hookproto"
)

func doctorCommand(p procEnv) *cobra.Command {
	f := installFlags{proc: p}
	c := &cobra.Command{
		Use:   "doctor claude|codex|gemini",
		Short: "Check an installation of permopa's hooks and run one harmless call through it",
		Long: `Checks that the host's settings file (--scope, --project as for install) has
permopa's hooks for every event permopa answers, that each hook's matcher
reaches every tool permopa protects, that each hook blocks when it cannot
run (' || exit 2', and Claude Code's "onFailure": "block"), that the host
will run it (Codex: the hook is trusted, through Codex's app server; Gemini
CLI: the folder is trusted), and runs one harmless call (a read-only
listing in the project) through each hook command, checking that the
answer lets it run. It runs a hook command only when it is permopa's hook
command and nothing else and its binary, an absolute path or a name on
PATH, is a permopa binary (this one, or a Go binary built from permopa's
commands) outside the project; else it says why it does not run it.
Exits 1 when a check fails.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			t, err := f.target(args[0])
			if err != nil {
				return err
			}
			if failed := t.doctor(c.OutOrStdout()); failed > 0 {
				return fmt.Errorf("permopa doctor: %d check(s) failed", failed)
			}
			return nil
		},
	}
	f.register(c, "doctor")
	return c
}

// installedHook is one of permopa's hooks in a host settings file.
type installedHook struct {
	event, matcher string
	// desc is the command, or "http URL" for Claude Code's http hook.
	desc      string
	onFailure string
}

// errSettingsSyntax marks a host settings file that does not parse.
type errSettingsSyntax struct{ err error }

func (e errSettingsSyntax) Error() string { return e.err.Error() }

// installedHooks lists the permopa hooks of t.file, read as install reads
// it (never through a link, at most maxHostSettings bytes, nesting
// bounded).
func (t target) installedHooks() ([]installedHook, error) {
	data, err := t.readSettings()
	if err != nil {
		return nil, err
	}
	var out []installedHook
	if t.host == "codex" {
		if err := checkTOMLDepth(data); err != nil {
			return nil, errSettingsSyntax{err}
		}
		var raw map[string]any
		if err := toml.Unmarshal(data, &raw); err != nil {
			return nil, errSettingsSyntax{tomlPositioned(err)}
		}
		// [hooks.state] is not an event: read the events one by one.
		hooks, _ := raw["hooks"].(map[string]any)
		for event, v := range hooks {
			groups, _ := v.([]any)
			for _, g := range groups {
				gm, _ := g.(map[string]any)
				matcher, _ := gm["matcher"].(string)
				hs, _ := gm["hooks"].([]any)
				for _, h := range hs {
					hm, _ := h.(map[string]any)
					if c, _ := hm["command"].(string); isPermopaHook(c, t.host) {
						out = append(out, installedHook{event: event, matcher: matcher, desc: c})
					}
				}
			}
		}
		return out, nil
	}
	root, err := parseJSONObject(data)
	if err != nil {
		return nil, errSettingsSyntax{err}
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type      string `json:"type"`
				Command   string `json:"command"`
				URL       string `json:"url"`
				OnFailure string `json:"onFailure"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(encodeJSON(root), &doc); err != nil {
		return nil, errSettingsSyntax{fmt.Errorf("the hooks are not in the host's shape: %v", err)}
	}
	for event, groups := range doc.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				switch {
				case h.Type == "http" && t.host == "claude" && isPermopaHookURL(h.URL):
					out = append(out, installedHook{event: event, matcher: g.Matcher, desc: httpHookPrefix + h.URL, onFailure: h.OnFailure})
				case isPermopaHook(h.Command, t.host):
					out = append(out, installedHook{event: event, matcher: g.Matcher, desc: h.Command, onFailure: h.OnFailure})
				}
			}
		}
	}
	return out, nil
}

func (t target) events() []string {
	if t.host == "gemini" {
		return []string{"BeforeTool"}
	}
	return []string{"PreToolUse", "PermissionRequest"}
}

// protectedTools are tool names each of which a hook's matcher must
// reach: the tools of install's matcher, and an MCP tool.
func (t target) protectedTools() []string {
	m := map[string]string{"claude": claudeMatcher, "codex": codexMatcher, "gemini": geminiMatcher}[t.host]
	var out []string
	for _, name := range strings.Split(m, "|") {
		switch name {
		case "mcp__.*":
			name = "mcp__server__tool"
		case "mcp_.*":
			name = "mcp_server_tool"
		}
		out = append(out, name)
	}
	return out
}

// unhooked are the protected tools a matcher does not reach. The hosts
// read a matcher as a regular expression ("" and "*" match every tool);
// it is read here as one that must match the whole name, the narrower of
// the readings, so that doctor never reports a tool reached that the host
// might skip. A matcher that does not compile reaches nothing.
func (t target) unhooked(matcher string) []string {
	if matcher == "" || matcher == "*" {
		return nil
	}
	re, err := regexp.Compile("^(?:" + matcher + ")$")
	var out []string
	for _, tool := range t.protectedTools() {
		if err != nil || !re.MatchString(tool) {
			out = append(out, tool)
		}
	}
	return out
}

// doctor prints one line per check and returns how many failed.
func (t target) doctor(out io.Writer) int {
	failed := 0
	check := func(ok bool, format string, args ...any) {
		mark := "ok  "
		if !ok {
			mark = "FAIL"
			failed++
		}
		fmt.Fprintf(out, "%s %s\n", mark, fmt.Sprintf(format, args...))
	}
	hooks, err := t.installedHooks()
	var syntax errSettingsSyntax
	switch {
	case errors.Is(err, os.ErrNotExist):
		check(false, "%s does not exist (run `permopa install %s`)", t.file, t.host)
		return failed
	case errors.As(err, &syntax):
		// install refuses the same file: fix it first.
		check(false, "%s:%v (the host cannot read it either; fix it by hand, then run `permopa doctor %s` again)", t.file, syntax.err, t.host)
		return failed
	case err != nil:
		check(false, "%v", err)
		return failed
	}
	byEvent := map[string][]installedHook{}
	for _, h := range hooks {
		byEvent[h.event] = append(byEvent[h.event], h)
	}
	var n int
	for _, e := range t.events() {
		hs := byEvent[e]
		var cs []string
		for _, h := range hs {
			cs = append(cs, h.desc)
		}
		n += len(hs)
		check(len(hs) > 0, "%s has a permopa %s hook%s", t.file, e, map[bool]string{true: ": " + strings.Join(cs, "; ")}[len(hs) > 0])
		if len(hs) > 1 {
			check(false, "%s has %d permopa %s hooks: each call is decided %d times; run `permopa install %s` to keep one", t.file, len(hs), e, len(hs), t.host)
		}
		for _, h := range hs {
			if miss := t.unhooked(h.matcher); len(miss) > 0 {
				check(false, "%s hook's matcher %q does not reach %s: %s runs those tools without asking permopa; run `permopa install %s`", e, h.matcher, strings.Join(miss, ", "), t.host, t.host)
			} else {
				check(true, "%s hook's matcher %q reaches every tool permopa protects", e, h.matcher)
			}
			if why := t.failsOpen(h); why != "" {
				check(false, "%s hook `%s` would fail open: %s; run `permopa install %s`", e, h.desc, why, t.host)
			}
			if why := t.pathHijack(h.desc); why != "" && !strings.HasPrefix(h.desc, httpHookPrefix) {
				check(false, "%s hook `%s` may not run permopa: %s", e, h.desc, why)
			}
		}
	}
	if msg := t.hooksOffMessage(); msg != "" {
		check(false, "%s", msg)
	}
	// The hook blocks every call of a project whose host files set a
	// variable permopa reads its own settings from (docs/hosts.md,
	// "Environment from the project").
	for _, v := range hookproto.ProjectSettingsEnv(t.host, t.project, t.home) {
		check(false, "%s sets %s for the hook, which permopa reads its own settings from: the hook blocks every call in %s; remove it from %s (set it in %s or your shell instead)",
			v.File, v.Name, t.project, v.File, map[string]string{"claude": "~/.claude/settings.json's env", "gemini": "~/.gemini/.env"}[t.host])
	}
	for _, a := range t.otherApprovers() {
		check(false, "%s: it can approve a call permopa asks about without you (permopa gives no decision there, so that Claude Code shows its dialog); remove it, or trust what it does", a)
	}
	if t.host == "codex" && t.scope == "project" {
		for _, w := range t.warnings() {
			fmt.Fprintf(out, "note %s\n", w)
		}
	}
	if t.host == "gemini" {
		trusted, how := geminiFolderTrusted(t.home, t.geminiTrust, t.project)
		check(trusted, "Gemini CLI trusts %s (%s)", t.project, how)
	}
	if t.host == "codex" && n > 0 {
		t.doctorCodexTrust(check)
	}
	t.doctorProjectTrust(out)
	seen := map[string]bool{}
	for _, e := range t.events() {
		for _, h := range byEvent[e] {
			if seen[e+h.desc] {
				continue
			}
			seen[e+h.desc] = true
			ok, msg := t.harmlessCall(e, h.desc)
			check(ok, "%s hook `%s` answers a harmless call: %s", e, h.desc, msg)
		}
	}
	for desc := range seenCommands(byEvent) {
		t.doctorHookServer(out, desc)
		break // one server for every command of the same binary
	}
	return failed
}

// seenCommands are the hook commands of byEvent (not http hooks).
func seenCommands(byEvent map[string][]installedHook) map[string]bool {
	out := map[string]bool{}
	for _, hs := range byEvent {
		for _, h := range hs {
			if !strings.HasPrefix(h.desc, httpHookPrefix) {
				out[h.desc] = true
			}
		}
	}
	return out
}

// failsOpen says why the host would let calls through unchecked when the
// hook cannot run, or "": a command without failClosedSuffix (the host
// reads 127, "command not found", as "hook failed, carry on") and, for
// Claude Code, a hook without "onFailure": "block".
func (t target) failsOpen(h installedHook) string {
	var why []string
	if !strings.HasPrefix(h.desc, httpHookPrefix) && !strings.HasSuffix(strings.TrimSpace(h.desc), strings.TrimSpace(failClosedSuffix)) {
		why = append(why, "the command does not end with `"+strings.TrimSpace(failClosedSuffix)+"`, so a missing or broken binary is an error the host ignores")
	}
	if t.host == "claude" && h.onFailure != "block" {
		why = append(why, `it has no "onFailure": "block"`)
	}
	return strings.Join(why, ", and ")
}

func (t target) doctorCodexTrust(check func(bool, string, ...any)) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	app, err := startCodexApp(ctx, t.codexBin, t.codexHome, t.proc)
	if err != nil {
		check(false, "cannot ask Codex whether it trusts the hooks: %v", err)
		return
	}
	defer app.close()
	list, notes, err := app.hooks(t.project)
	if err != nil {
		check(false, "cannot ask Codex whether it trusts the hooks: %v", err)
		return
	}
	file := t.realFile()
	n := 0
	for _, h := range list {
		if !t.ours(h, file) {
			continue
		}
		n++
		check(h.TrustStatus == "trusted" || h.TrustStatus == "managed", "Codex %s hook %s is %s%s", h.EventName, h.Key, h.TrustStatus,
			map[bool]string{true: " (Codex skips it: run `permopa install codex` again, or trust it in codex's /hooks)"}[h.TrustStatus != "trusted" && h.TrustStatus != "managed"])
	}
	if n == 0 {
		check(false, "Codex does not load the permopa hooks of %s for %s%s", t.file, t.project, map[bool]string{true: ": " + strings.Join(notes, "; ")}[len(notes) > 0])
	}
}

// httpHookPrefix starts installedHooks' description of an http hook.
const httpHookPrefix = "http "

// harmlessPayload is the read-only call doctor asks a hook about.
func (t target) harmlessPayload(event string) []byte {
	p := map[string]any{"session_id": "permopa-doctor", "cwd": t.project, "hook_event_name": event, "tool_use_id": "permopa-doctor-1"}
	switch t.host {
	case "gemini":
		p["tool_name"], p["tool_input"] = "list_directory", map[string]any{"dir_path": t.project}
	default:
		p["permission_mode"] = "default"
		p["tool_name"], p["tool_input"] = "Bash", map[string]any{"command": "ls"}
	}
	payload, _ := json.Marshal(p)
	return payload
}

// harmlessPost checks an http hook as Claude Code uses it: it must block
// when it fails ("onFailure": "block"), its server must listen (on Linux,
// as this user or root: any user may listen on a free port, and Claude
// Code takes the answer of whoever does), and a harmless call posted to
// it must be answered 200 with an answer that lets it run.
func (t target) harmlessPost(event, desc string) (bool, string) {
	raw, rest, _ := strings.Cut(strings.TrimPrefix(desc, httpHookPrefix), " ")
	if rest != "" {
		return false, fmt.Sprintf("it has %s: while the server is down or answers an error, Claude Code lets every call through unchecked; run `permopa install claude --server …` again to set \"onFailure\": \"block\"", rest)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return false, err.Error()
	}
	if msg := checkListener(u.Host); msg != "" {
		return false, msg
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, raw, bytes.NewReader(t.harmlessPayload(event)))
	if err != nil {
		return false, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, fmt.Sprintf("the server does not answer (%v): every call is blocked until it runs; start it (`permopa run --server --addr %s`, docs/hosts.md) or install the command hooks again (`permopa install claude`)", err, u.Host)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	took := time.Since(start).Round(time.Millisecond)
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Sprintf("status %d in %s (is it a permopa server of this version?): %s", resp.StatusCode, took, strings.TrimSpace(string(body)))
	}
	return judgeAnswer(body, took)
}

// judgeAnswer reads a hook's stdout (or an http hook's body): JSON or
// nothing, and no deny or block.
func judgeAnswer(stdout []byte, took time.Duration) (bool, string) {
	var ans map[string]any
	if s := strings.TrimSpace(string(stdout)); s != "" {
		if err := json.Unmarshal([]byte(s), &ans); err != nil {
			return false, fmt.Sprintf("the answer is not JSON (%v): %s", err, s)
		}
	}
	b, _ := json.Marshal(ans)
	if strings.Contains(string(b), `"deny"`) || strings.Contains(string(b), `"block"`) {
		return false, fmt.Sprintf("denied in %s: %s", took, strings.TrimSpace(string(stdout)))
	}
	if len(bytes.TrimSpace(stdout)) == 0 {
		return true, fmt.Sprintf("no objection, in %s", took)
	}
	return true, fmt.Sprintf("%s in %s", strings.TrimSpace(string(stdout)), took)
}

// harmlessCall runs a hook command with a read-only call in the project
// and checks that the answer lets the call run. It runs only a command
// that is a plain permopa hook command (hookArgv) whose binary is a
// permopa binary outside the project (permopaBinary): never what a
// repository could have put in the settings file or on disk. The binary
// is run directly, by the path it resolved to, not through a shell that
// could resolve it differently.
func (t target) harmlessCall(event, command string) (bool, string) {
	if strings.HasPrefix(command, httpHookPrefix) {
		return t.harmlessPost(event, command)
	}
	bin, args, why := t.hookArgv(command)
	if why != "" {
		return false, "not run: " + why
	}
	payload := t.harmlessPayload(event)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code, err := t.proc.startHook(ctx, bin, args, t.project, t.proc.environ(), payload, &stdout, &stderr)
	took := time.Since(start).Round(time.Millisecond)
	if err != nil {
		return false, fmt.Sprintf("cannot run it: %v", err)
	}
	text := strings.TrimSpace(stdout.String() + " " + stderr.String())
	if code != 0 {
		return false, fmt.Sprintf("exit %d in %s: %s", code, took, text)
	}
	return judgeAnswer(stdout.Bytes(), took)
}

// hookArgv is the binary (resolved) and arguments of a hook command doctor
// may run, or why it will not run it: the command must be permopa's hook
// command and nothing else (`[']BIN['] hook HOST …` or `permopa-hook HOST
// …`, with install's failClosedSuffix or without), BIN an absolute path or
// a name found on PATH (never a relative path, which the host resolves in
// the directory it runs in), outside the project, and a permopa binary.
func (t target) hookArgv(command string) (string, []string, string) {
	words, ok := plainWords(strings.TrimSuffix(strings.TrimSpace(command), strings.TrimSpace(failClosedSuffix)))
	if !ok || len(words) < 2 {
		return "", nil, "it is more than a permopa hook command (shell syntax around it); remove it and run `permopa install " + t.host + "`"
	}
	name := words[0]
	base := filepath.Base(name)
	if !(base == "permopa" && words[1] == "hook" || base == "permopa-hook") {
		return "", nil, "it does not run permopa's hook"
	}
	var bin string
	switch {
	case filepath.IsAbs(name):
		bin = name
	case strings.Contains(name, "/"):
		return "", nil, fmt.Sprintf("%s is a relative path, which the host resolves in the directory it runs in (the project's files, not a binary you installed); run `permopa install %s`", name, t.host)
	default:
		p, err := t.proc.lookPath(name)
		if err != nil {
			return "", nil, fmt.Sprintf("%s is not on PATH, so the host cannot run it and blocks every call; install it (docs/hosts.md)", name)
		}
		if t.pathHijack(command) != "" {
			return "", nil, "its program may be looked up in the project (above), so doctor cannot tell what the host runs"
		}
		bin = p
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", nil, fmt.Sprintf("%s cannot be found (%v): the host blocks every call", bin, err)
	}
	resolved := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	inside := func(dir, p string) bool {
		rel, err := filepath.Rel(dir, p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
	}
	// doctor run in the home directory (or above it) checks no project:
	// the binaries the user installed there (~/go/bin) are not a
	// repository's files.
	if proj, home := resolved(t.project), resolved(t.home); !inside(proj, home) {
		for _, p := range []string{bin, real} {
			if inside(proj, p) {
				return "", nil, fmt.Sprintf("%s is inside the project %s: doctor never runs a project's files (a repository can ship a program named %s)", p, t.project, base)
			}
		}
	}
	if why := t.permopaBinary(real); why != "" {
		return "", nil, why
	}
	return real, words[1:], ""
}

// permopaBinary is "" when the file at path is a permopa binary, else why
// doctor does not take it for one: the same file as this permopa, or a Go
// binary whose build information (read from the file, not by running it)
// names one of permopa's commands as its main package.
func (t target) permopaBinary(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return err.Error()
	}
	if !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return path + " is not an executable file: the host blocks every call"
	}
	if self, err := t.proc.executable(); err == nil {
		if sfi, err := os.Stat(self); err == nil && os.SameFile(fi, sfi) {
			return ""
		}
	}
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("%s is not a Go binary doctor can identify as permopa's (%v), so it does not run it", path, err)
	}
	switch bi.Path {
	case "github.com/permopa/permopa/cmd/permopa", "github.com/permopa/permopa/cmd/permopa-hook", "github.com/permopa/permopa/cmd/permopa-hook-local":
		return ""
	}
	return fmt.Sprintf("%s was built from %s, not from permopa's commands, so doctor does not run it", path, bi.Path)
}

// plainWords splits a command into words: plain words and single-quoted
// ones (as hookproto.ShellQuote writes them), and nothing else a shell
// would read differently.
func plainWords(command string) ([]string, bool) {
	var words []string
	var w strings.Builder
	in, has := false, false
	for _, r := range command {
		switch {
		case r == '\'':
			in, has = !in, true
		case in:
			w.WriteRune(r)
		case r == ' ' || r == '\t':
			if has {
				words = append(words, w.String())
				w.Reset()
				has = false
			}
		case strings.ContainsRune(";&|$`<>()\\\n*?[]{}!#~\"", r):
			return nil, false
		default:
			w.WriteRune(r)
			has = true
		}
	}
	if in {
		return nil, false
	}
	if has {
		words = append(words, w.String())
	}
	return words, true
}

// checkListener is "" when the server at hostport may be trusted with the
// hook's answers (hookproto.CheckListener), else why not.
func checkListener(hostport string) string {
	if err := hookproto.CheckListener(hostport); err != nil {
		return err.Error() + ": Claude Code would take its answers; stop it, or move permopa's server to another port"
	}
	return ""
}
