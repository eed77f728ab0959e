package bash

import (
	"os"
	"path"
	"strings"

	"github.com/permopa/permopa/builtins/flagspec"
	"github.com/permopa/permopa/builtins/paths"
	"github.com/permopa/permopa/builtins/scriptfile"
	"mvdan.cc/sh/v3/syntax"
)

// envAllowlisted reports the variables whose assignment cannot change what
// a program runs or where it writes.
func envAllowlisted(name string) bool { return flagspec.TransparentEnvName(name) }

// listsOnly reports whether every argument is one of the listing options.
func listsOnly(args []word, opts ...string) bool {
	for _, a := range args {
		if a.dynamic || !contains(opts, a.s) {
			return false
		}
	}
	return true
}

// bashLike are the shells whose scripts the bash parser models faithfully.
var bashLike = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true}

// call handles a simple command: assignments, then the command and its wrappers.
func (w *walker) call(c *syntax.CallExpr, fr frame, st state, stdin *string) (state, state) {
	ctx := evalCtx{fr: fr.substBase(), st: st, assign: true}
	type assignment struct {
		name, text, taint, val string
	}
	var assigns []assignment
	for _, a := range c.Assigns {
		if a.Name == nil {
			w.unanalysable("unmodelled assignment")
			continue
		}
		as := assignment{name: a.Name.Value}
		val := ""
		if a.Value != nil {
			wd := w.evalOne(a.Value, ctx)
			val = wd.s
			as.taint = wd.taint
			if !(len(c.Args) == 0 && fr.tail && promptAtEnd(as.name)) {
				as.taint = firstNonEmpty(as.taint, w.assignedValue(as.name, wd.s, wd.dynamic, ctx, ""))
			}
		}
		if a.Array != nil {
			for _, el := range a.Array.Elems {
				if el.Index != nil {
					cur := &fieldBuilder{}
					w.arith(el.Index, cur, ctx)
					as.taint = firstNonEmpty(as.taint, cur.w.taint)
				}
				if el.Value != nil {
					as.taint = firstNonEmpty(as.taint, w.walkWordSubsts(el.Value, ctx))
					as.taint = firstNonEmpty(as.taint, w.elementValue(as.name, el.Value, ctx, ""))
				}
			}
			val = "(" + dyn + ")"
		}
		if a.Index != nil {
			cur := &fieldBuilder{}
			w.arith(a.Index, cur, ctx)
			as.taint = firstNonEmpty(as.taint, cur.w.taint)
		}
		op := "="
		if a.Append {
			op = "+="
		}
		as.text = as.name + op + val
		as.val = val
		assigns = append(assigns, as)
	}
	if len(c.Args) == 0 {
		// Bare assignments change this shell's variables for what follows.
		for _, as := range assigns {
			reason := as.taint
			// At the end of the shell (fr.tail), or before commands that
			// only expand it (fr.blindRest), no later command sees the
			// variable: only its value's substitutions count.
			if fr.tail && promptAtEnd(as.name) {
				// A prompt nothing after it shows: its value is never
				// run, and not walked (as an alias body at the end).
				w.synthetic(fr, st, []string{as.text}, reason == "", reason, nil)
				continue
			}
			if reason == "" && !envAllowlisted(as.name) && !flagspec.ShellLocalName(as.name) && !(fr.blindRest && inertAtEnd(as.name)) {
				reason = "assignment to " + as.name + " is not allowlisted"
			}
			afr := w.envEffects(as.name, as.val, fr, []string{as.text}, 1, st)
			w.synthetic(afr, st, []string{as.text}, reason == "", reason, nil)
		}
		return st, st
	}
	ctx.assign = false
	redirVar := w.redirectVariables(c, ctx)
	if hasBraceCandidate(c.Args[0]) {
		cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), c.Args[0].Parts...)}
		if syntax.SplitBraces(cp) {
			// {rm,-rf,x} is rm -rf x: expanded for deny rules, but an
			// obfuscated command name is not something to allow.
			w.unanalysableSeen("brace expansion in the command name")
		}
	}
	argv := w.evalArgs(c.Args, ctx)
	if len(argv) == 0 {
		w.unanalysable("command name is not static")
		fr.unknown = firstNonEmpty(fr.unknown, "the command name is only known at run time")
		w.synthetic(fr, st, []string{dyn}, false, "command name is not static", nil)
		return state{unknown: true}, state{unknown: true}
	}
	if len(assigns) > 0 {
		full := make([]string, 0, len(assigns)+len(argv))
		transparent := true
		forced := ""
		for _, as := range assigns {
			full = append(full, as.text)
			if as.taint != "" {
				forced = firstNonEmpty(forced, as.taint)
				transparent = false
			} else if !envAllowlisted(as.name) && !readSeparators(as.name, as.val, argv) && !historyFormat(as.name, as.val, argv) {
				forced = firstNonEmpty(forced, "assignment to "+as.name+" is not allowlisted")
				transparent = false
			}
		}
		full = append(full, strs(argv)...)
		outer := fr
		forced = firstNonEmpty(forced, redirVar)
		fr = fr.wrap("assign:"+assigns[0].name, full, transparent, forced)
		fr.depth--
		for _, as := range assigns[1:] {
			fr.wrappers = appendStr(fr.wrappers, "assign:"+as.name)
		}
		for i, as := range assigns {
			fr = w.envEffectsIn(as.name, as.val, fr, outer, full, i+1, st)
		}
	}
	if redirVar != "" && len(assigns) == 0 {
		fr.forced = appendStr(fr.forced, redirVar)
	}
	return w.command(argv, fr, st, stdin)
}

