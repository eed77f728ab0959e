package bash

import (
	"fmt"
	"github.com/permopa/permopa/builtins/scriptfile"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/permopa/permopa/builtins/flagspec"
	"mvdan.cc/sh/v3/syntax"
)

// maxDepth limits nested wrappers and scripts (bash -c 'bash -c ...').
const maxDepth = 8

// maxCwds caps the working directories tracked at once; beyond, the cwd is unknown.
const maxCwds = 4

// state is the shell state the walk tracks: the working directories the
// shell may be in (cd can fail, so after "cd d; x" both apply).
type state struct {
	dirs    []string
	unknown bool
}

// single returns the cwd when exactly one is possible.
func (s state) single() string {
	if s.unknown || len(s.dirs) != 1 {
		return ""
	}
	return s.dirs[0]
}

func (s state) equal(o state) bool {
	if s.unknown != o.unknown || len(s.dirs) != len(o.dirs) {
		return false
	}
	for i := range s.dirs {
		if s.dirs[i] != o.dirs[i] {
			return false
		}
	}
	return true
}

func union(a, b state) state {
	if a.equal(b) {
		return a
	}
	if a.unknown || b.unknown {
		return state{unknown: true}
	}
	out := append([]string(nil), a.dirs...)
	for _, d := range b.dirs {
		if !contains(out, d) {
			out = append(out, d)
		}
	}
	if len(out) > maxCwds {
		return state{unknown: true}
	}
	return state{dirs: out}
}

// frame is what the enclosing wrappers and compound commands impose on the
// leaves walked inside them.
type frame struct {
	wrappers []string
	// layers are the argvs of the wrapper levels above, outermost first.
	layers [][]string
	// allowArgv is the argv of the outermost non-transparent wrapper, nil
	// while every wrapper is transparent.
	allowArgv []string
	// forced are reasons that keep every leaf in the frame from being read-only.
	forced []string
	// redirect targets applying to every leaf in the frame, and the reasons
	// they keep those leaves from being read-only.
	reads, writes []string
	redirForced   []string
	// noFS: a wrapper makes the leaf's effect differ from its argv.
	noFS  bool
	depth int
	// placeholder is replaced at run time by paths the wrapper supplies
	// ("{}" for find -exec, the -I string for xargs).
	placeholder string
	// appends: the wrapper (xargs without -I) appends words it reads at
	// run time to the command, so a code option left without its code
	// (xargs python3 -c) takes the data as code.
	appends bool
	// appendsText: the words xargs appends are any text its input holds
	// (not paths under known roots); the leaf is then judged with one
	// unquoted run-time word at its end (flagspec.DynamicWordsHarmless),
	// and appendsText is why it is not read-only when that fails.
	appendsText string
	// dataRoots: the words the wrapper supplies (placeholder values,
	// appended operands) are each one path under one of these resolved
	// roots, none starting with "-" (dataflow.go); nil when unknown.
	// dataEmpty: the command may also run with no supplied word (xargs
	// without -r or -I on empty input).
	dataRoots []string
	dataEmpty bool
	// dataDepth bounds, when not 0, how deep below its root a supplied
	// path lies plus one (find -maxdepth N: N+1, so that a directory it
	// names may be listed): the tree a plain read of one reaches.
	dataDepth int
	// piped: what a pipeline feeds this statement, find's paths under
	// known roots (set for a pipeline part that is a plain xargs;
	// findpipe.go).
	piped pipedInput
	// pasteNames: the wrapper pastes each path it supplies into the text
	// of a sh -c script (find -exec sh -c '… {} …' \;, xargs -I{} sh -c):
	// it returns "" when every name it can paste is plain shell text at
	// decision time and the script runs in the directory st the paths are
	// relative to, else why (pastescript.go); nil when it cannot tell.
	// pasted: the script walked next is such a script, pasteMark in its
	// text standing for one path under dataRoots, shown as pasteShow.
	pasteNames func(st state) string
	pasted     bool
	pasteShow  string
	// loopVars: variables of enclosing for loops whose values are known,
	// each one of its words (dataflow.go, loopValues).
	loopVars map[string][]word
	// unknown: the leaves in the frame run something permopa cannot see
	// (Leaf.RunsUnknown).
	unknown string
	// codeWords: the leaves' AllowArgv carries code up to this word
	// (Leaf.CodeWords), e.g. the script of bash -c.
	codeWords int
	// script is where the leaves' command is written (Leaf.Script), and
	// binDirs the directories a package manager puts first on PATH
	// (scripts.go).
	script  string
	binDirs []string
	// tail: nothing runs after the statement being walked in the shell
	// that runs it, so a change of that shell's state (a variable, an
	// alias, the directory) is seen by nothing (docs/shell.md, "Shell
	// state"): the last statement of the call, of a subshell, of a
	// substitution, of a pipeline part.
	tail bool
	// blindRest: what runs after the statement in its shell starts no
	// program and defines nothing (echo, printf, test, true, :, with no
	// substitution: blindStmt), so a variable's new value is seen only
	// through expansions, which are words known only at run time.
	blindRest bool
}

// notTail is the frame for statements something may run after.
func (f frame) notTail() frame {
	f.tail, f.blindRest = false, false
	return f
}

// asTail is the frame for the statements of a shell that ends with them
// (a subshell, a substitution, a pipeline part).
func (f frame) asTail() frame {
	f.tail, f.blindRest = true, true
	return f
}

// blindStmt reports a statement that starts no program, runs no
// substitution, assigns and defines nothing: a simple command or a list of
// echo, printf (without -v), test, [, true, false and :, or [[ ]] (with
// literal words or plain variables), redirections to files included (they
// are judged as writes).
func blindStmt(s *syntax.Stmt) bool {
	if s == nil || s.Background || s.Coprocess {
		return false
	}
	ok := true
	walkAST(s, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.Assign,
			*syntax.FuncDecl, *syntax.DeclClause, *syntax.LetClause, *syntax.Subshell, *syntax.Block,
			*syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause, *syntax.TimeClause,
			*syntax.CoprocClause:
			ok = false
		case *syntax.ParamExp:
			if x.Exp != nil || x.Repl != nil || x.Slice != nil || x.Index != nil || x.Excl || x.Names != 0 {
				ok = false // ${x:=v}, ${!x}, ${a[i]}: more than a value
			}
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				ok = false
				break
			}
			switch x.Args[0].Lit() {
			case "echo", "test", "[", "true", "false", ":":
			case "printf":
				// The format, first, is literal and no option: the
				// words after it are operands (not -v NAME).
				if len(x.Args) < 2 || !quotedLiteral(x.Args[1]) || strings.HasPrefix(x.Args[1].Lit(), "-") {
					ok = false
				}
			default:
				ok = false
			}
		}
		return ok
	})
	return ok
}

