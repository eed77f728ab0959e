package bash

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// envAllowlisted reports the variables whose assignment cannot change what
// a program runs or where it writes.
func envAllowlisted(name string) bool {
	switch name {
	case "LANG", "TZ", "NO_COLOR", "TERM", "COLUMNS":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}

// shells are the programs whose -c operand is a shell script.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true, "ksh": true, "mksh": true, "zsh": true}

// bashLike are the shells whose scripts the bash parser models faithfully.
var bashLike = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true}

// call handles a simple command: assignments, then the command and its wrappers.
func (w *walker) call(c *syntax.CallExpr, fr frame, st state, stdin *string) (state, state) {
	ctx := evalCtx{fr: fr.substBase(), st: st, assign: true}
	type assignment struct {
		name, text, taint string
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
		assigns = append(assigns, as)
	}
	if len(c.Args) == 0 {
		// Bare assignments change this shell's variables for what follows.
		for _, as := range assigns {
			reason := as.taint
			if reason == "" && !envAllowlisted(as.name) {
				reason = "assignment to " + as.name + " is not allowlisted"
			}
			w.synthetic(fr, st, []string{as.text}, reason == "", reason, nil)
		}
		return st, st
	}
	ctx.assign = false
	if hasBraceCandidate(c.Args[0]) {
		cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), c.Args[0].Parts...)}
		if syntax.SplitBraces(cp) {
			// {rm,-rf,x} is rm -rf x: expanded for deny rules, but an
			// obfuscated command name is not something to allow.
			w.unanalysable("brace expansion in the command name")
		}
	}
	argv := w.evalArgs(c.Args, ctx)
	if len(argv) == 0 {
		w.unanalysable("command name is not static")
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
			} else if !envAllowlisted(as.name) {
				forced = firstNonEmpty(forced, "assignment to "+as.name+" is not allowlisted")
				transparent = false
			}
		}
		full = append(full, strs(argv)...)
		fr = fr.wrap("assign:"+assigns[0].name, full, transparent, forced)
		fr.depth--
		for _, as := range assigns[1:] {
			fr.wrappers = appendStr(fr.wrappers, "assign:"+as.name)
		}
	}
	return w.command(argv, fr, st, stdin)
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
	if fr.depth >= maxDepth {
		w.unanalysable("nesting too deep")
		w.leaf(fr, st, argv, "nesting too deep")
		return st, st
	}
	if prog.dynamic {
		w.unanalysable("command name is not static")
		w.leaf(fr, st, argv, "command name is not static")
		return state{unknown: true}, state{unknown: true}
	}
	if prog.glob {
		w.unanalysable("command name is a glob")
		w.leaf(fr, st, argv, "command name is a glob")
		return st, st
	}
	name := prog.s
	if kind, ok := w.defined[name]; ok {
		reason := "calls " + kind + " " + name + " defined in the script"
		w.unanalysable(reason)
		w.leaf(fr, st, argv, reason)
		return state{unknown: true}, state{unknown: true}
	}
	base := name
	if strings.Contains(name, "/") {
		base = path.Base(name)
		fr.forced = appendStr(fr.forced, "path-qualified program "+name)
		fr.noFS = true
		if fr.allowArgv == nil {
			fr.allowArgv = strs(argv)
		}
	}
	sv := strs(argv)
	switch base {
	case "env":
		return w.envCmd(argv, fr, st, stdin)
	case "command":
		opts, i, ok := commandOpts.scan(argv)
		if !ok {
			return w.wrapperFailed(argv, fr, st, "command")
		}
		if _, lookup := hasOpt(opts, "v", "V"); lookup {
			w.leaf(fr, st, argv, "")
			return st, st
		}
		if i < len(argv) {
			return w.command(argv[i:], fr.wrap("command", sv, true, ""), st, stdin)
		}
	case "builtin":
		if len(argv) > 1 {
			i := 1
			if argv[1].s == "--" {
				i = 2
			}
			if i < len(argv) {
				return w.command(argv[i:], fr.wrap("builtin", sv, true, ""), st, stdin)
			}
		}
	case "exec":
		_, i, ok := execOpts.scan(argv)
		if !ok {
			return w.wrapperFailed(argv, fr, st, "exec")
		}
		if i < len(argv) {
			w.command(argv[i:], fr.wrap("exec", sv, true, ""), st, stdin)
			return st, st
		}
	case "nice":
		_, i, ok := niceOpts.scan(argv)
		if !ok {
			return w.wrapperFailed(argv, fr, st, "nice")
		}
		if i < len(argv) {
			return w.command(argv[i:], fr.wrap("nice", sv, true, ""), st, stdin)
		}
	case "nohup":
		if len(argv) > 1 && !strings.HasPrefix(argv[1].s, "-") {
			return w.command(argv[1:], fr.wrap("nohup", sv, true, ""), st, stdin)
		}
		if len(argv) > 2 && argv[1].s == "--" {
			return w.command(argv[2:], fr.wrap("nohup", sv, true, ""), st, stdin)
		}
	case "timeout":
		_, i, ok := timeoutOpts.scan(argv)
		if !ok {
			return w.wrapperFailed(argv, fr, st, "timeout")
		}
		if i+1 < len(argv) {
			return w.command(argv[i+1:], fr.wrap("timeout", sv, true, ""), st, stdin)
		}
	case "stdbuf":
		_, i, ok := stdbufOpts.scan(argv)
		if !ok {
			return w.wrapperFailed(argv, fr, st, "stdbuf")
		}
		if i < len(argv) {
			return w.command(argv[i:], fr.wrap("stdbuf", sv, true, ""), st, stdin)
		}
	case "time":
		opts, i, ok := timeOpts.scan(argv)
		if !ok {
			return w.wrapperFailed(argv, fr, st, "time")
		}
		if i < len(argv) {
			inner := fr.wrap("time", sv, true, "")
			if o, has := hasOpt(opts, "o", "output"); has {
				inner = fr.wrap("time", sv, false, "")
				inner = w.redirWriteFrame(inner, st, o.value)
			}
			return w.command(argv[i:], inner, st, stdin)
		}
	case "sudo", "doas":
		return w.sudoCmd(argv, fr, st, stdin)
	case "su", "runuser":
		return w.suCmd(argv, fr, st)
	case "watch":
		opts, i, ok := watchOpts.scan(argv)
		if !ok {
			return w.wrapperFailed(argv, fr, st, "watch")
		}
		if i < len(argv) {
			inner := fr.wrap("watch", sv, false, "watch runs a command repeatedly")
			if _, direct := hasOpt(opts, "x", "exec"); direct {
				w.command(argv[i:], inner, st, nil)
				return st, st
			}
			// watch joins its operands and runs them with sh -c.
			if !anyDynamic(argv[i:]) {
				w.script(strings.Join(sv[i:], " "), inner, st, "watch")
				return st, st
			}
			w.unanalysable("watch command is not static")
		}
	case "setsid":
		_, i, ok := setsidOpts.scan(argv)
		if !ok {
			return w.wrapperFailed(argv, fr, st, "setsid")
		}
		if i < len(argv) {
			w.command(argv[i:], fr.wrap("setsid", sv, false, ""), st, stdin)
			return st, st
		}
	case "ionice":
		_, i, ok := ioniceOpts.scan(argv)
		if !ok {
			return w.wrapperFailed(argv, fr, st, "ionice")
		}
		if i < len(argv) {
			return w.command(argv[i:], fr.wrap("ionice", sv, false, ""), st, stdin)
		}
	case "xargs":
		opts, i, ok := xargsOpts.scan(argv)
		inner := fr.wrap("xargs", sv, false, "xargs appends operands that are not known statically")
		if o, has := hasOpt(opts, "a", "arg-file"); has {
			inner = w.redirReadFrame(inner, st, o.value)
		}
		if !ok {
			return w.wrapperFailed(argv, fr, st, "xargs")
		}
		if o, has := hasOpt(opts, "I", "i", "replace"); has {
			inner.placeholder = o.value
			if inner.placeholder == "" {
				inner.placeholder = "{}"
			}
		}
		if i >= len(argv) {
			w.leaf(inner, st, wordsOf([]string{"echo"}), "")
			return st, st
		}
		w.command(argv[i:], inner, st, nil)
		return st, st
	case "find":
		return w.findCmd(argv, fr, st)
	case "eval":
		return w.evalCmd(argv, fr, st)
	case "source", ".":
		w.leaf(fr, st, argv, "source runs a script in this shell")
		return state{unknown: true}, state{unknown: true}
	case "alias":
		for _, a := range argv[1:] {
			if n, v, ok := strings.Cut(a.s, "="); ok && !a.dynamic {
				if w.defined == nil {
					w.defined = map[string]string{}
				}
				w.defined[n] = "alias"
				w.script(v, fr.wrap("alias "+n, sv, false, "alias changes what a name runs"), st, "alias")
			}
		}
		w.leaf(fr, st, argv, "alias changes what a name runs")
		return st, st
	case "shopt", "trap", "enable", "unalias", "set", "hash":
		reason := base + " changes shell behaviour"
		if base == "trap" && len(argv) > 1 && !argv[1].dynamic {
			w.unanalysable("trap runs a string as a command")
			w.script(argv[1].s, fr.wrap("trap", sv, false, "trap runs a string as a command"), st, "trap")
		}
		w.leaf(fr, st, argv, reason)
		return st, st
	case "cd", "pushd":
		return w.cdCmd(argv, fr, st)
	case "popd":
		w.leaf(fr, st, argv, "")
		return state{unknown: true}, state{unknown: true}
	}
	if shells[base] {
		return w.shellCmd(argv, fr, st, stdin, base)
	}
	w.leafStrs(fr, st, argv, sv, "")
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
func (w *walker) envCmd(argv []word, fr frame, st state, stdin *string) (state, state) {
	sv := strs(argv)
	opts, i, ok := envOpts.scan(argv)
	if !ok {
		return w.wrapperFailed(argv, fr, st, "env")
	}
	if i < len(argv) && argv[i].s == "-" {
		// "env -" is "env -i".
		opts = append(opts, parsedOpt{name: "i"})
		i++
	}
	transparent := len(opts) == 0
	forced := ""
	for ; i < len(argv); i++ {
		n, _, isAssign := strings.Cut(argv[i].s, "=")
		if !isAssign || !validName(n) {
			break
		}
		if !envAllowlisted(n) || argv[i].dynamic {
			transparent = false
			forced = firstNonEmpty(forced, "env assigns "+n+", which is not allowlisted")
		}
	}
	if len(opts) > 0 {
		forced = firstNonEmpty(forced, "env changes the environment")
	}
	rest := argv[i:]
	if o, has := hasOpt(opts, "S", "split-string"); has {
		words, err := tokenize(o.value)
		if err != nil || strings.Contains(o.value, dyn) {
			w.unanalysable("env -S string is not static")
			w.leaf(fr, st, argv, "env -S string is not static")
			return st, st
		}
		split := make([]word, 0, len(words)+len(rest))
		for _, t := range words {
			split = append(split, word{s: t.text()})
		}
		rest = append(split, rest...)
	}
	if len(rest) == 0 {
		w.leaf(fr, st, argv, "")
		return st, st
	}
	inner := fr.wrap("env", sv, transparent, forced)
	innerSt := st
	if o, has := hasOpt(opts, "C", "chdir"); has {
		innerSt = w.chdir(st, word{s: o.value, dynamic: strings.Contains(o.value, dyn)})
	}
	w.command(rest, inner, innerSt, stdin)
	return st, st
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
func (w *walker) sudoCmd(argv []word, fr frame, st state, stdin *string) (state, state) {
	sv := strs(argv)
	base := path.Base(argv[0].s)
	opts, i, ok := sudoOpts.scan(argv)
	inner := fr.wrap(base, sv, false, base+" runs a command with other privileges")
	if !ok {
		return w.wrapperFailed(argv, fr, st, base)
	}
	if _, edit := hasOpt(opts, "e", "edit"); edit || i >= len(argv) {
		w.leaf(fr, st, argv, base+" without a command")
		return st, st
	}
	innerSt := st
	if o, has := hasOpt(opts, "D", "chdir"); has {
		innerSt = w.chdir(st, word{s: o.value, dynamic: strings.Contains(o.value, dyn)})
	}
	w.command(argv[i:], inner, innerSt, stdin)
	return st, st
}

// shellCmd: sh/bash/zsh ... [-c script [name args]] | [file] | (stdin).
func (w *walker) shellCmd(argv []word, fr frame, st state, stdin *string, base string) (state, state) {
	sv := strs(argv)
	cmode, forced := false, ""
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
			case 'o', 'O':
				i++ // takes the next word
			}
		}
	}
	label := base + " -c"
	if !cmode {
		switch {
		case i < len(argv):
			w.leaf(fr, st, argv, base+" runs a script file")
		case stdin != nil:
			// A literal here-document or here-string is the script.
			// Its leaves are exposed to deny rules; no allow rule can name
			// the script, so the command stays unanalysable.
			inner := fr.wrap(base+" <<", sv, false, firstNonEmpty(forced, base+" reads its script from stdin"))
			w.unanalysable(base + " reads its script from stdin")
			if !w.script(*stdin, inner, st, base) {
				w.leaf(fr, st, argv, base+" reads its script from stdin")
			}
		default:
			w.leaf(fr, st, argv, base+" reads its script from stdin")
		}
		return st, st
	}
	if i >= len(argv) {
		w.leaf(fr, st, argv, base+" -c without a script")
		return st, st
	}
	script := argv[i]
	if script.dynamic {
		w.unanalysable(label + " script is not static")
		w.leaf(fr, st, argv, label+" script is not static")
		return st, st
	}
	inner := fr.wrap(label, sv, false, forced)
	before := len(w.res.Leaves)
	ok := w.script(script.s, inner, st, label)
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
func (w *walker) findCmd(argv []word, fr frame, st state) (state, state) {
	sv := strs(argv)
	own := []word{argv[0]}
	type execCmd struct {
		label string
		argv  []word
	}
	var execs []execCmd
	for i := 1; i < len(argv); i++ {
		a := argv[i].s
		if a != "-exec" && a != "-execdir" && a != "-ok" && a != "-okdir" {
			own = append(own, argv[i])
			continue
		}
		j := i + 1
		for ; j < len(argv); j++ {
			if argv[j].s == ";" || (argv[j].s == "+" && j > i+1 && argv[j-1].s == "{}") {
				break
			}
		}
		execs = append(execs, execCmd{"find " + a, argv[i+1 : min(j, len(argv))]})
		if j >= len(argv) {
			w.unanalysable("find " + a + " without a terminator")
		}
		i = j
	}
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
		inner := fr.wrap(e.label, sv, false, e.label+" runs on paths not known statically")
		inner.placeholder = "{}"
		innerSt := st
		if strings.HasSuffix(e.label, "dir") {
			innerSt = state{unknown: true} // runs in each found file's directory
		}
		w.command(e.argv, inner, innerSt, nil)
	}
	return st, st
}

