package engine

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/permopa/permopa/permission"
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
	p := e.untrusted.Load()
	if p == nil || len(*p) == 0 || d.Behavior == permission.Allow || d.Step == permission.StepError {
		return
	}
	tool := toolNameOf(input)
	var noted []string
	project := ""
	n := 0
	for _, u := range *p {
		if u.Tool != "" && tool != "" && !toolMatches(u.Tool, tool) {
			continue
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
	d.Message += fmt.Sprintf(" (not applied because the project's settings are not trusted: %s%s; `permopa trust %s` shows and trusts them)",
		strings.Join(noted, "; "), more, project)
}

// toolNameOf is the input's tool_name ("" when it has none that can be read).
func toolNameOf(input any) string {
	switch in := input.(type) {
	case map[string]any:
		s, _ := in["tool_name"].(string)
		return s
	case jsonDocument:
		var v struct {
			ToolName string `json:"tool_name"`
		}
		_ = json.Unmarshal(in, &v)
		return v.ToolName
	}
	return ""
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
