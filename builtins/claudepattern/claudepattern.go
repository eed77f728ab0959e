// Package claudepattern converts patterns to Claude Code path-rule
// patterns. It imports only the standard library's strings, so the hook
// client (cmd/permopa-hook) can use it and stay a static binary.
package claudepattern

import "strings"

// FromFnmatch rewrites an fnmatch pattern as the Claude Code path-rule
// pattern that covers the same files, when there is one: a literal path, or
// a literal directory followed by "/*" or "/**" (which in fnmatch reach
// every depth, as "/**" does in a Claude Code pattern), absolute ("//x"),
// at the home ("~/x") or relative to the cwd ("./x"). This is how an
// accepted AgentScope suggestion ("/repo/src/**") is written to a settings
// file ("//repo/src/**"). ok is false for any other pattern.
func FromFnmatch(p string) (string, bool) {
	dir, tail := p, ""
	switch {
	case p == "*" || p == "**":
		return "//**", true
	case strings.HasSuffix(p, "/**"):
		dir, tail = strings.TrimSuffix(p, "/**"), "/**"
	case strings.HasSuffix(p, "/*"):
		dir, tail = strings.TrimSuffix(p, "/*"), "/**"
	}
	if dir == "" && tail != "" {
		return "//**", true
	}
	if dir == "" || strings.ContainsAny(dir, "*?[{}\\") || strings.HasPrefix(dir, "!") {
		return "", false
	}
	switch {
	case strings.HasPrefix(dir, "/"):
		return "/" + dir + tail, true
	case dir == "~" || strings.HasPrefix(dir, "~/"):
		return dir + tail, true
	case strings.HasPrefix(dir, "~"):
		return "", false
	}
	if !strings.HasPrefix(dir, "./") && !strings.HasPrefix(dir, "../") {
		dir = "./" + dir
	}
	return dir + tail, true
}
