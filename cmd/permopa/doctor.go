package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
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
permopa's hooks for every event permopa answers, that each hook command can
be run, that the host will run it (Codex: the hook is trusted, through
Codex's app server; Gemini CLI: the folder is trusted), and runs one
harmless call (a read-only listing in the project) through each hook command
exactly as the host would (sh -c), checking that the answer lets it run.
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
	f.register(c)
	return c
}

// installedHooks lists the permopa hook commands of t.file by event.
func (t target) installedHooks() (map[string][]string, error) {
	data, err := os.ReadFile(t.file)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type      string `json:"type"`
				Command   string `json:"command"`
				URL       string `json:"url"`
				OnFailure string `json:"onFailure"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if t.host == "codex" {
		var raw map[string]any
		if err := toml.Unmarshal(data, &raw); err != nil {
			return nil, err
		}
		// [hooks.state] is not an event: read the events one by one.
		hooks, _ := raw["hooks"].(map[string]any)
		for event, v := range hooks {
			groups, _ := v.([]any)
			for _, g := range groups {
				gm, _ := g.(map[string]any)
				hs, _ := gm["hooks"].([]any)
				for _, h := range hs {
					hm, _ := h.(map[string]any)
					if c, _ := hm["command"].(string); isPermopaHook(c, t.host) {
						out[event] = append(out[event], c)
					}
				}
			}
		}
		return out, nil
	}
	root, err := parseJSONObject(data)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(encodeJSON(root), &doc); err != nil {
		return nil, err
	}
	for event, groups := range doc.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				switch {
				case h.Type == "http" && t.host == "claude" && isPermopaHookURL(h.URL):
					// An http hook is listed as "http URL", with its
					// onFailure when it is not "block" (harmlessPost).
					desc := httpHookPrefix + h.URL
					if h.OnFailure != "block" {
						desc += " onFailure=" + h.OnFailure
					}
					out[event] = append(out[event], desc)
				case isPermopaHook(h.Command, t.host):
					out[event] = append(out[event], h.Command)
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
	if err != nil {
		check(false, "%s: %v (run `permopa install %s`)", t.file, err, t.host)
		return failed
	}
	var commands []string
	for _, e := range t.events() {
		cs := hooks[e]
		check(len(cs) > 0, "%s has a permopa %s hook%s", t.file, e, map[bool]string{true: ": " + strings.Join(cs, "; ")}[len(cs) > 0])
		if len(cs) > 1 {
			check(false, "%s has %d permopa %s hooks: each call is decided %d times; run `permopa install %s` to keep one", t.file, len(cs), e, len(cs), t.host)
		}
		commands = append(commands, cs...)
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
	if t.host == "codex" && len(commands) > 0 {
		t.doctorCodexTrust(check)
	}
	t.doctorProjectTrust(out)
	seen := map[string]bool{}
	for _, e := range t.events() {
		for _, c := range hooks[e] {
			if seen[e+c] {
				continue
			}
			seen[e+c] = true
			ok, msg := t.harmlessCall(e, c)
			check(ok, "%s hook `%s` answers a harmless call: %s", e, c, msg)
		}
	}
	return failed
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

// harmlessCall runs a hook command as the host runs it, with a read-only
// call in the project, and checks that the answer lets the call run.
func (t target) harmlessCall(event, command string) (bool, string) {
	if strings.HasPrefix(command, httpHookPrefix) {
		return t.harmlessPost(event, command)
	}
	if !plainHookCommand(command) {
		// Never run what only looks like permopa's hook: doctor would
		// run the rest of it too.
		return false, "not run: it is more than a permopa hook command (shell syntax around it); remove it and run `permopa install " + t.host + "`"
	}
	payload := t.harmlessPayload(event)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sh, err := t.proc.lookPath("sh")
	if err != nil {
		return false, fmt.Sprintf("cannot run it: %v", err)
	}
	cmd := exec.CommandContext(ctx, sh, "-c", command)
	cmd.Dir = t.project
	cmd.Env = t.proc.environ()
	cmd.Stdin = bytes.NewReader(payload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start).Round(time.Millisecond)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return false, fmt.Sprintf("cannot run it: %v", err)
	}
	code := cmd.ProcessState.ExitCode()
	text := strings.TrimSpace(stdout.String() + " " + stderr.String())
	if code != 0 {
		return false, fmt.Sprintf("exit %d in %s: %s", code, took, text)
	}
	return judgeAnswer(stdout.Bytes(), took)
}

// plainHookCommand reports whether command is a permopa hook command and
// nothing else: words without shell syntax, the first one permopa or
// permopa-hook.
func plainHookCommand(command string) bool {
	if strings.ContainsAny(command, ";&|$`<>()\\\n*?[]{}!#~") {
		return false
	}
	f := strings.Fields(command)
	if len(f) < 2 {
		return false
	}
	base := filepath.Base(strings.Trim(f[0], "'"))
	return base == "permopa" || base == "permopa-hook"
}

// checkListener is "" when the server at hostport may be trusted with the
// hook's answers (hookproto.CheckListener), else why not.
func checkListener(hostport string) string {
	if err := hookproto.CheckListener(hostport); err != nil {
		return err.Error() + ": Claude Code would take its answers; stop it, or move permopa's server to another port"
	}
	return ""
}