// withCode returns the frame for commands taken from word n-1 of argv, the
// argv of a wrapper (bash -c SCRIPT, a command-valued option): allow rules
// must spell the leaves' AllowArgv out up to that word.
func (f frame) withCode(argv []string, n int) frame {
	allow := f.allowArgv
	if allow == nil {
		allow = argv
	}
	if m := mapWords(allow, argv, n); m > f.codeWords {
		f.codeWords = m
	}
	return f
}

// mapWords maps a count n of leading words of argv to a count of leading
// words of allow, the argv allow rules see (argv itself, or the argv of an
// outer wrapper that holds argv's words in a row): all of allow when argv
// is not found in it.
func mapWords(allow, argv []string, n int) int {
	if n <= 0 {
		return 0
	}
	for off := len(allow) - len(argv); off >= 0; off-- {
		match := true
		for i := range argv {
			if allow[off+i] != argv[i] {
				match = false
				break
			}
		}
		if match {
			return off + min(n, len(argv))
		}
	}
	return len(allow)
}

func appendStr(s []string, x ...string) []string {
	out := make([]string, 0, len(s)+len(x))
	return append(append(out, s...), x...)
}

func (f frame) wrap(label string, argv []string, transparent bool, forced string) frame {
	f.wrappers = appendStr(f.wrappers, label)
	if argv != nil {
		f.layers = append(append(make([][]string, 0, len(f.layers)+1), f.layers...), argv)
	}
	if !transparent {
		f.noFS = true
		if f.allowArgv == nil {
			f.allowArgv = argv
		}
	}
	if forced != "" {
		f.forced = appendStr(f.forced, forced)
	}
	f.depth++
	return f
}

// substBase is the frame for the substitutions of a statement's words:
// they run in the statement's shell, not under its command's wrappers or
// redirections.
func (f frame) substBase() frame {
	f.reads, f.writes, f.redirForced = nil, nil, nil
	f.piped = pipedInput{}
	return f
}

// walker holds one analysis in progress.
type walker struct {
	opts Options
	// stdin is the literal text on the stdin of the leaf being emitted
	// (a here-document, a here-string, echo piped), for unmodelledViews.
	stdin     *string
	src       string
	res       *Analysis
	maxLeaves int
	// defined are the names defined as functions or aliases in the script.
	defined map[string]string
	// pos are the positional parameters of the shell script file being
	// walked, nil when not known (positional.go).
	pos *posParams
	// posTop: the next walkStmts is the command's own list, whose
	// statements move pos (Options.PositionalEmpty).
	posTop bool
	// nums: the variables that hold a number where the statement being
	// walked runs (numbervalues.go).
	nums numVars
	// topSrc is the call's command (src while the walk is in it, not in
	// a nested script).
	topSrc string
	// ifsChanged: IFS is assigned somewhere, so $IFS is not the default.
	ifsChanged bool
	// globsChanged: a shopt in the command may change what globs match
	// (nullglob, dotglob, globstar, ...): no glob word is read-only.
	globsChanged bool
	stop         bool
	orphan       bool
	// orphanWrites are redirect targets of statements that made no leaf.
	orphanWrites []string
	reasons      []string
	dynWrites    bool
	// Counters of the work done, against the hard limits (limits.go).
	nest, fields int
	parsed       int
	fieldBytes   int
	// substs counts the command and process substitutions walked.
	substs int
	// roots are the scripts parsed so far, and vars the facts about their
	// variables that evaluation needs (evaluate.go), collected when needed.
	roots   []rootScript
	rootBuf [1]rootScript
	vars    *varFacts
	// attrs: a script read so far (attrScanned of roots) may declare -i or -n.
	attrs       bool
	attrScanned int
	// links are the links the command made so far, and linksOpaque names
	// a program that made links no one can place (links.go). They sit
	// beside the tracked cwd (state) but outlive subshells: they are on disk.
	links       []link
	linksOpaque string
	// copiedEntries counts the entries copiedLinks looked at.
	copiedEntries int
	// scratch: a walk that only learns links (preLinks).
	scratch bool
	// written are the paths written so far, for git's repository (git.go).
	written []string
	// files reads the script files the command runs, scriptStack holds
	// the scripts being walked (file and name), scriptBytes their text
	// walked so far (scripts.go).
	files       *scriptfile.Files
	scriptStack []string
	scriptArgvs [][]string // the argv running each script of scriptStack
	scriptBytes int

	// noListing: names are not read from the file system; listedNames:
	// they were, and how they are used (namesnow.go, namesNow).
	noListing   bool
	listedNames listing
}

// enter counts one level of nesting; false (and the limit recorded) past MaxNesting.
// Every enter is paired with a leave.
func (w *walker) enter() bool {
	w.nest++
	if w.nest > MaxNesting {
		w.limit(LimitNesting, limitDetail(LimitNesting))
		return false
	}
	return true
}

func (w *walker) leave() { w.nest-- }

// unanalysable records why the command cannot be analysed. Unless the
// construct is one whose commands are all still listed as leaves
// (unanalysableSeen), it may also hide a command: deny and ask rules then
// hit the whole command (match.go).
func (w *walker) unanalysable(reason string) {
	w.unanalysableSeen(reason)
	if w.res.hidden == "" {
		w.res.hidden = reason
	}
}

// unanalysableSeen records a reason for a construct whose commands are all
// listed as leaves (a literal eval string, brace expansion in a command
// name): allow rules cannot cover it, deny rules see every leaf.
func (w *walker) unanalysableSeen(reason string) {
	if !contains(w.reasons, reason) {
		w.reasons = append(w.reasons, reason)
	}
}

func (w *walker) notReadOnly(reason string) {
	if !contains(w.res.NotReadOnly, reason) {
		w.res.NotReadOnly = append(w.res.NotReadOnly, reason)
	}
}

// mayChangeGlobs is a cheap, conservative test of whether src may set a
// shopt option that changes what a glob matches (flagspec.ShoptGlobOptions,
// all of which hold "glob"): a glob anywhere in the command, before the
// shopt too (a loop runs it again), is then judged not read-only.
func mayChangeGlobs(src string) bool {
	return strings.Contains(src, "shopt") && strings.Contains(src, "glob")
}

