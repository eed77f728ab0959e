package bash

import (
	"strings"

	"github.com/permopa/permopa/builtins/flagspec"
	"mvdan.cc/sh/v3/syntax"
)

// Values whose provenance the analysis knows (docs/shell.md, "Values and
// where they come from"). A path find prints or hands to -exec is a path
// under one of find's starting points; when every starting point is a
// static word that cannot start with "-", no such path can be taken for an
// option, and the program reading it reads (at most) the tree of that
// starting point. The walk hands those roots to the command that receives
// the paths (frame.dataRoots); the leaf is judged with pathMark in place of
// each supplied path, and a read of exactly pathMark becomes a recursive
// read of every root.

// pathMark stands for one path under a known root in the argv a leaf is
// judged with: it does not start with "-" (so the vocabulary reads it as an
// operand or an option's value), and it holds dyn (so it is never a static
// path, a literal pattern or literal code).
const pathMark = "./" + dyn

// findDataRoots returns the starting points of a find command line,
// resolved, when the paths it supplies are known to be paths under them:
// every word before the expression is static and no glob, and no primary
// reads starting points from elsewhere. ok is false otherwise.
func (w *walker) findDataRoots(argv []word, e flagspec.FindExpr, st state) ([]string, bool) {
	end := len(argv)
	if len(e.Primaries) > 0 {
		end = e.Primaries[0].Index
	}
	for _, a := range argv[1:end] {
		if a.dynamic || a.glob || a.s == "" {
			return nil, false
		}
	}
	for _, p := range e.Primaries {
		if p.Name == "-files0-from" {
			return nil, false
		}
	}
	var roots []string
	for _, r := range e.Roots {
		if strings.HasPrefix(r, "-") || strings.Contains(r, dyn) {
			return nil, false
		}
		ps, ok := w.resolve(r, st)
		if !ok || len(ps) == 0 {
			return nil, false
		}
		for _, p := range ps {
			roots = appendUnique(roots, p)
		}
	}
	return roots, len(roots) > 0
}

// findPipedCall returns a find statement whose words are all literal
// (quoted or not) and whose stderr, if redirected, goes to a file, not
// into the pipe; nil otherwise.
func findPipedCall(s *syntax.Stmt) *syntax.CallExpr {
	c, isCall := s.Cmd.(*syntax.CallExpr)
	if !isCall || len(c.Assigns) > 0 || len(c.Args) < 2 || c.Args[0].Lit() != "find" {
		return nil
	}
	for _, r := range s.Redirs {
		if r.N == nil || r.N.Value != "2" || (r.Op != syntax.RdrOut && r.Op != syntax.AppOut) {
			return nil
		}
	}
	for _, a := range c.Args {
		if !quotedLiteral(a) {
			return nil
		}
	}
	return c
}

// findPrintsOnlyPaths reports whether find's standard output is nothing
// but its paths, each ended by a NUL (-print0 and no other action that
// prints or runs a command): xargs -0 then reads whole paths.
func findPrintsOnlyPaths(argv []string) bool {
	print0 := false
	for _, p := range flagspec.ParseFind(argv).Primaries {
		switch p.Name {
		case "-print0":
			print0 = true
		case "-print", "-printf", "-ls", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0",
			"-fprintf", "-fls", "-delete":
			return false
		}
	}
	return print0
}

// quotedLiteral reports whether a word is made of literal and quoted
// literal parts only ('*.go', "x").
func quotedLiteral(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
		case *syntax.SglQuoted:
			if p.Dollar {
				return false
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// pipedXargs reports whether a pipeline part is a plain xargs command that
// reads the pipe itself: no assignment, no input redirection, no
// substitution (which could read part of the pipe first).
func pipedXargs(s *syntax.Stmt) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(c.Args) < 2 || c.Args[0].Lit() != "xargs" {
		return false
	}
	for _, r := range s.Redirs {
		if r.N != nil && r.N.Value == "0" || r.N == nil && isInputRedir(r.Op) {
			return false
		}
	}
	subst := false
	walkAST(s, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			subst = true
		}
		return !subst
	})
	return !subst
}