// readSeparators reports IFS=TEXT before read, mapfile or readarray
// (while IFS= read -r line): a prefix assignment to a builtin that is not
// a special builtin lasts only while it runs, in bash, zsh and dash, and
// only changes how the line it reads is split into its variables, whose
// values are unknown words anyway (docs/shell.md, "Shell state").
func readSeparators(name, val string, argv []word) bool {
	if name != "IFS" || strings.Contains(val, dyn) || len(argv) == 0 || argv[0].dynamic {
		return false
	}
	switch argv[0].s {
	case "read", "mapfile", "readarray":
		return true
	}
	return false
}

// historyFormat reports whether an assignment before a command is
// HISTTIMEFORMAT with a static value for the history or fc builtin: a
// strftime format for the time stamps it lists, in effect for that
// command only (bash does not save history in a shell that is not
// interactive).
func historyFormat(name, val string, argv []word) bool {
	if name != "HISTTIMEFORMAT" || strings.Contains(val, dyn) || len(argv) == 0 || argv[0].dynamic {
		return false
	}
	return argv[0].s == "history" || argv[0].s == "fc"
}

// redirectVariables finds {NAME[sub]}> redirections, which mvdan.cc/sh
// reads as a word followed by a redirection while bash assigns the file
// descriptor to NAME[sub], evaluating the subscript.
func (w *walker) redirectVariables(c *syntax.CallExpr, ctx evalCtx) string {
	taint := ""
	text := parsedText(w.src) // positions are offsets in it
	for _, a := range c.Args {
		end := int(a.End().Offset())
		src := w.source(a)
		if len(src) < 4 || src[0] != '{' || !strings.HasSuffix(src, "]}") || end >= len(text) {
			continue
		}
		if next := text[end]; next != '<' && next != '>' {
			continue
		}
		// The name as bash reads it: quoted text is code in a subscript;
		// substitutions mvdan.cc/sh parsed are walked with the word already.
		var b strings.Builder
		for _, p := range a.Parts {
			switch q := p.(type) {
			case *syntax.Lit:
				b.WriteString(q.Value)
			case *syntax.SglQuoted:
				b.WriteString(q.Value)
			default:
				if t, ok := staticText(&syntax.Word{Parts: []syntax.WordPart{p}}); ok {
					b.WriteString(t)
				} else {
					b.WriteString("0")
					taint = firstNonEmpty(taint, "redirection variable with an expansion in its subscript")
				}
			}
		}
		name := b.String()
		if len(name) > 2 {
			taint = firstNonEmpty(taint, w.nameRef(name[1:len(name)-1], ctx, "redirection variable"))
		}
	}
	return taint
}

func strs(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.s
	}
	return out
}