// prescan records function and alias names and assignments to IFS.
func (w *walker) prescan(n syntax.Node) {
	w.walkAST(n, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.FuncDecl:
			if w.defined == nil {
				w.defined = map[string]string{}
			}
			if x.Name != nil {
				w.defined[x.Name.Value] = "function"
			}
			for _, nm := range x.Names {
				w.defined[nm.Value] = "function"
			}
		case *syntax.Assign:
			if x.Name != nil && x.Name.Value == "IFS" {
				w.ifsChanged = true
			}
			if x.Naked && x.Value != nil && strings.HasPrefix(x.Value.Lit(), "IFS") {
				w.ifsChanged = true
			}
		case *syntax.WordIter:
			if x.Name != nil && x.Name.Value == "IFS" {
				w.ifsChanged = true
			}
		case *syntax.ParamExp:
			if x.Param != nil && x.Param.Value == "IFS" && x.Exp != nil &&
				(x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
				w.ifsChanged = true
			}
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				break
			}
			name := x.Args[0].Lit()
			for _, a := range x.Args[1:] {
				lit := a.Lit()
				if lit == "IFS" || strings.HasPrefix(lit, "IFS=") {
					w.ifsChanged = true // read IFS, printf -v IFS, ...
				}
				if name == "alias" {
					if w.defined == nil {
						w.defined = map[string]string{}
					}
					if i := strings.IndexByte(lit, '='); i > 0 {
						w.defined[lit[:i]] = "alias"
					} else if len(a.Parts) > 0 {
						if l, ok := a.Parts[0].(*syntax.Lit); ok {
							if i := strings.IndexByte(l.Value, '='); i > 0 {
								w.defined[l.Value[:i]] = "alias"
							}
						}
					}
				}
			}
		}
		return true
	})
}

// walkStmts walks a statement list in sequence and returns the state after it.
func (w *walker) walkStmts(stmts []*syntax.Stmt, fr frame, st state) state {
	defer w.numbersEnter()()
	// The command's own statements (Options.PositionalEmpty) track the
	// positional parameters as a script's lines do (positional.go).
	top := w.posTop
	w.posTop = false
	for i, s := range stmts {
		if w.stop {
			return st
		}
		sf := fr
		sf.tail = fr.tail && i == len(stmts)-1
		sf.blindRest = fr.blindRest
		for _, next := range stmts[i+1:] {
			sf.blindRest = sf.blindRest && blindStmt(next)
		}
		var after func(*posParams) *posParams
		if top {
			w.pos, after = w.positionalBefore(s)
		}
		st, _ = w.walkStmt(s, sf, st)
		if top {
			w.pos = after(w.pos)
		}
		w.numbersAfter(s)
	}
	return st
}

// walkStmt walks one statement. It returns the state after it and the
// state when it succeeded (they differ after cd: "cd d && x" runs x in d).
func (w *walker) walkStmt(s *syntax.Stmt, fr frame, st state) (after, success state) {
	return w.walkStmtIn(s, fr, st, nil)
}

// walkStmtIn walks a statement whose stdin is known literal text (piped
// from echo), unless its own redirections say otherwise.
func (w *walker) walkStmtIn(s *syntax.Stmt, fr frame, st state, piped *string) (after, success state) {
	if s == nil || w.stop {
		return st, st
	}
	before := len(w.res.Leaves)
	cmdFrame, stdin, wrote := w.redirects(s.Redirs, fr, st)
	if stdin == nil {
		stdin = piped
	}
	if s.Cmd == nil {
		if wrote {
			w.orphan = true
			w.orphanWrites = append(w.orphanWrites, cmdFrame.writes...)
			w.written = append(w.written, cmdFrame.writes...)
			w.notReadOnly("redirection without a command writes a file")
		} else if len(cmdFrame.reads) > 0 || len(cmdFrame.redirForced) > 0 {
			// "$(< file)" reads file: a leaf ":" carries the read.
			w.synthetic(cmdFrame, st, []string{":"}, true, "", nil)
		}
		return st, st
	}
	after, success = w.walkCmd(s.Cmd, cmdFrame, st, stdin)
	if wrote && len(w.res.Leaves) == before {
		w.orphan = true
		w.orphanWrites = append(w.orphanWrites, cmdFrame.writes...)
		w.notReadOnly("redirection writes a file")
	}
	return after, success
}

