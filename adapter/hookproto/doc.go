// Package hookproto speaks the agent hosts' hook protocols (Claude Code,
// OpenAI Codex, Gemini CLI): it turns a host's hook payload into permopa
// inputs (docs/api.md), a permopa decision into the host's answer, and any
// fault into a blocking answer. It also asks a running `permopa run
// --server` for decisions (Client).
//
// It imports no OPA package, on purpose: cmd/permopa-hook links only this
// package and the wire types (package permission), so that a hook answered
// by a running server does not pay OPA's process start (tens of
// milliseconds of package initialisation). The
// adapter package decides locally with the engine and answers through the
// same code.
package hookproto