// command unwraps wrappers around argv and emits the leaves it runs.
func (w *walker) command(argv []word, fr frame, st state, stdin *string) (state, state) {
	if w.stop {
		return st, st
	}
	prog := argv[0]
	// Only xargs itself reads the piped paths; a wrapper or a command it
	// runs reads something else.
	piped := fr.piped
	fr.piped = pipedInput{}
	if fr.depth >= maxDepth {
		w.unanalysable("nesting too deep")
		fr.unknown = firstNonEmpty(fr.unknown, "nesting too deep to analyse")
		w.leaf(fr, st, argv, "nesting too deep")
		return st, st
	}
	if prog.dynamic {
		w.unanalysable("command name is not static")
		fr.unknown = firstNonEmpty(fr.unknown, "the command name is only known at run time")
		w.leaf(fr, st, argv, "command name is not static")
		return state{unknown: true}, state{unknown: true}
	}
	if prog.glob {
		w.unanalysable("command name is a glob")
		fr.unknown = firstNonEmpty(fr.unknown, "the command name is a glob, only resolved at run time")
		w.leaf(fr, st, argv, "command name is a glob")
		return st, st
	}
	name := prog.s
	if fr.placeholder != "" && strings.Contains(name, fr.placeholder) {
		// find . -exec {} \; and xargs -I{} {} run the paths or lines they
		// supply as programs.
		fr.unknown = firstNonEmpty(fr.unknown, "the command name is supplied at run time by "+fr.wrappers[len(fr.wrappers)-1])
	}
	if kind, ok := w.defined[name]; ok {
		reason := "calls " + kind + " " + name + " defined in the script"
		w.unanalysable(reason)
		w.functionArgs(name, argv, evalCtx{fr: fr.substBase(), st: st})
		fr.unknown = firstNonEmpty(fr.unknown, reason+": what its words run is only known at run time")
		w.leaf(fr, st, argv, reason)
		return state{unknown: true}, state{unknown: true}
	}
	if r := w.projectBin(name, fr); r != "" {
		// A package script's command found in node_modules/.bin.
		fr.unknown = firstNonEmpty(fr.unknown, r)
	}
	base := name
	if strings.Contains(name, "/") {
		if file, ok := w.projectProgram(name, st); ok && !strings.Contains(name, dyn) {
			// ./x.sh, scripts/build: the project's own script or program.
			if file == "" {
				w.walkScripts(argv, fr, st, []scriptfile.Script{{Name: name, Unknown: name + " is in a directory not known statically"}}, nil, "path-qualified program "+name)
				return st, st
			}
			if w.shellScript(argv, word{s: file}, &argv[0], argv[1:], false, fr, st, scriptfile.ByExec, "path-qualified program "+name) {
				return st, st
			}
		}
		base = path.Base(name)
		if strings.Contains(name, dyn) || !paths.SystemProgram(name) {
			fr.forced = appendStr(fr.forced, "path-qualified program "+name)
		} else {
			// /usr/bin/find, /bin/ls: the system's own program, judged
			// as its bare name (docs/shell.md, "Leaves"); stamped, so a
			// cached analysis holds only while the file is unchanged.
			w.scriptFiles().StampDir(name)
		}
		fr.noFS = true
		if fr.allowArgv == nil {
			fr.allowArgv = strs(argv)
		}
	}
	sv := strs(argv)
	if wr := wrappers[base]; wr != nil {
		c := &wrapperCall{wrapper: wr, name: base, argv: argv, sv: sv, fr: fr, st: st, stdin: stdin,
			piped: piped}
		if st, next, done := wr.walk(w, c); done {
			return st, next
		}
	}
	if shells[base] {
		return w.shellCmd(argv, fr, st, stdin, base)
	}
	if w.scriptProgram(base, argv, fr, st) {
		return st, st
	}
	reason, unknown := w.evalBuiltin(base, argv, evalCtx{fr: fr.substBase(), st: st})
	fr.unknown = firstNonEmpty(fr.unknown, unknown)
	w.stdin = stdin
	w.leafStrs(fr, st, argv, sv, reason)
	w.stdin = nil
	return st, st
}

// redirWriteFrame adds a file written by a wrapper option (time -o F).
func (w *walker) redirWriteFrame(fr frame, st state, target string) frame {
	fr, _ = w.redirWrite(fr, st, word{s: target, dynamic: strings.Contains(target, dyn)}, false)
	return fr
}

func (w *walker) redirReadFrame(fr frame, st state, target string) frame {
	return w.redirRead(fr, st, word{s: target, dynamic: strings.Contains(target, dyn)})
}

// envCmd: env [-i] [-u NAME] [-C DIR] [-S STR] [NAME=V]... [cmd args]
func (w *walker) envCmd(c *wrapperCall) (state, state, bool) {
	argv, fr, st, stdin := c.argv, c.fr, c.st, c.stdin
	sv := strs(argv)
	opts, i, ok := c.opts.scan(argv)
	if !ok {
		return w.failed(c)
	}
	if i < len(argv) && argv[i].s == "-" {
		// "env -" is "env -i".
		opts = append(opts, parsedOpt{name: "i"})
		i++
	}
	transparent := c.transparent && len(opts) == 0
	forced := ""
	type envAssign struct {
		name, val string
		idx       int
	}
	var assigned []envAssign
	for ; i < len(argv); i++ {
		n, v, isAssign := strings.Cut(argv[i].s, "=")
		if !isAssign || !validName(n) {
			break
		}
		assigned = append(assigned, envAssign{n, v, i})
		if !envAllowlisted(n) || argv[i].dynamic {
			transparent = false
			forced = firstNonEmpty(forced, "env assigns "+n+", which is not allowlisted")
		}
		w.assignedValue(n, v, argv[i].dynamic, evalCtx{fr: fr.substBase(), st: st}, "")
	}
	for _, o := range opts {
		// -i and -u only take variables away: what runs is the inner
		// command as the vocabulary judges it (execvp's default PATH,
		// /bin:/usr/bin since glibc 2.24, holds no project directory).
		// Allow rules still see env's whole argv (not transparent).
		if o.name != "i" && o.name != "ignore-environment" && o.name != "u" && o.name != "unset" &&
			o.name != "0" && o.name != "null" {
			forced = firstNonEmpty(forced, "env changes the environment")
		}
	}
	rest := argv[i:]
	if o, has := hasOpt(opts, "S", "split-string"); has {
		words, err := tokenize(o.value)
		if err != nil || strings.Contains(o.value, dyn) {
			w.unanalysable("env -S string is not static")
			w.leaf(fr, st, argv, "env -S string is not static")
			return st, st, true
		}
		split := make([]word, 0, len(words)+len(rest))
		for _, t := range words {
			split = append(split, word{s: t.text()})
		}
		rest = append(split, rest...)
	}
	if len(rest) == 0 {
		w.leaf(fr, st, argv, "")
		return st, st, true
	}
	inner := fr.wrap("env", sv, transparent, forced)
	if _, has := hasOpt(opts, "S", "split-string"); has {
		inner = inner.withCode(sv, len(sv))
	}
	for _, a := range assigned {
		inner = w.envEffectsIn(a.name, a.val, inner, fr, sv, a.idx+1, st)
	}
	innerSt := st
	if o, has := hasOpt(opts, c.chdir...); has {
		innerSt = w.chdir(st, word{s: o.value, dynamic: strings.Contains(o.value, dyn)})
	}
	w.command(rest, inner, innerSt, stdin)
	return st, st, true
}