func (w *walker) walkCmd(cmd syntax.Command, fr frame, st state, stdin *string) (after, success state) {
	switch cmd.(type) {
	case *syntax.CallExpr, *syntax.BinaryCmd:
		// Lists and pipelines are sequences, not nesting.
	default:
		ok := w.enter()
		defer w.leave()
		if !ok {
			return st, st
		}
	}
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		return w.call(c, fr, st, stdin)
	case *syntax.BinaryCmd:
		return w.binaryChain(c, fr, st)
	case *syntax.Block:
		st = w.walkStmts(c.Stmts, fr, st)
		return st, st
	case *syntax.Subshell:
		w.walkStmts(c.Stmts, fr.asTail(), st)
		return st, st
	case *syntax.IfClause:
		return w.ifClause(c, fr, st)
	case *syntax.WhileClause:
		body := w.loopState(st, c.Cond, c.Do)
		// A later iteration runs through the links an earlier one made.
		w.preLinks(fr, body, append(append([]*syntax.Stmt(nil), c.Cond...), c.Do...)...)
		fr = fr.notTail() // the condition runs again after the body
		w.walkStmts(c.Cond, fr, body)
		end := w.walkStmts(c.Do, fr, body)
		out := union(st, end)
		return out, out
	case *syntax.ForClause:
		inner := fr.notTail() // the body runs again
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			ctx := evalCtx{fr: fr.substBase(), st: st}
			items := w.evalArgs(l.Items, ctx)
			if l.Name != nil && !localName(l.Name.Value) {
				inner.forced = appendStr(inner.forced, "loop assigns environment variable "+l.Name.Value)
			}
			if l.Name != nil {
				// What the variable holds in the body: one of the items,
				// when they and the body leave no doubt (dataflow.go).
				inner.loopVars = w.loopValues(fr.loopVars, l.Name.Value, items, c.Do)
				// An integer or nameref loop variable evaluates each item.
				for _, it := range items {
					if r := w.assignedValue(l.Name.Value, it.s, it.dynamic, ctx, ""); r != "" {
						inner.forced = appendStr(inner.forced, r)
						break
					}
				}
			}
		case *syntax.CStyleLoop:
			cur := &fieldBuilder{}
			ctx := evalCtx{fr: fr.substBase(), st: st}
			for _, x := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
				if x != nil {
					w.arith(x, cur, ctx)
				}
			}
			if cur.w.taint != "" {
				inner.forced = appendStr(inner.forced, cur.w.taint)
			}
		}
		if c.Select {
			inner.forced = appendStr(inner.forced, "select reads input interactively")
		}
		body := w.loopState(st, nil, c.Do)
		w.preLinks(inner, body, c.Do...)
		end := w.walkStmts(c.Do, inner, body)
		out := union(st, end)
		return out, out
	case *syntax.CaseClause:
		ctx := evalCtx{fr: fr.substBase(), st: st}
		w.walkWordSubsts(c.Word, ctx)
		out := st
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				w.walkWordSubsts(p, ctx)
			}
			out = union(out, w.walkStmts(item.Stmts, fr, st))
		}
		return out, out
	case *syntax.FuncDecl:
		name := ""
		if c.Name != nil {
			name = c.Name.Value
		}
		w.forkBomb(c, name)
		// The body runs only when called; its leaves are still listed so
		// that deny rules see them, and calls make the command unanalysable.
		// Its positional parameters are its caller's words, not known.
		savedPos := w.pos
		w.pos = nil
		w.walkStmt(c.Body, fr.wrap("function "+name, nil, true, "").notTail(), st)
		w.pos = savedPos
		return st, st
	case *syntax.TimeClause:
		if c.Stmt == nil {
			w.synthetic(fr, st, []string{"time"}, true, "", nil)
			return st, st
		}
		return w.walkStmt(c.Stmt, fr.wrap("time", nil, true, ""), st)
	case *syntax.CoprocClause:
		w.walkStmt(c.Stmt, fr.wrap("coproc", nil, false, "coproc runs a background process").notTail(), st)
		return st, st
	case *syntax.TestClause:
		w.testClause(c, fr, st)
		return st, st
	case *syntax.ArithmCmd:
		cur := &fieldBuilder{}
		w.arith(c.X, cur, evalCtx{fr: fr.substBase(), st: st})
		w.synthetic(fr, st, []string{"((", w.source(c.X), "))"}, cur.w.taint == "", cur.w.taint, nil)
		return st, st
	case *syntax.LetClause:
		argv := []string{"let"}
		cur := &fieldBuilder{}
		for _, x := range c.Exprs {
			w.arith(x, cur, evalCtx{fr: fr.substBase(), st: st})
			argv = append(argv, w.source(x))
		}
		if cur.w.taint == "" && letWordsPlain(argv[1:]) {
			// Assigns only variables that hold numbers (numbervalues.go).
			w.synthetic(fr, st, argv, true, "", nil)
			return st, st
		}
		w.synthetic(fr, st, argv, false, firstNonEmpty(cur.w.taint, "let assigns shell variables"), nil)
		return st, st
	case *syntax.DeclClause:
		w.declClause(c, fr, st)
		return st, st
	default:
		w.unanalysable(fmt.Sprintf("unmodelled command %T", cmd))
		return state{unknown: true}, state{unknown: true}
	}
}

// binaryChain walks a list or pipeline. mvdan.cc/sh nests "a && b && c"
// to the left, so the chain is walked as a loop over its left spine, not
// by recursion as deep as it is long.
func (w *walker) binaryChain(c *syntax.BinaryCmd, fr frame, st state) (after, success state) {
	var buf [16]*syntax.BinaryCmd
	spine := append(buf[:0], c)
	for {
		x := spine[len(spine)-1].X
		b, ok := x.Cmd.(*syntax.BinaryCmd)
		if !ok || len(x.Redirs) > 0 {
			break
		}
		spine = append(spine, b)
	}
	for _, b := range spine {
		if b.Op == syntax.Pipe || b.Op == syntax.PipeAll {
			// The parts of a pipeline run concurrently: links a later part
			// makes may be there for an earlier one (links.go).
			w.preLinks(fr, st, b.Y)
		}
	}
	// The left side of && and || has the right after it; each part of a
	// pipeline but the last runs in a subshell of its own (the last may
	// run in this shell: shopt -s lastpipe).
	first := fr.notTail()
	if last := spine[len(spine)-1]; last.Op == syntax.Pipe || last.Op == syntax.PipeAll {
		first = fr.asTail()
	}
	after, success = w.walkStmt(spine[len(spine)-1].X, first, st)
	for i := len(spine) - 1; i >= 0; i-- {
		b := spine[i]
		fr := fr
		if i > 0 {
			// What follows b in the chain runs after b.Y.
			if next := spine[i-1].Op; next == syntax.Pipe || next == syntax.PipeAll {
				fr = fr.asTail()
			} else {
				fr = fr.notTail()
			}
		}
		switch b.Op {
		case syntax.AndStmt:
			ya, ys := w.walkStmt(b.Y, fr, success)
			after, success = union(after, ya), ys
		case syntax.OrStmt:
			failed := after
			if isCd(b.X) {
				failed = st // Y runs only when the cd failed
			}
			ya, ys := w.walkStmt(b.Y, fr, failed)
			after, success = union(after, ya), union(success, ys)
		default: // | and |&: each side runs in a subshell
			yfr := fr
			yfr.piped = pipedInput{}
			if b.Op == syntax.Pipe && pipedXargs(b.Y) {
				yfr.piped = w.pipedFindInput(b.X, fr, st)
			}
			if vars, ok := w.readLoopVars(b, fr, st); ok {
				// find … | while read NAME: NAME is a line of find's (readloop.go).
				yfr.loopVars = vars
			}
			w.walkStmtIn(b.Y, yfr, st, echoedText(b.X))
			after, success = st, st
		}
	}
	return after, success
}

// loopState is the cwd a loop body starts in: unknown when the body can
// change directory, since later iterations start where earlier ones ended.
func (w *walker) loopState(st state, lists ...[]*syntax.Stmt) state {
	for _, l := range lists {
		for _, s := range l {
			if changesDir(s) {
				return state{unknown: true}
			}
		}
	}
	return st
}