func isInputRedir(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	}
	return false
}

// xargsKeepsPaths reports whether xargs hands each NUL-ended input item to
// its command whole: -0 is given and every other option only limits how
// many items go to one run or how runs are scheduled. -a (input from a
// file), -d (another delimiter), -E (end-of-input string), -o (the
// terminal as stdin) and --process-slot-var (an environment variable)
// keep the operands unknown.
func xargsKeepsPaths(opts []parsedOpt) bool {
	null := false
	for _, o := range opts {
		switch o.name {
		case "0", "null":
			null = true
		case "n", "max-args", "L", "l", "max-lines", "P", "max-procs", "s", "max-chars", "r", "no-run-if-empty",
			"t", "verbose", "x", "exit", "p", "interactive", "I", "i", "replace":
		default:
			return false
		}
	}
	return null
}

// isPathMark reports whether a path from the vocabulary is exactly one
// supplied path (pathMark): not a path built around it ({}.bak, x{}, {}/..).
func isPathMark(p string) bool { return p == pathMark }

// rootTrees are the trees read when a program reads paths under roots:
// everything below each root, hidden entries included, at any depth, no
// filter (a supplied path may itself be hidden, and a program's include
// and exclude globs need not apply to the paths it is named).
func rootTrees(roots []string) []Tree {
	out := make([]Tree, 0, len(roots))
	for _, r := range roots {
		out = append(out, Tree{Path: r, Hidden: true})
	}
	return out
}

// markInArgv reports whether a word already holds pathMark before any
// supplied word is put in (./$x): then a read of pathMark could come from
// it, and no supplied value is tracked.
func markInArgv(argv []string) bool {
	for _, a := range argv[1:] {
		if strings.Contains(a, pathMark) {
			return true
		}
	}
	return false
}

// judgeSupplied judges argv, whose supplied words are pathMark, in every
// shape the wrapper may run it: with the words it appends (one and two
// of them: xargs and -exec ... {} + pass several), and with none when it
// may run the command on empty input. The verdict is read-only only when
// every shape is; the paths of all shapes are reported. It returns the
// argv of the main shape (the one judged for a single supplied path).
func judgeSupplied(argv []string, fr frame) ([]string, flagspec.Verdict) {
	var shapes [][]string
	if fr.appends {
		one := append(append([]string(nil), argv...), pathMark)
		shapes = append(shapes, one, append(append([]string(nil), one...), pathMark))
		if fr.dataEmpty {
			shapes = append(shapes, argv)
		}
	} else {
		shapes = append(shapes, argv)
		// -exec ... {} +: the last {} stands for one or more paths.
		if n := len(argv); n > 1 && argv[n-1] == pathMark {
			shapes = append(shapes, append(append([]string(nil), argv...), pathMark))
		}
	}
	v := flagspec.Judge(shapes[0])
	for _, sh := range shapes[1:] {
		o := flagspec.Judge(sh)
		if !o.ReadOnly && v.ReadOnly {
			v.ReadOnly, v.Reason = false, o.Reason
		}
		v.Reads = append(v.Reads, o.Reads...)
		v.Writes = append(v.Writes, o.Writes...)
		v.RecursiveReads = append(v.RecursiveReads, o.RecursiveReads...)
		v.RunsUnknown = firstNonEmpty(v.RunsUnknown, o.RunsUnknown)
		v.RunsData = firstNonEmpty(v.RunsData, o.RunsData)
		v.Environment = firstNonEmpty(v.Environment, o.Environment)
		if o.Network != "" && v.Network == "" {
			v.Network = o.Network
		}
	}
	return shapes[0], v
}

// innermostWrapper is the innermost wrapper's label ("xargs", "find -exec").
func innermostWrapper(wrappers []string) string {
	if len(wrappers) == 0 {
		return ""
	}
	return wrappers[len(wrappers)-1]
}