func validName(n string) bool {
	if n == "" {
		return false
	}
	for i, c := range n {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// sudoCmd: sudo [options] cmd args; never transparent.
func (w *walker) sudoCmd(c *wrapperCall) (state, state, bool) {
	argv, fr, st, stdin := c.argv, c.fr, c.st, c.stdin
	sv := strs(argv)
	base := path.Base(argv[0].s)
	opts, i, ok := c.opts.scan(argv)
	inner := fr.wrap(base, sv, false, base+" runs a command with other privileges")
	if !ok {
		return w.failed(c)
	}
	if _, edit := hasOpt(opts, "e", "edit"); edit || i >= len(argv) {
		w.leaf(fr, st, argv, base+" without a command")
		return st, st, true
	}
	innerSt := st
	if o, has := hasOpt(opts, c.chdir...); has {
		innerSt = w.chdir(st, word{s: o.value, dynamic: strings.Contains(o.value, dyn)})
	}
	w.command(argv[i:], inner, innerSt, stdin)
	return st, st, true
}

// shellCmd: sh/bash/zsh ... [-c script [name args]] | [file] | (stdin).
func (w *walker) shellCmd(argv []word, fr frame, st state, stdin *string, base string) (state, state) {
	sv := strs(argv)
	// smode: -s, the script is read from stdin and every operand is a
	// positional parameter, never a script file.
	cmode, smode, forced := false, false, ""
	i := 1
	for ; i < len(argv); i++ {
		a := argv[i].s
		if argv[i].dynamic {
			w.unanalysable("shell option is not static")
			w.leaf(fr, st, argv, "shell option is not static")
			return st, st
		}
		if a == "--" || a == "-" {
			i++
			break
		}
		if strings.HasPrefix(a, "--") {
			switch a {
			case "--rcfile", "--init-file":
				forced = "shell runs a startup file"
				i++
			}
			continue
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		for _, c := range a[1:] {
			switch c {
			case 'c':
				cmode = true
			case 's':
				smode = true
			case 'o', 'O':
				i++ // takes the next word
			}
		}
	}
	label := base + " -c"
	if !cmode {
		switch {
		case i < len(argv) && !smode:
			// A script file is not read (see "source"), unless it is no
			// file on disk: bash <(curl ...), sh /dev/stdin.
			if unseenScript(argv[i]) {
				fr.unknown = firstNonEmpty(fr.unknown, base+" runs a script that is not a file permopa can name")
			} else if bashLike[base] && forced == "" && w.shellScript(argv, argv[i], &argv[i], argv[i+1:], false, fr, st, scriptfile.ByShell, base+" runs a script file") {
				return st, st
			} else {
				fr.unknown = firstNonEmpty(fr.unknown, base+" runs "+argv[i].s+", a script file permopa did not read")
			}
			w.leaf(fr, st, argv, base+" runs a script file")
		case stdin != nil:
			// A literal here-document or here-string is the script.
			// Its leaves are exposed to deny rules; no allow rule can name
			// the script, so the command stays unanalysable.
			inner := fr.wrap(base+" <<", sv, false, firstNonEmpty(forced, base+" reads its script from stdin"))
			w.unanalysableSeen(base + " reads its script from stdin")
			if !w.script(*stdin, inner, st, base) {
				w.leaf(fr, st, argv, base+" reads its script from stdin")
			}
		default:
			// curl ... | sh: the script is whatever arrives on stdin.
			fr.unknown = firstNonEmpty(fr.unknown, base+" reads its script from stdin")
			w.leaf(fr, st, argv, base+" reads its script from stdin")
		}
		return st, st
	}
	if i >= len(argv) {
		// sh -c with the script from xargs or find -exec: the data is
		// the script, as unknowable as eval of a run-time string.
		w.unanalysableSeen(base + " -c runs a script only known at run time (its data)")
		fr.unknown = firstNonEmpty(fr.unknown, base+" -c without a static script")
		w.leaf(fr, st, argv, base+" -c without a script")
		return st, st
	}
	script := argv[i]
	if script.dynamic {
		w.unanalysable(label + " script is not static")
		fr.unknown = firstNonEmpty(fr.unknown, label+" script is only known at run time")
		w.leaf(fr, st, argv, label+" script is not static")
		return st, st
	}
	src, pasted := script.s, false
	if fr.placeholder != "" && strings.Contains(script.s, fr.placeholder) {
		// find -exec sh -c 'cat {}' and xargs -I{} sh -c '... {}': the
		// supplied path or line becomes part of the script, judged as a
		// path under the roots only where every name it can be is plain
		// text there (pastescript.go).
		why := "the names it pastes are not known"
		switch {
		case fr.pasteNames == nil || fr.dataRoots == nil:
		case !bashLike[base]:
			why = base + " syntax is not modelled"
		default:
			if s, r := w.pastedScript(script.s, fr.placeholder); r != "" {
				why = r
			} else if r := fr.pasteNames(st); r != "" {
				why = r
			} else {
				src, pasted = s, true
			}
		}
		if !pasted {
			by := fr.wrappers[len(fr.wrappers)-1]
			w.unanalysableSeen(label + " script is completed at run time by " + by + " (its data): " + why)
			fr.unknown = firstNonEmpty(fr.unknown, label+" script is completed at run time by "+by+": "+why)
		}
	}
	inner := fr.wrap(label, sv, false, forced).withCode(sv, i+1)
	if pasted {
		inner.pasted, inner.pasteShow, inner.placeholder = true, fr.placeholder, pasteMark
	}
	before := len(w.res.Leaves)
	ok := w.script(src, inner, st, label)
	if !bashLike[base] {
		w.unanalysable(base + " syntax is not modelled")
	}
	if !ok || len(w.res.Leaves) == before {
		reason := label + " script is not analysable"
		if ok {
			reason = ""
		}
		w.leaf(fr, st, argv, firstNonEmpty(reason, label+" runs nothing analysable"))
	}
	return st, st
}

// findCmd splits find's -exec/-execdir/-ok/-okdir commands into leaves.
func (w *walker) findCmd(c *wrapperCall) (state, state, bool) {
	argv, fr, st := c.argv, c.fr, c.st
	sv := strs(argv)
	own := []word{argv[0]}
	type execCmd struct {
		label string
		argv  []word
		at    int // argv index of the primary
		end   int // argv index of the terminator
	}
	var execs []execCmd
	// The expression as find reads it: a value such as -name -exec is a
	// pattern, not a command.
	next := 1
	expr := flagspec.ParseFind(sv)
	roots, known := w.findDataRoots(argv, expr, st)
	if fr.placeholder != "" && known {
		// xargs -I{} find {} -exec cat {} \;: the starting point is
		// the path xargs supplies, not the word {}.
		for _, a := range argv[1:] {
			if strings.Contains(a.s, fr.placeholder) {
				known = false
				break
			}
		}
	}
	for _, p := range expr.Primaries {
		if p.Name != "-exec" && p.Name != "-execdir" && p.Name != "-ok" && p.Name != "-okdir" {
			continue
		}
		own = append(own, argv[next:p.Index]...)
		if !p.Terminated {
			w.unanalysable("find " + p.Name + " without a terminator")
		}
		// The terminator's index (len(argv) when there is none).
		end := p.Index + 1 + len(p.Values)
		execs = append(execs, execCmd{"find " + p.Name, argv[p.Index+1 : end], p.Index, end})
		next = min(end+1, len(argv))
	}
	own = append(own, argv[next:]...)
	ownFr := fr
	if len(execs) > 0 {
		ownFr.layers = append(append([][]string(nil), fr.layers...), sv)
		if ownFr.allowArgv == nil {
			ownFr.allowArgv = sv
		}
	}
	w.leaf(ownFr, st, own, "")
	for _, e := range execs {
		if len(e.argv) == 0 {
			continue
		}
		// find:* does not cover what -exec runs: allow rules spell it out.
		// Under static starting points, {} is a path under one of them
		// (dataflow.go): the command is judged with it; -ok and -okdir
		// only ask on the terminal before running the same command.
		forced := e.label + " runs on paths not known statically"
		if known {
			forced = ""
		}
		inner := fr.wrap(e.label, sv, false, forced).withCode(sv, e.end+1)
		inner.placeholder = "{}"
		inner.dataRoots, inner.dataDepth, inner.pasteNames = nil, 0, nil
		if known {
			inner.dataRoots, inner.dataDepth = roots, findDepth(expr)
		}
		innerSt := st
		if strings.HasSuffix(e.label, "dir") {
			innerSt = state{unknown: true} // runs in each found file's directory
		}
		if known && e.end < len(argv) && argv[e.end].s == ";" {
			// sh -c '… {} …' \;: each path is pasted into the script's
			// text (pastescript.go); with +, GNU find refuses a {} that
			// is not a word of its own.
			words, depth, fargv := expr.Roots, findDepth(expr), argv[:e.at]
			inner.pasteNames = func(at state) string {
				if !sameState(at, innerSt) {
					return "the script runs in another directory than the one find's paths are relative to"
				}
				// The paths -exec runs on: those the expression before
				// it selects (findselect.go).
				return w.findNamesInert(words, roots, depth, w.findSelectionOf(fargv, st, nil))
			}
		}
		w.command(e.argv, inner, innerSt, nil)
	}
	return st, st, true
}

// evalCmd parses eval's static arguments as a script so that deny rules
// see what it runs; eval itself is never analysable.
func (w *walker) evalCmd(c *wrapperCall) (state, state, bool) {
	argv, fr, st := c.argv, c.fr, c.st
	sv := strs(argv)
	dynamic := false
	for _, a := range argv[1:] {
		dynamic = dynamic || a.dynamic
	}
	if dynamic {
		w.unanalysable("eval runs a string as a command")
		fr.unknown = firstNonEmpty(fr.unknown, "eval runs a string only known at run time")
	} else {
		w.unanalysableSeen("eval runs a string as a command")
	}
	if len(argv) > 1 && !dynamic {
		inner := fr.wrap("eval", sv, false, "eval runs a string as a command").withCode(sv, len(sv))
		before := len(w.res.Leaves)
		w.script(strings.Join(sv[1:], " "), inner, st, "eval")
		if len(w.res.Leaves) > before {
			return state{unknown: true}, state{unknown: true}, true
		}
	}
	w.leaf(fr, st, argv, "eval runs a string as a command")
	return state{unknown: true}, state{unknown: true}, true
}

// cdCmd: cd [-L|-P|-e|-@] [dir]; the leaf reads dir and the state moves there.
func (w *walker) cdCmd(c *wrapperCall) (state, state, bool) {
	argv, fr, st := c.argv, c.fr, c.st
	i := 1
	for i < len(argv) && len(argv[i].s) > 1 && argv[i].s[0] == '-' && !argv[i].dynamic {
		if argv[i].s == "--" {
			i++
			break
		}
		i++
	}
	var target word
	switch {
	case i >= len(argv):
		if w.opts.Home == "" {
			target = word{s: dyn, dynamic: true}
		} else {
			target = word{s: w.opts.Home}
		}
	case argv[i].s == "-":
		target = word{s: dyn, dynamic: true}
	default:
		target = argv[i]
	}
	next := w.chdir(st, target)
	paths, resolved := w.resolveWord(target, st)
	if alts, searched := w.cdPathState(target, st); searched {
		next, paths, resolved = alts, alts.dirs, !alts.unknown
	}
	reason := ""
	var reads []string
	if resolved {
		reads = paths
	} else if !fr.tail {
		// A cd nothing runs after only moves the shell that ends; a host
		// that carries the directory to the next call names it there.
		reason = "path operand is not static"
	}
	w.cdLeaf(fr, st, argv, reason, reads)
	return union(st, next), next, true
}

// cdPathEnv is the CDPATH of the shell the command runs in: the deciding
// process's, which for a hook is the host's (as PATH: paths.pathEnv).
var cdPathEnv = func() string { return os.Getenv("CDPATH") }

// bashOptsEnv is the BASHOPTS of permopa's environment (for a hook, the
// host's): bash started with it exported sets the shell options it lists
// before it reads the command (cdable_vars, nullglob, dotglob, ...), and
// GLOBIGNORE changes what globs match (and sets dotglob).
var bashOptsEnv = func() (bashopts, globignore string) {
	return os.Getenv("BASHOPTS"), os.Getenv("GLOBIGNORE")
}

// inheritedGlobOptions reports whether the environment changes what globs
// mean (a shopt in the command does too: mayChangeGlobs).
func inheritedGlobOptions() bool {
	opts, ignore := bashOptsEnv()
	return strings.Contains(opts, "glob") || ignore != ""
}

// cdPathState returns where cd (or pushd) TARGET may take the shell when
// CDPATH is set: bash looks a name that does not start with "/", "." or
// ".." up in each of its entries first (an empty one is the current
// directory) and only then takes the name itself, so a user's exported
// CDPATH=~/src takes cd build to ~/src/build when that exists (cd build
// && rm -f out.o deleted ~/src/build/out.o, judged as ./build's). Every
// candidate is a directory the command may be in; more than maxCwds, or
// one not static, is unknown; so is any with cdable_vars in the
// environment's BASHOPTS. searched is false where neither plays a part
// (docs/shell.md, "Leaves").
func (w *walker) cdPathState(target word, st state) (state, bool) {
	cdpath, t := cdPathEnv(), target.s
	if target.dynamic || t == "" || t == "." || t == ".." || strings.HasPrefix(t, "/") ||
		strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") {
		return state{}, false
	}
	if opts, _ := bashOptsEnv(); strings.Contains(opts, "cdable_vars") {
		// cd NAME goes to the value of the variable NAME when no such
		// directory is found: any directory.
		return state{unknown: true}, true
	}
	if cdpath == "" {
		return state{}, false
	}
	var dirs []string
	for _, e := range append(strings.Split(cdpath, ":"), ".") {
		if e == "" {
			e = "."
		}
		ps, ok := w.resolve(path.Join(e, t), st)
		if !ok || len(ps) == 0 {
			return state{unknown: true}, true
		}
		for _, p := range ps {
			dirs = appendUnique(dirs, p)
		}
	}
	if len(dirs) > maxCwds {
		return state{unknown: true}, true
	}
	return state{dirs: dirs}, true
}

// chdir returns the state after a successful cd to target.
func (w *walker) chdir(st state, target word) state {
	ps, ok := w.resolveWord(target, st)
	if !ok || len(ps) == 0 {
		return state{unknown: true}
	}
	if len(ps) > maxCwds {
		return state{unknown: true}
	}
	// bash's cd is logical ("cd link/.." stays beside the link, the
	// cleaned spelling), "cd -P" and "set -P" physical (the spelling
	// that keeps ".."): the command may be in either.
	return state{dirs: ps}
}

// wrapperFailed handles a wrapper with an option it does not know: the
// command is unanalysable, the wrapper is a leaf, and the commands it most
// likely runs (starting at each of its first few non-option words) are
// exposed to deny rules.
func (w *walker) wrapperFailed(argv []word, fr frame, st state, label string) (state, state) {
	reason := "unrecognised " + label + " option"
	w.unanalysable(reason)
	w.leaf(fr, st, argv, reason)
	inner := fr.wrap(label, strs(argv), false, reason)
	tried := 0
	for j := 1; j < len(argv) && tried < 3 && !w.stop; j++ {
		if !strings.HasPrefix(argv[j].s, "-") && !argv[j].dynamic {
			w.command(argv[j:], inner, st, nil)
			tried++
		}
	}
	return st, st
}

func anyDynamic(ws []word) bool {
	for _, w := range ws {
		if w.dynamic {
			return true
		}
	}
	return false
}

// suCmd: su [options] [-] [user] [-c script]; the script runs as another user.
func (w *walker) suCmd(c *wrapperCall) (state, state, bool) {
	argv, fr, st := c.argv, c.fr, c.st
	sv := strs(argv)
	base := path.Base(argv[0].s)
	reason := base + " runs a command as another user"
	var script *word
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a.s == "-c" || a.s == "--command" || a.s == "--session-command":
			if i+1 < len(argv) {
				script = &argv[i+1]
			}
			i++
		case strings.HasPrefix(a.s, "--command=") || strings.HasPrefix(a.s, "--session-command="):
			_, v, _ := strings.Cut(a.s, "=")
			script = &word{s: v, dynamic: strings.Contains(v, dyn)}
		case strings.HasPrefix(a.s, "-c") && !strings.HasPrefix(a.s, "--"):
			script = &word{s: a.s[2:], dynamic: strings.Contains(a.s, dyn)}
		}
	}
	if script == nil {
		// runuser -u USER [--] cmd args, and "--" before a command, run it directly.
		for i := 1; i < len(argv); i++ {
			if argv[i].s == "--" && i+1 < len(argv) {
				w.command(argv[i+1:], fr.wrap(base, sv, false, reason), st, nil)
				return st, st, true
			}
			if base == "runuser" && argv[i].s == "-u" && i+2 < len(argv) && !strings.HasPrefix(argv[i+2].s, "-") {
				w.command(argv[i+2:], fr.wrap(base, sv, false, reason), st, nil)
				return st, st, true
			}
		}
		w.leaf(fr, st, argv, reason)
		return st, st, true
	}
	if script.dynamic {
		w.unanalysable(base + " -c script is not static")
		fr.unknown = firstNonEmpty(fr.unknown, base+" -c script is only known at run time")
		w.leaf(fr, st, argv, base+" -c script is not static")
		return st, st, true
	}
	inner := fr.wrap(base+" -c", sv, false, reason).withCode(sv, len(sv))
	before := len(w.res.Leaves)
	if !w.script(script.s, inner, st, base+" -c") || len(w.res.Leaves) == before {
		w.leaf(fr, st, argv, reason)
	}
	return st, st, true
}