// changesDir reports whether a statement may run cd, pushd, popd or source in this shell.
func changesDir(n syntax.Node) bool {
	found := false
	whole := walkAST(n, func(node syntax.Node) bool {
		if found {
			return false
		}
		if c, ok := node.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			switch c.Args[0].Lit() {
			case "cd", "pushd", "popd", "source", ".", "eval":
				found = true
			}
		}
		return true
	})
	return found || !whole
}

func (w *walker) ifClause(c *syntax.IfClause, fr frame, st state) (state, state) {
	ca, cs := w.walkStmts2(c.Cond, fr.notTail(), st)
	then := w.walkStmts(c.Then, fr, cs)
	out := union(ca, then)
	if c.Else != nil {
		if len(c.Else.Cond) == 0 && !c.Else.ThenPos.IsValid() {
			out = union(out, w.walkStmts(c.Else.Then, fr, ca))
		} else {
			ea, _ := w.ifClause(c.Else, fr, ca)
			out = union(out, ea)
		}
	}
	return out, out
}

// walkStmts2 is walkStmts that also returns the success state of the last statement.
func (w *walker) walkStmts2(stmts []*syntax.Stmt, fr frame, st state) (state, state) {
	succ := st
	for _, s := range stmts {
		if w.stop {
			break
		}
		st, succ = w.walkStmt(s, fr, st)
	}
	return st, succ
}

// localName reports whether a loop variable name is a shell-local
// lowercase name rather than one that programs read from the environment.
func localName(name string) bool {
	if envAllowlisted(name) {
		return true
	}
	return flagspec.ShellLocalName(name)
}

// EnvNameRead reports an environment variable name a shell or a program
// permopa knows may read (the complement of inertAtEnd): a host that sets
// one from the project's files for every command (Gemini CLI's .env) makes
// no command read-only (docs/shell.md, "What a program reads besides its
// argv").
func EnvNameRead(name string) bool { return !inertAtEnd(name) }

// inertAtEnd reports a variable whose assignment changes nothing once
// nothing runs after it in the shell (frame.tail): a variable of the
// shell only, or any name bash, zsh and the programs permopa knows give
// no meaning to. A special variable acts without a later command of the
// call (HOME and ZDOTDIR: the logout files a login shell reads at exit;
// POSIXLY_CORRECT turns alias expansion on; HISTFILE), and a variable
// programs read is kept out whatever runs after (docs/shell.md, "Shell
// state").
func inertAtEnd(name string) bool {
	if flagspec.ShellLocalName(name) {
		return true
	}
	if !shellName(name) || strings.ToUpper(name) != name || specialVars[name] || commandVars[name] || loaderVars[name] {
		return false
	}
	for _, p := range []string{"BASH", "HIST", "COMP", "READLINE", "PS", "PROMPT", "ZSH", "LD_", "DYLD_",
		"GIT_CONFIG", "NPM_CONFIG", "YARN_", "PNPM_", "BUN_", "LC_", "TMP"} {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	return true
}

// shellName reports a name a variable may have.
func shellName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// specialVars are the variables bash or zsh gives a meaning to (besides
// the prefixes of inertAtEnd).
var specialVars = map[string]bool{
	"HOME": true, "PWD": true, "OLDPWD": true, "CDPATH": true, "PATH": true, "IFS": true, "ENV": true,
	"SHELLOPTS": true, "POSIXLY_CORRECT": true, "GLOBIGNORE": true, "FIGNORE": true, "EXECIGNORE": true,
	"FUNCNEST": true, "TMOUT": true, "MAIL": true, "MAILCHECK": true, "MAILPATH": true, "OPTIND": true,
	"OPTARG": true, "OPTERR": true, "TIMEFORMAT": true, "INPUTRC": true, "RPROMPT": true, "RPS1": true,
	"RPS2": true, "SHELL": true, "SHLVL": true, "HOSTFILE": true, "IGNOREEOF": true, "LINES": true,
	"COLUMNS": true, "SECONDS": true, "RANDOM": true, "SRANDOM": true, "LINENO": true, "EPOCHSECONDS": true,
	"EPOCHREALTIME": true, "SAVEHIST": true, "ZDOTDIR": true, "NULLCMD": true, "READNULLCMD": true,
	"FPATH": true, "MANPATH": true, "MODULE_PATH": true, "WORDCHARS": true, "KEYTIMEOUT": true,
	"REPORTTIME": true, "REPORTMEMORY": true, "WATCH": true, "LOGCHECK": true, "TERM": true, "TERMINFO": true,
	"GROUPS": true, "DIRSTACK": true, "UID": true, "EUID": true, "PPID": true, "LANG": true, "TZ": true,
	"STTY": true, "TIMEFMT": true, "PERIOD": true, "LISTMAX": true, "PIPESTATUS": true,
	"FUNCNAME": true, "HOSTNAME": true, "HOSTTYPE": true, "MACHTYPE": true, "OSTYPE": true,
}

// source returns the source text of a node.
func (w *walker) source(n syntax.Node) string {
	if n == nil {
		return ""
	}
	src := parsedText(w.src)
	a, b := int(n.Pos().Offset()), int(n.End().Offset())
	if a < 0 || b > len(src) || a > b {
		return ""
	}
	return strings.ReplaceAll(src[a:b], crMark, "\r")
}

// redirects evaluates a statement's redirections. It returns the frame for
// the command (with the targets), the body of a literal here-document or
// here-string on stdin, and whether a file is written.
func (w *walker) redirects(rs []*syntax.Redirect, fr frame, st state) (frame, *string, bool) {
	if len(rs) == 0 {
		return fr, nil, false
	}
	ctx := evalCtx{fr: fr.substBase(), st: st}
	var stdin *string
	wrote := false
	for _, r := range rs {
		fd := ""
		if r.N != nil {
			fd = r.N.Value
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			lit := w.hdocLiteral(r.Hdoc, ctx)
			if lit == nil && r.Hdoc != nil {
				// The body has expansions: its source text is what a shell
				// reading it would mostly run. Only deny rules use it, since a
				// shell reading a here-document is never analysable.
				src := w.source(r.Hdoc)
				lit = &src
			}
			if fd == "" || fd == "0" {
				stdin = lit
			}
			continue
		case syntax.WordHdoc:
			wd := w.evalOne(r.Word, ctx)
			if wd.taint != "" {
				fr.redirForced = appendStr(fr.redirForced, wd.taint)
			}
			if !wd.dynamic && (fd == "" || fd == "0") {
				s := wd.s
				stdin = &s
			}
			continue
		}
		target := w.evalOne(r.Word, ctx)
		if target.taint != "" {
			fr.redirForced = appendStr(fr.redirForced, target.taint)
		}
		switch r.Op {
		case syntax.DplIn, syntax.DplOut:
			if isFdWord(target.s) {
				// A copy of standard input on another descriptor shares
				// the file < f opened there (in this list or around it),
				// which /dev/stdout, /dev/stderr or /dev/fd/N then reopen
				// for writing: tee /dev/stdout < f >&0 truncates f. The
				// other descriptors a file is read on fail below.
				dst := fd
				if dst == "" && r.Op == syntax.DplOut {
					dst = "1"
				}
				if n, err := strconv.Atoi(strings.TrimSuffix(target.s, "-")); err == nil && n == 0 && dst != "" && dst != "0" {
					fr.redirForced = appendStr(fr.redirForced, "redirection copies standard input, which may be a file read, to descriptor "+dst+", which /dev/fd/"+dst+" reopens for writing")
				}
				continue // fd duplication or closing
			}
			if r.Op == syntax.DplIn {
				fr = w.redirRead(fr, st, target)
				continue
			}
			fr, wrote = w.redirWrite(fr, st, target, wrote)
		case syntax.RdrIn:
			if vals, ok := fr.loopVars[target.param]; ok && target.s == dyn && !target.splits {
				// < "$f" in a loop over known words: one of them, read
				// as written (a glob: the name it matches, which may
				// start with "-" here, a file all the same).
				for _, v := range vals {
					fr = w.redirRead(fr, st, word{s: v.s})
				}
				continue
			}
			fr = w.redirRead(fr, st, target)
		case syntax.RdrInOut:
			fr = w.redirRead(fr, st, target)
			fr, wrote = w.redirWrite(fr, st, target, wrote)
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
			syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
			fr, wrote = w.redirWrite(fr, st, target, wrote)
		default:
			w.unanalysable("unmodelled redirection " + r.Op.String())
		}
		if r.N != nil && strings.HasPrefix(fd, "{") {
			fr.redirForced = appendStr(fr.redirForced, "redirection assigns a file descriptor variable")
		}
		// A file opened on a descriptor other than the standard streams is
		// named by /dev/fd/N and /proc/self/fd/N, which Linux opens anew with
		// the opener's flags: tee /dev/fd/63 63<~/.bashrc rewrites the file
		// it was given to read (and /dev/fd/63 is also what the analysis
		// calls a process substitution's pipe).
		if (r.Op == syntax.RdrIn || r.Op == syntax.DplIn && !isFdWord(target.s)) && fd != "" && fd != "0" && !strings.HasPrefix(fd, "{") {
			fr.redirForced = appendStr(fr.redirForced, "redirection opens a file on descriptor "+fd+", which /dev/fd/"+fd+" reopens for writing")
		}
	}
	return fr, stdin, wrote
}

func isFdWord(s string) bool {
	if s == "-" {
		return true
	}
	s = strings.TrimSuffix(s, "-")
	return s != "" && isNumberLit(s) && !strings.ContainsAny(s, "#xX")
}

// hdocLiteral walks a here-document body; it returns the body when it is
// fully literal (quoted delimiter, or nothing to expand).
func (w *walker) hdocLiteral(body *syntax.Word, ctx evalCtx) *string {
	if body == nil {
		s := ""
		return &s
	}
	var b strings.Builder
	literal := true
	for _, p := range body.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			b.WriteString(l.Value)
			continue
		}
		literal = false
		w.walkWordSubsts(&syntax.Word{Parts: []syntax.WordPart{p}}, ctx)
	}
	if !literal {
		return nil
	}
	s := b.String()
	return &s
}

