package flagspec

import (
	"slices"
	"sort"
)

// The vocabulary as data, for the hostile-project fuzzer (builtins/bash,
// TestReadOnlyVocabularyFuzz; issue 23): every place of it that can be
// read-only, with the options it allows, so that invocations can be
// generated from each program's documented options.

// Form is a program, or a program and subcommand path, that can be read-only.
type Form struct {
	// Words are the program and the subcommand words ("git", "log").
	Words []string
	// Options are the options it allows (denied ones and those whose value
	// is a command line or code left out).
	Options []FormOption
	// Operands says what its operands are: "read" (files read),
	// "pattern" (a pattern, then files read), "text" (no paths), "none"
	// (no operand), "git" (revisions and pathspecs), "hook" (the
	// program's own parser, find's expression say).
	Operands string
	// AnyArgs: the program takes every word (echo, test, find).
	AnyArgs bool
}

// FormOption is one allowed option.
type FormOption struct {
	Name string
	// Value is "" (none), "required", "optional" (glued only), "next"
	// (the next word unless last) or "two" (two words).
	Value string
	// Role is "" (a plain value), "read" or "write" (a path).
	Role string
}

// Forms returns every form of the vocabulary that can be read-only, sorted
// by words: each registered program, and its subcommands down to depth
// (1: the program's own subcommands).
func Forms(depth int) []Form {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Form
	var walk func(s *spec, words []string, d int)
	walk = func(s *spec, words []string, d int) {
		if s == nil {
			return
		}
		if s.never == "" && (s.subs == nil || s.noSub == "") {
			out = append(out, formOf(s, words))
		}
		if d >= depth || s.kids == nil {
			return
		}
		kids := make([]string, 0, len(s.kids))
		for w := range s.kids {
			kids = append(kids, w)
		}
		sort.Strings(kids)
		for _, w := range kids {
			walk(s.kid(w), append(slices.Clone(words), w), d+1)
		}
	}
	for _, n := range names {
		walk(lookup(n), []string{n}, 0)
	}
	return out
}

func formOf(s *spec, words []string) Form {
	f := Form{Words: words, AnyArgs: s.anyArgs}
	f.Operands = map[opsPolicy]string{opsText: "text", opsRead: "read", opsPatRead: "pattern", opsNone: "none",
		opsGit: "git", opsHook: "hook"}[s.ops]
	for _, d := range s.defs {
		if d.deny != "" || d.parseOnly || d.role == roleCmd || d.role == roleCode {
			continue
		}
		o := FormOption{Name: d.name}
		o.Value = map[arity]string{argNone: "", argReq: "required", argOpt: "optional", argLast: "next", argTwo: "two"}[d.arity]
		o.Role = map[role]string{roleRead: "read", roleWrite: "write"}[d.role]
		f.Options = append(f.Options, o)
	}
	return f
}
