// Package hosts holds the end-to-end tests that run the real agent host
// CLIs (Claude Code, Codex, Gemini CLI) against a mock of their model API
// on loopback, with permopa's hooks installed by `permopa install`, and
// check what a user cares about: a denied command did not run, an allowed
// one did, an ASK reached the user (or was denied where nobody can answer)
// and permopa's reason reached the model. See docs/hosts.md.
//
// They are slow (each host is a Node or native program that starts in
// about a second) and need the CLIs from npm, so they build only with the
// hostse2e tag: .ci/run installs the pinned versions of hosts.txt and runs
// `go test -tags hostse2e ./e2e/hosts/`.
package hosts