// pseudoDevice reports paths whose writing or reading has no file effect:
// the standard streams and a process substitution (procSubstPath). Any
// other open file (/dev/fd/3, an fd the command inherited) is reported, and
// the path built-ins treat it as not known statically.
func pseudoDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero",
		"/dev/fd/0", "/dev/fd/1", "/dev/fd/2", procSubstPath:
		return true
	}
	return false
}

func (w *walker) redirRead(fr frame, st state, target word) frame {
	if strings.HasPrefix(target.s, "/dev/tcp/") || strings.HasPrefix(target.s, "/dev/udp/") {
		fr.redirForced = appendStr(fr.redirForced, "redirection opens a network connection "+target.s)
		return fr
	}
	paths, ok := w.resolveWord(target, st)
	if !ok {
		fr.redirForced = appendStr(fr.redirForced, "redirection source is not static")
		return fr
	}
	for _, p := range paths {
		if !pseudoDevice(p) {
			fr.reads = appendStr(fr.reads, p)
		}
	}
	return fr
}

func (w *walker) redirWrite(fr frame, st state, target word, wrote bool) (frame, bool) {
	if strings.HasPrefix(target.s, "/dev/tcp/") || strings.HasPrefix(target.s, "/dev/udp/") {
		fr.redirForced = appendStr(fr.redirForced, "redirection writes to the network "+target.s)
		fr.writes = appendStr(fr.writes, filepath.Clean(target.s))
		return fr, true
	}
	if target.glob {
		// bash expands a glob in a redirection when it names one file.
		w.dynWrites = true
		fr.redirForced = appendStr(fr.redirForced, "redirection target is a glob")
		// The glob is a write all the same: the path checks expand it (what
		// it names now, > .perm*/settings.yaml) and judge what it could name.
		if ps, ok := w.resolveWord(target, st); ok {
			for _, p := range ps {
				fr.writes = appendStr(fr.writes, p)
			}
		} else {
			w.unplacedWrite(-1, target.s)
		}
		return fr, true
	}
	paths, ok := w.resolveWord(target, st)
	if !ok {
		w.dynWrites = true
		w.unplacedWrite(-1, target.s)
		fr.redirForced = appendStr(fr.redirForced, "redirection target is not static")
		// What it could name, each run-time part a "*" (> /proc/self/task/$$/root/etc/x):
		// Write rules and the dangerous paths see it (docs/reads.md).
		if g, ok := dynamicGlob(target.s); ok {
			if gs, ok := w.resolve(g, st); ok {
				for _, q := range gs {
					fr.writes = appendStr(fr.writes, q)
				}
			}
		}
		return fr, true
	}
	for _, p := range paths {
		if pseudoDevice(p) {
			continue
		}
		// The leaf stays read-only as a program; the write is in its Writes,
		// which keeps the command from being read-only and needs a rule.
		fr.writes = appendStr(fr.writes, p)
		wrote = true
	}
	return fr, wrote
}

