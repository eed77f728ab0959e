package settings

// problem.go: Problem, the one type of every settings problem, with its place.

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// Problem is one thing wrong with the settings, whoever finds it: a file
// that cannot be read (CheckUnreadable), a rule or value left out
// (CheckInvalidRule, CheckInvalidValue), or a rules-lint finding (the other
// Check* kinds; docs/rules.md lists them). Loads return problems as errors
// (*Problem), `permopa rules lint` prints them; every one names where it
// is: the file (or environment variable), the line and column when known,
// the key and the rule.
type Problem struct {
	Level  string // LevelError, LevelWarning or LevelInfo
	Kind   string // a Check* constant
	File   string // the settings file, or the environment variable(s)
	Line   int    // from 1; 0 when not known
	Column int    // from 1; 0 when not known
	Key    string // permissions.deny, allow_rules.Bash, permissions.defaultMode, ...
	Rule   string // the rule as written, when the problem is one rule's
	Err    error  // what is wrong; its text is the message

	// Behavior is set when rules of that behavior were left out (ALLOW,
	// ASK or DENY): a rule that cannot be read, or a key that hides a
	// rule list. UnsafeProblems picks those of deny and ask rules.
	Behavior string
	// KeptLastGood: a file that cannot be read keeps its last good
	// settings (CheckUnreadable).
	KeptLastGood bool

	index int // the rule's place in its list, to find its line
}

// The kinds of problems a load finds (lint's are the other Check*
// constants).
const (
	CheckUnreadable   = "unreadable"    // a settings file cannot be read or does not parse
	CheckInvalidRule  = "invalid-rule"  // a rule cannot be read and is left out
	CheckInvalidValue = "invalid-value" // a value cannot be read (an unknown mode, a lock outside managed settings) and is left out
)

// newProblem is a problem of kind at level with message msg.
func newProblem(level, kind, file, key, msg string) Problem {
	return Problem{Level: level, Kind: kind, File: file, Key: key, Err: errors.New(msg)}
}

// Message is what is wrong, without the place.
func (p *Problem) Message() string {
	var se *SyntaxError
	switch {
	case p.Err == nil:
		return ""
	case errors.As(p.Err, &se):
		return se.Err.Error() // the place is the problem's
	}
	return p.Err.Error()
}

// Position is "FILE:LINE:COLUMN", as much of it as is known.
func (p *Problem) Position() string {
	where := p.File
	if p.Line > 0 {
		where += ":" + strconv.Itoa(p.Line)
		if p.Column > 0 {
			where += ":" + strconv.Itoa(p.Column)
		}
	}
	return where
}

// Lint says whether the problem is a rules-lint finding (`permopa rules
// lint` reports it too), rather than a file, rule or value a load could
// not read.
func (p *Problem) Lint() bool {
	switch p.Kind {
	case CheckUnreadable, CheckInvalidRule, CheckInvalidValue:
		return false
	}
	return true
}

// UnreadableFile says whether err is a settings file that could not be
// read or parsed.
func UnreadableFile(err error) bool {
	var p *Problem
	return errors.As(err, &p) && p.Kind == CheckUnreadable
}

// Error is the place first, as compilers write it, then the key, the rule
// and what is wrong: "FILE:LINE:COL: KEY: RULE: what [kind]" (the kind
// only for a lint finding). A file that cannot be read says what permopa
// does about it: keep its last good settings, or leave its rules out.
func (p *Problem) Error() string {
	var b strings.Builder
	pos := p.Position()
	if p.Kind == CheckUnreadable && p.File != "" {
		if p.Line == 0 && strings.Contains(p.Message(), p.File) {
			pos = "" // the error names the file itself ("open FILE: ...")
		} else {
			pos = "settings " + pos
		}
	}
	if pos != "" {
		b.WriteString(pos + ": ")
	}
	for _, s := range []string{p.Key, p.Rule} {
		if s != "" {
			b.WriteString(s + ": ")
		}
	}
	b.WriteString(p.Message())
	switch p.Kind {
	case CheckUnreadable:
		if p.KeptLastGood {
			b.WriteString(" (its last good settings are kept)")
		} else {
			b.WriteString(" (its rules are left out)")
		}
	case CheckInvalidRule, CheckInvalidValue:
	default:
		b.WriteString(" [" + p.Kind + "]")
	}
	return b.String()
}

func (p *Problem) Unwrap() error { return p.Err }

// MarshalJSON is `permopa rules lint --format json`'s finding: level,
// check (the kind), file, line, column, key, rule, message.
func (p Problem) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Level   string `json:"level"`
		Check   string `json:"check"`
		File    string `json:"file,omitempty"`
		Line    int    `json:"line,omitempty"`
		Column  int    `json:"column,omitempty"`
		Key     string `json:"key,omitempty"`
		Rule    string `json:"rule,omitempty"`
		Message string `json:"message"`
	}{p.Level, p.Kind, p.File, p.Line, p.Column, p.Key, p.Rule, p.Message()})
}

// fileProblem is a settings file that exists but could not be read or
// parsed, with the line and column of a syntax error.
func fileProblem(file string, err error, keptLastGood bool) *Problem {
	p := &Problem{Level: LevelError, Kind: CheckUnreadable, File: file, Err: err, KeptLastGood: keptLastGood}
	var se *SyntaxError
	if errors.As(err, &se) {
		p.Line, p.Column = se.Line, se.Column
	}
	return p
}

// UnsafeProblems picks the problems that make deciding without them unsafe,
// because a deny or ask rule may be missing: a file that could not be read
// and has no last good settings, and a deny or ask rule (or a key holding
// them) that could not be read. A host that must fail closed (a hook, a CI
// gate) refuses to decide while there are any; an invalid allow rule only
// makes permopa ask more.
func UnsafeProblems(problems []error) []error {
	var out []error
	for _, e := range problems {
		var p *Problem
		if !errors.As(e, &p) {
			continue
		}
		switch {
		case p.Kind == CheckUnreadable && !p.KeptLastGood:
			out = append(out, e)
		case p.Behavior != "" && p.Behavior != allow:
			out = append(out, e)
		}
	}
	return out
}
