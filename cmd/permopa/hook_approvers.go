package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/permopa/permopa/internal/safefile"
)

// For a call permopa asks about, its Claude Code PermissionRequest hook
// gives no decision, so that Claude Code shows its dialog (docs/hosts.md,
// "What Claude Code gets"). Another PermissionRequest hook that answers
// "allow" then approves the call without the user: a repository that ships
// one in its .claude/settings.json (or settings.local.json) turns every
// ASK of permopa into an ALLOW. (A PreToolUse hook's allow cannot beat
// permopa's ask or deny: Claude Code takes the strictest.)

// otherApprovers lists the PermissionRequest hooks of the project's Claude
// Code settings files that are not permopa's and whose matcher may reach
// a tool permopa protects, each with its file.
func (t target) otherApprovers() []string {
	if t.host != "claude" {
		return nil
	}
	var out []string
	for _, name := range []string{"settings.json", "settings.local.json"} {
		file := filepath.Join(t.project, ".claude", name)
		data, err := safefile.Read(file, maxHostSettings)
		if err != nil {
			continue
		}
		var doc struct {
			Hooks map[string][]struct {
				Matcher string `json:"matcher"`
				Hooks   []struct {
					Type    string `json:"type"`
					Command string `json:"command"`
					URL     string `json:"url"`
					Prompt  string `json:"prompt"`
				} `json:"hooks"`
			} `json:"hooks"`
		}
		if json.Unmarshal(data, &doc) != nil {
			continue // doctor reports the syntax error of its own file
		}
		for _, g := range doc.Hooks["PermissionRequest"] {
			tools := t.mayReach(g.Matcher)
			if len(tools) == 0 {
				continue
			}
			for _, h := range g.Hooks {
				if isPermopaHook(h.Command, t.host) || (h.Type == "http" && isPermopaHookURL(h.URL)) {
					continue
				}
				what := h.Command
				if what == "" {
					what = strings.TrimSpace(h.Type + " " + h.URL)
				}
				out = append(out, fmt.Sprintf("%s has a PermissionRequest hook `%s` for %s", file, what, strings.Join(tools, ", ")))
			}
		}
	}
	return out
}

// mayReach are the protected tools a matcher may reach, read as widely as
// a host could read it (a regular expression matching anywhere in the
// name, or the name itself).
func (t target) mayReach(matcher string) []string {
	if matcher == "" || matcher == "*" {
		return t.protectedTools()
	}
	re, err := regexp.Compile(matcher)
	var out []string
	for _, tool := range t.protectedTools() {
		if tool == matcher || (err == nil && re.MatchString(tool)) {
			out = append(out, tool)
		}
	}
	return out
}