// unseenScript reports a script operand that is no file on disk permopa
// can name: stdin, a process substitution (/dev/fd/N), a word only known
// at run time.
func unseenScript(wd word) bool {
	p := wd.s
	return wd.dynamic || strings.Contains(p, dyn) || p == "-" || p == "/dev/stdin" ||
		strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/") ||
		strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/")
}

// hashSets reports a hash call that binds names to programs (-p) rather
// than listing or clearing the table.
func hashSets(argv []string) bool {
	for _, a := range argv[1:] {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "-") && strings.Contains(a, "p") {
			return true
		}
	}
	return false
}

// Environment variables that change what programs run. commandVars hold
// a command line a program runs (git log runs $GIT_PAGER); loaderVars make
// programs load code or find other programs (LD_PRELOAD, PATH,
// NODE_OPTIONS --require, TAR_OPTIONS --to-command, GIT_CONFIG_*).
var commandVars = map[string]bool{
	"PAGER": true, "GIT_PAGER": true, "MANPAGER": true, "SYSTEMD_PAGER": true, "BAT_PAGER": true,
	"EDITOR": true, "VISUAL": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "SVN_EDITOR": true,
	"FCEDIT": true, "SUDO_EDITOR": true, "GIT_SSH_COMMAND": true, "GIT_SSH": true,
	"GIT_EXTERNAL_DIFF": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true,
	"GIT_PROXY_COMMAND": true, "BROWSER": true, "PROMPT_COMMAND": true, "LESSOPEN": true,
	"LESSCLOSE": true, "RSYNC_RSH": true, "CVS_RSH": true, "RSH": true, "DIFFTOOL": true,
}

