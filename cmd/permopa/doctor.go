package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"
)

func doctorCommand() *cobra.Command {
	var f installFlags
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
				Command string `json:"command" toml:"command"`
			} `json:"hooks" toml:"hooks"`
		} `json:"hooks" toml:"hooks"`
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
				if isPermopaHook(h.Command, t.host) {
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
		trusted, how := geminiFolderTrusted(t.home, t.project)
		check(trusted, "Gemini CLI trusts %s (%s)", t.project, how)
	}
	if t.host == "codex" && len(commands) > 0 {
		t.doctorCodexTrust(check)
	}
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
	app, err := startCodexApp(ctx, t.codexBin, t.home)
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

// harmlessCall runs a hook command as the host runs it, with a read-only
// call in the project, and checks that the answer lets the call run.
func (t target) harmlessCall(event, command string) (bool, string) {
	if !plainHookCommand(command) {
		// Never run what only looks like permopa's hook: doctor would
		// run the rest of it too.
		return false, "not run: it is more than a permopa hook command (shell syntax around it); remove it and run `permopa install " + t.host + "`"
	}
	p := map[string]any{"session_id": "permopa-doctor", "cwd": t.project, "hook_event_name": event, "tool_use_id": "permopa-doctor-1"}
	switch t.host {
	case "gemini":
		p["tool_name"], p["tool_input"] = "list_directory", map[string]any{"dir_path": t.project}
	default:
		p["permission_mode"] = "default"
		p["tool_name"], p["tool_input"] = "Bash", map[string]any{"command": "ls"}
	}
	payload, _ := json.Marshal(p)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = t.project
	cmd.Stdin = bytes.NewReader(payload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
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
	var ans map[string]any
	if s := strings.TrimSpace(stdout.String()); s != "" {
		if err := json.Unmarshal([]byte(s), &ans); err != nil {
			return false, fmt.Sprintf("the answer is not JSON (%v): %s", err, s)
		}
	}
	b, _ := json.Marshal(ans)
	if strings.Contains(string(b), `"deny"`) {
		return false, fmt.Sprintf("denied in %s: %s", took, text)
	}
	if stdout.Len() == 0 {
		return true, fmt.Sprintf("no objection, in %s", took)
	}
	return true, fmt.Sprintf("%s in %s", strings.TrimSpace(stdout.String()), took)
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