// evalCmd parses eval's static arguments as a script so that deny rules
// see what it runs; eval itself is never analysable.
func (w *walker) evalCmd(argv []word, fr frame, st state) (state, state) {
	sv := strs(argv)
	w.unanalysable("eval runs a string as a command")
	dynamic := false
	for _, a := range argv[1:] {
		dynamic = dynamic || a.dynamic
	}
	if len(argv) > 1 && !dynamic {
		inner := fr.wrap("eval", sv, false, "eval runs a string as a command")
		before := len(w.res.Leaves)
		w.script(strings.Join(sv[1:], " "), inner, st, "eval")
		if len(w.res.Leaves) > before {
			return state{unknown: true}, state{unknown: true}
		}
	}
	w.leaf(fr, st, argv, "eval runs a string as a command")
	return state{unknown: true}, state{unknown: true}
}

// cdCmd: cd [-L|-P|-e|-@] [dir]; the leaf reads dir and the state moves there.
func (w *walker) cdCmd(argv []word, fr frame, st state) (state, state) {
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
	reason := ""
	var reads []string
	if paths, ok := w.resolveWord(target, st); ok {
		reads = paths
	} else {
		reason = "path operand is not static"
	}
	w.cdLeaf(fr, st, argv, reason, reads)
	return union(st, next), next
}

// chdir returns the state after a successful cd to target.
func (w *walker) chdir(st state, target word) state {
	paths, ok := w.resolveWord(target, st)
	if !ok || len(paths) == 0 {
		return state{unknown: true}
	}
	if len(paths) > maxCwds {
		return state{unknown: true}
	}
	return state{dirs: paths}
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
func (w *walker) suCmd(argv []word, fr frame, st state) (state, state) {
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
				return st, st
			}
			if base == "runuser" && argv[i].s == "-u" && i+2 < len(argv) && !strings.HasPrefix(argv[i+2].s, "-") {
				w.command(argv[i+2:], fr.wrap(base, sv, false, reason), st, nil)
				return st, st
			}
		}
		w.leaf(fr, st, argv, reason)
		return st, st
	}
	if script.dynamic {
		w.unanalysable(base + " -c script is not static")
		w.leaf(fr, st, argv, base+" -c script is not static")
		return st, st
	}
	inner := fr.wrap(base+" -c", sv, false, reason)
	before := len(w.res.Leaves)
	if !w.script(script.s, inner, st, base+" -c") || len(w.res.Leaves) == before {
		w.leaf(fr, st, argv, reason)
	}
	return st, st
}
