package bash

// STUB: replaced by the real analyser (helper A). Signatures are the contract.

import "errors"

// Analyze parses command and analyses every leaf. The result is cached per
// (command, options) in a bounded process-wide cache; callers must not modify it.
func Analyze(command string, opts Options) *Analysis {
	return &Analysis{Reasons: []string{"not implemented"}, NotReadOnly: []string{"not implemented"}}
}

// Pattern is a compiled Bash rule content ("npm run:*", "npm run *", "git status", "git * --force").
type Pattern struct{ content string }

// CompilePattern compiles a rule content; "" matches every command.
func CompilePattern(content string) (*Pattern, error) { return nil, errors.New("not implemented") }

// Match reports whether the pattern matches one argv.
func (p *Pattern) Match(argv []string) bool { return false }

// MatchAny returns the index of the first pattern that matches any leaf,
// seen through every wrapper, or -1. Deny and ask rules use it.
func (a *Analysis) MatchAny(patterns []*Pattern) int { return -1 }

// Covered reports whether every leaf is read-only or has its AllowArgv matched
// by some pattern, and the index of the first pattern used (-1 when the call
// is covered by read-only leaves alone). Allow rules use it.
func (a *Analysis) Covered(patterns []*Pattern) (index int, ok bool) { return -1, false }

// Suggest returns at most 5 rule contents that, accepted as allow rules,
// make Covered true for this command; nil when no rule can (unanalysable).
func (a *Analysis) Suggest() []string { return nil }