var loaderVars = map[string]bool{
	"PATH": true, "BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true, "PS4": true,
	"PYTHONPATH": true, "PYTHONSTARTUP": true, "PYTHONHOME": true, "PYTHONUSERBASE": true,
	"NODE_OPTIONS": true, "NODE_PATH": true, "PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true,
	"PERL5DB": true, "RUBYOPT": true, "RUBYLIB": true, "JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true,
	"JDK_JAVA_OPTIONS": true, "GCONV_PATH": true, "TAR_OPTIONS": true, "MAKEFLAGS": true,
	"MFLAGS": true, "GNUMAKEFLAGS": true, "LESS": true, "LESSKEY": true, "RIPGREP_CONFIG_PATH": true,
	"GIT_EXEC_PATH": true, "GIT_TEMPLATE_DIR": true, "ZDOTDIR": true, "INPUTRC": true,
	"NPM_CONFIG_NODE_OPTIONS": true,
}

// envEffects is envEffectsIn for a bare assignment (NAME=VALUE as a
// statement, export NAME=VALUE): the frame of its own leaf.
func (w *walker) envEffects(name, val string, fr frame, argv []string, n int, st state) frame {
	return w.envEffectsIn(name, val, fr, fr, argv, n, st)
}

// envEffectsIn applies the assignment NAME=VALUE, word n-1 of argv, to
// inner, the frame of the commands that see it (outer is the frame the
// assignment is written in). A command variable's literal value is walked
// as a script, so deny rules see what it runs; a value only known at run
// time, or a loader variable, makes those commands run unknown code.
// Either way allow rules must spell the assignment out.
func (w *walker) envEffectsIn(name, val string, inner, outer frame, argv []string, n int, st state) frame {
	upper := strings.ToUpper(name)
	cmd := commandVars[name] || upper == "NPM_CONFIG_SCRIPT_SHELL" || upper == "NPM_CONFIG_SHELL"
	loads := loaderVars[name] || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") ||
		strings.HasPrefix(name, "BASH_FUNC_") || strings.HasPrefix(name, "GIT_CONFIG") ||
		upper == "NPM_CONFIG_NODE_OPTIONS" || packageManagerConfig(upper)
	switch {
	case loads:
		inner.unknown = firstNonEmpty(inner.unknown, name+" makes programs load code or other programs permopa cannot see")
	case cmd && strings.Contains(val, dyn):
		inner.unknown = firstNonEmpty(inner.unknown, name+" holds a command only known at run time")
	case cmd:
		line := val
		if name == "LESSOPEN" || name == "LESSCLOSE" {
			line = strings.TrimLeft(line, "|-")
		}
		w.script(line, outer.wrap("assign:"+name, argv, false, name+" names a command").withCode(argv, n), st, name)
	default:
		return inner
	}
	return inner.withCode(argv, n)
}

// packageManagerConfig reports a variable that configures a package
// manager (npm_config_script_shell, YARN_*, PNPM_*, BUN_*): it can change
// the shell that runs package scripts or the code the manager loads, so the
// scripts permopa reads are not what runs (docs/shell.md, "Scripts").
func packageManagerConfig(upper string) bool {
	for _, p := range []string{"NPM_CONFIG_", "YARN_", "PNPM_", "BUN_"} {
		if strings.HasPrefix(upper, p) {
			return true
		}
	}
	return false
}

// promptAtEnd reports a variable only an interactive shell reads, to show a
// prompt (PS0, PS1, PS2) or before one (PROMPT_COMMAND): assigned by the
// last statement of a shell per call (frame.tail), nothing reads it, since
// the hosts' shells are not interactive and what they run after the command
// shows no prompt (checked under strace in each host's shape;
// docs/shell.md, "Shell state"). Not PS4: set -x (the command's, or the
// user's options in Claude Code's snapshot) expands it before tracing the
// host's pwd -P.
func promptAtEnd(name string) bool {
	switch name {
	case "PROMPT_COMMAND", "PS0", "PS1", "PS2":
		return true
	}
	return false
}
