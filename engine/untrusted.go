package engine

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// maxUntrustedNoted bounds how many left-out settings a decision names.
const maxUntrustedNoted = 3

// noteUntrusted adds to the message of a decision that is not ALLOW what
// the untrusted project settings set that might have changed it (their
// allow rules for the call's tool, a looser mode, directories, removed
// dangerous paths, ...), each with its file and line, so that the user
// learns why a rule of the project does not apply (docs/rules.md,
// "Trusted projects"). The decision itself is the policy's: this only
// names what the settings left out.
func (e *Engine) noteUntrusted(input any, d *permission.Decision) {
	notes := e.untrusted.Load()
	if notes == nil || (len(notes.layers) == 0 && len(notes.projects) == 0) ||
		d.Behavior == permission.Allow || d.Step == permission.StepError || d.Step == permission.StepDenyRule {
		// A deny rule's DENY stands whatever the other settings say.
		return
	}
	tool, cwd := callOf(input)
	all := notes.layers
	if p := notes.projects[cwd]; len(p) > 0 {
		all = append(slices.Clip(all), p...)
	}
	var noted []string
	project := ""
	n := 0
	for _, u := range all {
		if u.Tool != "" && tool != "" && !toolMatches(u.Tool, tool) {
			continue
		}
		if cwd != "" && u.Project != "" && cwd != u.Project && !strings.HasPrefix(cwd, u.Project+"/") {
			continue // a call made outside that project
		}
		n++
		if len(noted) < maxUntrustedNoted {
			noted = append(noted, u.String())
			project = u.Project
		}
	}
	if n == 0 {
		return
	}
	more := ""
	if n > len(noted) {
		more = fmt.Sprintf(" and %d more", n-len(noted))
	}
	d.Message += fmt.Sprintf(" (not applied because the project's settings are not trusted: %s%s; the user can review and trust them with `permopa trust %s`)",
		strings.Join(noted, "; "), more, project)
}

// untrustedNotes are the settings' Untrusted and ProjectUntrusted.
type untrustedNotes struct {
	layers   []settings.Untrusted
	projects map[string][]settings.Untrusted
}

func untrustedOf(s settings.Settings) *untrustedNotes {
	return &untrustedNotes{layers: s.Untrusted, projects: s.ProjectUntrusted}
}

// callOf is the input's tool_name and cwd ("" when it has none that can
// be read).
func callOf(input any) (tool, cwd string) {
	switch in := input.(type) {
	case map[string]any:
		tool, _ = in["tool_name"].(string)
		cwd, _ = in["cwd"].(string)
	case jsonDocument:
		var v struct {
			ToolName any `json:"tool_name"`
			Cwd      any `json:"cwd"`
		}
		_ = json.Unmarshal(in, &v)
		tool, _ = v.ToolName.(string)
		cwd, _ = v.Cwd.(string)
	}
	return tool, cwd
}

// toolMatches reports whether a rule's tool name (a name or a pattern such
// as mcp__github__*) names tool.
func toolMatches(ruleTool, tool string) bool {
	if ruleTool == tool {
		return true
	}
	if strings.ContainsAny(ruleTool, "*?[") {
		ok, _ := path.Match(ruleTool, tool)
		return ok
	}
	return false
}