// testClause makes a leaf "[[ ... ]]" whose reads are the file-test operands.
func (w *walker) testClause(c *syntax.TestClause, fr frame, st state) {
	ctx := evalCtx{fr: fr.substBase(), st: st}
	argv := []string{"[["}
	var reads []string
	taint := ""
	var visit func(x syntax.TestExpr)
	visit = func(x syntax.TestExpr) {
		switch e := x.(type) {
		case *syntax.Word:
			wd := w.evalOne(e, ctx)
			taint = firstNonEmpty(taint, wd.taint)
			argv = append(argv, wd.s)
		case *syntax.UnaryTest:
			argv = append(argv, e.Op.String())
			if e.Op == syntax.TsVarSet || e.Op == syntax.TsRefVar {
				// -v resolves its operand as a name: a subscript is evaluated.
				if wd, ok := e.X.(*syntax.Word); ok {
					t := w.nameWord(w.evalOne(wd, ctx), ctx, "[[ "+e.Op.String()+" ]]")
					if v := plainParamName(wd); v != "" {
						w.valuesAsName(v, ctx)
					}
					if e.Op == syntax.TsRefVar {
						t = firstNonEmpty(t, "-R resolves a nameref")
					}
					taint = firstNonEmpty(taint, t)
				} else {
					taint = firstNonEmpty(taint, "-v evaluates subscripts")
				}
			}
			visit(e.X)
			if isFileTest(e.Op) {
				if wd, ok := e.X.(*syntax.Word); ok {
					reads = append(reads, w.evalOne(wd, ctx).s)
				}
			}
		case *syntax.BinaryTest:
			visit(e.X)
			argv = append(argv, e.Op.String())
			visit(e.Y)
			switch e.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				// [[ evaluates these operands as arithmetic expressions.
				for _, side := range []syntax.TestExpr{e.X, e.Y} {
					wd, ok := side.(*syntax.Word)
					if !ok {
						taint = firstNonEmpty(taint, "arithmetic comparison on variables can run code")
						continue
					}
					if isNumberLit(strings.TrimPrefix(wd.Lit(), "-")) {
						continue
					}
					taint = firstNonEmpty(taint, "arithmetic comparison on variables can run code")
					if t, static := staticText(wd); static {
						cur := &fieldBuilder{}
						w.arithText(t, cur, ctx, labelArith)
						taint = firstNonEmpty(cur.w.taint, taint)
					} else if v := plainParamName(wd); v != "" {
						w.valuesAsArith(v, ctx)
					}
				}
			case syntax.TsNewer, syntax.TsOlder, syntax.TsDevIno:
				for _, side := range []syntax.TestExpr{e.X, e.Y} {
					if wd, ok := side.(*syntax.Word); ok {
						reads = append(reads, w.evalOne(wd, ctx).s)
					}
				}
			}
		case *syntax.ParenTest:
			argv = append(argv, "(")
			if w.enter() {
				visit(e.X)
			}
			w.leave()
			argv = append(argv, ")")
		default:
			w.unanalysable("unmodelled test expression")
		}
	}
	visit(c.X)
	argv = append(argv, "]]")
	w.synthetic(fr, st, argv, taint == "", taint, reads)
}

func isFileTest(op syntax.UnTestOperator) bool {
	switch op {
	case syntax.TsEmpStr, syntax.TsNempStr, syntax.TsOptSet, syntax.TsVarSet, syntax.TsRefVar,
		syntax.TsNot, syntax.TsParen, syntax.TsFdTerm:
		return false
	}
	return true
}

// declClause makes a leaf for declare/local/export/readonly/typeset.
func (w *walker) declClause(c *syntax.DeclClause, fr frame, st state) {
	ctx := evalCtx{fr: fr.substBase(), st: st, assign: true}
	argv := []string{c.Variant.Value}
	taint := ""
	assigns := false
	var envs [][2]string
	splits := make([]bool, len(c.Args))
	for i, a := range c.Args {
		val := ""
		if a.Value != nil {
			wd := w.evalOne(a.Value, ctx)
			taint = firstNonEmpty(taint, wd.taint)
			val = wd.s
			splits[i] = wd.splits
		}
		if a.Array != nil {
			for _, el := range a.Array.Elems {
				if el.Index != nil {
					cur := &fieldBuilder{}
					w.arith(el.Index, cur, ctx)
					taint = firstNonEmpty(taint, cur.w.taint)
				}
				if el.Value != nil {
					taint = firstNonEmpty(taint, w.walkWordSubsts(el.Value, ctx))
					if a.Name != nil {
						taint = firstNonEmpty(taint, w.elementValue(a.Name.Value, el.Value, ctx, declFlags(c)))
					}
				}
			}
			val = "(" + dyn + ")"
		}
		if a.Index != nil {
			cur := &fieldBuilder{}
			w.arith(a.Index, cur, ctx)
			taint = firstNonEmpty(taint, cur.w.taint)
		}
		switch {
		case a.Name != nil && !a.Naked:
			// A variable of this shell only (flagspec.ShellLocalName),
			// or an exported one of the transparent environment (LANG,
			// LC_*, TZ, ...): no program does otherwise.
			// At the end of the shell (fr.tail), or before commands that
			// only expand it (fr.blindRest), nothing sees the name.
			end := fr.blindRest && inertAtEnd(a.Name.Value)
			if c.Variant.Value == "export" {
				assigns = assigns || !envAllowlisted(a.Name.Value) && !end
			} else {
				assigns = assigns || !flagspec.ShellLocalName(a.Name.Value) && !end
			}
			op := "="
			if a.Append {
				op = "+="
			}
			argv = append(argv, a.Name.Value+op+val)
			envs = append(envs, [2]string{a.Name.Value, val})
		case a.Name != nil:
			argv = append(argv, a.Name.Value)
		default:
			if strings.Contains(val, dyn) {
				assigns = true // may expand to assignments or options
			}
			argv = append(argv, val)
		}
	}
	// What bash does with the values beyond storing them (-i, -n, -a '(...)',
	// a subscript in a quoted name). NAME=VALUE written as such is one
	// assignment whatever VALUE holds in bash and zsh, the shells the
	// hosts run the call in: a value only known at run time is judged by
	// declArgs as a value (assignedValue), not as a word that may be an
	// option. A script of its own (sh -c) may run in a dash that splits
	// an unquoted one. Only for the names whose assignment is harmless
	// (an exported LANG=$(…) stays a value only known at run time).
	words := wordsOf(argv[1:])
	for i, a := range c.Args {
		if a.Name != nil && !a.Naked && a.Array == nil && i < len(words) && (!splits[i] || w.src == w.topSrc) &&
			(flagspec.ShellLocalName(a.Name.Value) || fr.blindRest && inertAtEnd(a.Name.Value)) {
			words[i].dynamic = false
		}
	}
	taint = firstNonEmpty(taint, w.declArgs(c.Variant.Value, words, ctx))
	reason := taint
	if reason == "" && assigns {
		reason = c.Variant.Value + " assigns shell variables"
	}
	// export PAGER=..., declare -x LD_PRELOAD=...: what later commands run.
	for _, e := range envs {
		fr = w.envEffects(e[0], e[1], fr, argv, len(argv), st)
	}
	w.leaf(fr, st, wordsOf(argv), reason)
}

// plainParamName is the variable of a word that is only "$x" or "${x}"
// (quoted or not), "" otherwise.
func plainParamName(wd *syntax.Word) string {
	if len(wd.Parts) != 1 {
		return ""
	}
	p := wd.Parts[0]
	if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		p = dq.Parts[0]
	}
	if pe, ok := p.(*syntax.ParamExp); ok && pe.Param != nil && isPlainParam(pe, pe.Param.Value) {
		return pe.Param.Value
	}
	return ""
}

func wordsOf(ss []string) []word {
	out := make([]word, len(ss))
	for i, s := range ss {
		out[i] = word{s: s, dynamic: strings.Contains(s, dyn)}
	}
	return out
}

// forkBomb detects a function that pipes into a call of itself.
func (w *walker) forkBomb(fd *syntax.FuncDecl, name string) {
	if name == "" || fd.Body == nil {
		return
	}
	hit := false
	w.walkAST(fd.Body, func(n syntax.Node) bool {
		b, ok := n.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.Pipe && b.Op != syntax.PipeAll) {
			return true
		}
		for _, side := range []*syntax.Stmt{b.X, b.Y} {
			if c, ok := side.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 0 && c.Args[0].Lit() == name {
				hit = true
			}
		}
		return !hit
	})
	if hit {
		w.res.Dangerous = append(w.res.Dangerous, Hit{Pattern: "fork-bomb", Leaf: -1, Detail: "function " + name + " pipes into itself"})
	}
}

// script parses and walks a nested script (bash -c, eval, alias values).
func (w *walker) script(src string, fr frame, st state, label string) bool {
	// A script's commands see supplied words only through $1..., which
	// are run-time values: no known provenance inside (dataflow.go);
	// but a path pasted into its text is one under the roots
	// (pastescript.go).
	if !fr.pasted {
		fr.dataRoots, fr.dataDepth = nil, 0
	}
	fr.dataEmpty, fr.piped, fr.pasted, fr.pasteNames = false, pipedInput{}, false, nil
	// Its variables are its own: a loop variable of this shell is not.
	fr.loopVars = nil
	// A script may run in this shell (eval, source, an alias, a trap)
	// with more after it.
	fr.tail, fr.blindRest = false, false
	if fr.depth >= maxDepth {
		w.unanalysable("nesting too deep")
		return false
	}
	if !w.enter() {
		return false
	}
	defer w.leave()
	f, err := w.parseScript(src)
	if err != nil {
		w.unanalysable("parse error in " + label + " script: " + err.Error())
		return false
	}
	if f == nil {
		return false // a limit was exceeded
	}
	w.addRoot(f, src)
	saved := w.src
	w.src = src
	w.prescan(f)
	w.ifsChanged = w.ifsChanged || mayAssignIFS(src)
	w.globsChanged = w.globsChanged || mayChangeGlobs(src)
	// Its positional parameters are not the enclosing script's (sh -c's
	// are its words after the script; eval's and trap's are taken as
	// unknown too).
	savedPos := w.pos
	w.pos = nil
	w.walkStmts(f.Stmts, fr, st)
	w.pos = savedPos
	w.src = saved
	return true
}

// cmdSubst walks the commands of $(...) or `...`.
func (w *walker) cmdSubst(c *syntax.CmdSubst, ctx evalCtx) {
	if c.TempFile || c.ReplyVar {
		w.unanalysable("unmodelled command substitution form")
	}
	w.substs++
	ok := w.enter()
	defer w.leave()
	if !ok {
		return
	}
	w.walkStmts(c.Stmts, ctx.fr.wrap("$()", nil, true, "").asTail(), ctx.st)
}

// procSubst walks the commands of <(...) or >(...).
func (w *walker) procSubst(p *syntax.ProcSubst, ctx evalCtx) {
	label := p.Op.String() + ")"
	if p.Op != syntax.CmdIn && p.Op != syntax.CmdOut {
		w.unanalysable("unmodelled process substitution " + label)
	}
	w.substs++
	ok := w.enter()
	defer w.leave()
	if !ok {
		return
	}
	w.walkStmts(p.Stmts, ctx.fr.wrap(label, nil, true, "").asTail(), ctx.st)
}

// isCd reports a statement that is a plain cd or pushd.
func isCd(s *syntax.Stmt) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 || len(c.Assigns) > 0 {
		return false
	}
	name := c.Args[0].Lit()
	return name == "cd" || name == "pushd"
}

// echoedText is what a plain "echo WORDS" or "printf WORD" writes, when its
// words are literal, so that "echo 'rm -rf x' | sh" exposes rm to deny rules.
func echoedText(s *syntax.Stmt) *string {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) < 2 || len(c.Assigns) > 0 || len(s.Redirs) > 0 {
		return nil
	}
	name := c.Args[0].Lit()
	if name != "echo" && name != "printf" {
		return nil
	}
	parts := make([]string, 0, len(c.Args)-1)
	for _, a := range c.Args[1:] {
		if len(a.Parts) != 1 {
			return nil
		}
		switch p := a.Parts[0].(type) {
		case *syntax.Lit:
			parts = append(parts, p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return nil
			}
			parts = append(parts, p.Value)
		case *syntax.DblQuoted:
			if len(p.Parts) != 1 {
				return nil
			}
			l, ok := p.Parts[0].(*syntax.Lit)
			if !ok {
				return nil
			}
			parts = append(parts, l.Value)
		default:
			return nil
		}
	}
	text := strings.Join(parts, " ")
	return &text
}
