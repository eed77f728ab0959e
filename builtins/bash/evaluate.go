package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Code that runs during expansion (doc.go, "Evaluated strings"). Bash
// evaluates some strings a second time: as arithmetic
// ((( )), $(( )), let, [[ -eq ]], subscripts of indexed arrays, values of
// variables named in arithmetic, declare -i values) and as variable names
// whose subscript it expands (test -v, [[ -v ]], printf -v, read, unset,
// wait -p, declare 'a[i]=v', namerefs, ${!x}, {a[i]}> redirections). A
// subscript or an arithmetic string may hold "$(cmd)", which then runs:
// test -v 'a[$(rm -rf x)]'. Every such string that is known statically is
// parsed here as bash would read it; its substitutions are walked as leaves
// under a label naming the construct, so deny rules see them; a string that
// holds one is not analysable, and any evaluation that is not proven free of
// substitutions keeps its command from being read-only.

// Labels of the frames evaluated strings are walked in.
const (
	labelArith     = "arithmetic"
	labelSubscript = "subscript"
)

// evalFrame is the frame of the substitutions inside an evaluated string.
func evalFrame(ctx evalCtx, label string) evalCtx {
	ctx.fr = ctx.fr.wrap(label, nil, true, "runs inside "+label)
	ctx.fr.depth-- // a label, not a wrapper level
	return ctx
}

// shortText is text cut for a reason.
func shortText(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// arithText walks text that bash evaluates as an arithmetic expression. It
// taints cur when the text names variables (their values are evaluated in
// turn) or holds substitutions, and walks those substitutions as leaves.
func (w *walker) arithText(text string, cur *fieldBuilder, ctx evalCtx, where string) {
	t := strings.TrimSpace(text)
	if t == "" || isNumberLit(strings.TrimLeft(t, "+-")) || w.stop {
		return
	}
	if validName(t) {
		cur.w.taint = firstNonEmpty(cur.w.taint, "arithmetic on variables can run code")
		w.valuesAsArith(t, ctx)
		return
	}
	ok := w.enter()
	defer w.leave()
	if !ok {
		return
	}
	before := w.substs
	inner := evalFrame(ctx, where)
	x, err := w.parseArithText(t)
	saved := w.src
	w.src = t // positions in x are offsets in t
	defer func() { w.src = saved }()
	switch {
	case err != nil:
		// What bash expands in it is still walked (docText): every command is a leaf.
		w.unanalysableSeen(where + " is not an arithmetic expression: " + shortText(t))
		cur.w.taint = firstNonEmpty(cur.w.taint, where+" cannot be analysed")
		w.docText(t, inner, where)
	case x != nil:
		w.arith(x, cur, inner)
	}
	if w.substs > before {
		w.unanalysableSeen("command substitution inside " + where)
		cur.w.taint = "command substitution inside " + where
	}
}

// docText walks the substitutions bash would expand in text read like a
// here-document body (quotes are not special): what runs when bash expands
// a string it took as code. Text that does not parse is cut into words
// for deny rules.
func (w *walker) docText(text string, ctx evalCtx, where string) {
	if !strings.ContainsAny(text, "$`") || w.stop {
		return
	}
	wd, err := w.parseDocText(text)
	if err != nil {
		w.unanalysable(where + " does not parse: " + shortText(text))
		w.addCrude(text)
		return
	}
	if wd != nil {
		saved := w.src
		w.src = text
		before := w.substs
		w.walkWordSubsts(wd, ctx)
		w.src = saved
		if w.substs > before {
			w.unanalysableSeen("command substitution inside " + where)
		}
	}
}

// addCrude adds the word runs of unparsable code for deny and ask rules.
func (w *walker) addCrude(text string) {
	for _, argv := range crudeArgvs(text) {
		if len(w.res.crude) >= maxCrude {
			return
		}
		w.res.crude = append(w.res.crude, argv)
	}
}

// nameRef walks text that bash resolves as a variable name, and says why
// it keeps its command from being read-only ("" for a plain name).
// "a[sub]" expands and evaluates sub (arithmetic for an indexed array).
func (w *walker) nameRef(text string, ctx evalCtx, where string) string {
	if validName(text) || w.stop {
		return ""
	}
	if i := strings.IndexByte(text, '['); i > 0 && validName(text[:i]) && strings.HasSuffix(text, "]") {
		sub := text[i+1 : len(text)-1]
		if sub == "@" || sub == "*" || isNumberLit(strings.TrimSpace(sub)) {
			return ""
		}
		cur := &fieldBuilder{}
		w.arithText(sub, cur, ctx, labelSubscript)
		return firstNonEmpty(cur.w.taint, where+" evaluates the subscript of "+shortText(text))
	}
	if strings.ContainsAny(text, "$`") {
		w.docText(text, evalFrame(ctx, where), where)
		return where + " names " + shortText(text)
	}
	return ""
}

// nameWord is nameRef for an evaluated word: a word known only at run time
// may be any name, subscript included.
func (w *walker) nameWord(wd word, ctx evalCtx, where string) string {
	if wd.dynamic || wd.glob || wd.splits {
		if i := strings.IndexByte(wd.s, '['); wd.subst && i >= 0 && strings.Contains(wd.s[i:], dyn) {
			w.unanalysableSeen("command substitution inside " + labelSubscript)
		}
		if wd.param != "" {
			w.valuesAsNames(wd.param, ctx)
		}
		if !wd.dynamic {
			// A glob that matches no file stays as written: a[$(cmd)].
			w.nameRef(wd.s, ctx, where)
		}
		return where + " takes a name known only at run time"
	}
	return w.nameRef(wd.s, ctx, where)
}

// Static values of variables, for what bash evaluates by name: a variable
// named in arithmetic is evaluated as an arithmetic expression
// (x='a[$(cmd)]'; echo $((x)) runs cmd), a variable behind ${!x} is
// resolved as a name. The values are collected from every script of the
// command once one is needed, whatever the order (loops and functions run
// statements again): a superset of what bash can see.
type varFacts struct {
	values   map[string][]string
	intAttr  map[string]bool // declare -i
	refAttr  map[string]bool // declare -n
	done     map[string]bool // names whose values were walked
	scanned  int             // roots collected so far
	inFlight map[string]bool
}

// addRoot records a parsed script whose assignments count.
func (w *walker) addRoot(f *syntax.File, src string) {
	if w.roots == nil {
		w.roots = w.rootBuf[:0]
	}
	w.roots = append(w.roots, rootScript{f: f, src: src})
}

type rootScript struct {
	f   *syntax.File
	src string
}

// facts collects values and attributes from the scripts parsed so far.
func (w *walker) facts() *varFacts {
	if w.vars == nil {
		w.vars = &varFacts{values: map[string][]string{}, intAttr: map[string]bool{}, refAttr: map[string]bool{},
			done: map[string]bool{}, inFlight: map[string]bool{}}
	}
	v := w.vars
	for ; v.scanned < len(w.roots); v.scanned++ {
		w.collectFacts(w.roots[v.scanned].f, v)
	}
	return v
}

// maxValues caps the values remembered per name.
const maxValues = 16

func (v *varFacts) add(name, value string) {
	if len(v.values[name]) < maxValues && !contains(v.values[name], value) {
		v.values[name] = append(v.values[name], value)
	}
}

// collectFacts records static assignments and -i/-n attributes in f.
func (w *walker) collectFacts(f *syntax.File, v *varFacts) {
	w.walkAST(f, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.Assign:
			if x.Name == nil {
				if x.Naked && x.Value != nil {
					if s, ok := staticText(x.Value); ok {
						if n, val, ok := strings.Cut(s, "="); ok {
							v.add(baseName(n), val)
						}
					}
				}
				break
			}
			if x.Value != nil {
				if s, ok := staticText(x.Value); ok {
					v.add(x.Name.Value, s)
				}
			}
			if x.Array != nil {
				for _, el := range x.Array.Elems {
					if el.Value != nil {
						if s, ok := staticText(el.Value); ok {
							v.add(x.Name.Value, s)
						}
					}
				}
			}
		case *syntax.DeclClause:
			declFacts(x.Variant.Value, declClauseWords(x), v)
		case *syntax.CallExpr:
			var args []string
			for _, a := range x.Args {
				s, ok := staticText(a)
				if !ok {
					s = dyn
				}
				args = append(args, s)
			}
			for i, a := range args {
				if n, val, ok := strings.Cut(a, "="); ok && validName(baseName(n)) && i > 0 {
					v.add(baseName(n), val) // env NAME=V, builtin declare NAME=V
				}
			}
			for i := 0; i < len(args) && i < 3; i++ {
				switch args[i] {
				case "declare", "typeset", "local", "export", "readonly":
					declFacts(args[i], args[i+1:], v)
				case "printf":
					// printf -v NAME FORMAT ARGS: any of them may become the value.
					for j := i + 1; j+1 < len(args); j++ {
						if args[j] == "-v" {
							for _, val := range args[j+2:] {
								v.add(args[j+1], val)
							}
						}
					}
				}
			}
		case *syntax.WordIter:
			if x.Name != nil {
				for _, it := range x.Items {
					if s, ok := staticText(it); ok {
						v.add(x.Name.Value, s)
					}
				}
			}
		}
		return true
	})
}

// declClauseWords are a DeclClause's arguments as static strings (dyn when not).
func declClauseWords(d *syntax.DeclClause) []string {
	var out []string
	for _, a := range d.Args {
		switch {
		case a.Naked && a.Value != nil:
			s, ok := staticText(a.Value)
			if !ok {
				s = dyn
			}
			out = append(out, s)
		case a.Name != nil:
			out = append(out, a.Name.Value)
		}
	}
	return out
}

// declFacts records the names a declare-like command gives -i or -n.
func declFacts(variant string, args []string, v *varFacts) {
	if variant != "declare" && variant != "typeset" && variant != "local" {
		return
	}
	var i, n bool
	for _, a := range args {
		if len(a) > 1 && (a[0] == '-' || a[0] == '+') {
			i = i || strings.ContainsRune(a, 'i')
			n = n || strings.ContainsRune(a, 'n')
			continue
		}
		name, _, _ := strings.Cut(a, "=")
		name = baseName(name)
		if i {
			v.intAttr[name] = true
		}
		if n {
			v.refAttr[name] = true
		}
	}
}

// baseName is the variable of "name" or "name[sub]".
func baseName(n string) string {
	if i := strings.IndexByte(n, '['); i > 0 {
		return n[:i]
	}
	return n
}

// staticText is a word's value when it is known without expansion.
func staticText(wd *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range wd.Parts {
		switch q := p.(type) {
		case *syntax.Lit:
			v := q.Value
			for i := 0; i < len(v); i++ {
				if v[i] == '\\' && i+1 < len(v) {
					i++
				}
				b.WriteByte(v[i])
			}
		case *syntax.SglQuoted:
			if q.Dollar {
				b.WriteString(ansiC(q.Value))
			} else {
				b.WriteString(q.Value)
			}
		case *syntax.DblQuoted:
			for _, dp := range q.Parts {
				l, ok := dp.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// valuesAsArith walks the static values of a variable named in arithmetic,
// each evaluated as an arithmetic expression, once per analysis.
func (w *walker) valuesAsArith(name string, ctx evalCtx) {
	w.walkValues(name, "arith", func(val string) {
		w.arithText(val, &fieldBuilder{}, ctx, "value of "+name)
	})
}

// valuesAsName walks the static values of a variable used as a name (${!x}).
func (w *walker) valuesAsName(name string, ctx evalCtx) {
	w.walkValues(name, "name", func(val string) {
		w.nameRef(val, ctx, "value of "+name)
	})
}

// valuesAsNames is valuesAsName for a word that may also split: each
// field of a value may be a name too (x='-v a[$(cmd)]'; [ $x ]).
func (w *walker) valuesAsNames(name string, ctx evalCtx) {
	w.walkValues(name, "names", func(val string) {
		w.nameRef(val, ctx, "value of "+name)
		if f := strings.Fields(val); len(f) > 1 {
			for _, s := range f {
				w.nameRef(s, ctx, "value of "+name)
			}
		}
	})
}

// walkValues calls each for the static values of name, once per name and
// way of evaluating them.
func (w *walker) walkValues(name, how string, each func(string)) {
	if len(w.roots) == 0 || w.stop {
		return
	}
	v := w.facts()
	key := how + ":" + name
	if v.done[key] || v.inFlight[key] {
		return
	}
	v.inFlight[key] = true
	for _, val := range v.values[name] {
		each(val)
	}
	delete(v.inFlight, key)
	v.done[key] = true
}

// assignedValue walks what bash does with a static value assigned to name
// beyond storing it: arithmetic for an integer variable, a name for a
// nameref, expansion for a prompt, a command for PROMPT_COMMAND. It returns
// a reason when the assignment runs or may run code.
func (w *walker) assignedValue(name, value string, dynamic bool, ctx evalCtx, attrs string) string {
	if w.stop {
		return ""
	}
	switch name {
	case "PS0", "PS1", "PS2", "PS4":
		// Prompt expansion runs substitutions (PS4 with set -x).
		if !dynamic {
			w.docText(value, evalFrame(ctx, "prompt "+name), "prompt "+name)
		}
		return ""
	case "PROMPT_COMMAND":
		if !dynamic {
			w.script(value, ctx.fr.wrap("PROMPT_COMMAND", nil, false, "PROMPT_COMMAND runs a command"), ctx.st, "PROMPT_COMMAND")
		}
		return ""
	}
	intAttr, refAttr := strings.ContainsRune(attrs, 'i'), strings.ContainsRune(attrs, 'n')
	if len(w.roots) > 0 && w.mayHaveAttrs() {
		v := w.facts()
		intAttr = intAttr || v.intAttr[name]
		refAttr = refAttr || v.refAttr[name]
	}
	reason := ""
	if intAttr {
		if dynamic {
			reason = "assigns a run-time value to an integer variable"
		} else {
			cur := &fieldBuilder{}
			w.arithText(value, cur, ctx, labelArith)
			reason = cur.w.taint
		}
	}
	if refAttr {
		if dynamic {
			reason = firstNonEmpty(reason, "assigns a run-time name to a nameref")
		} else {
			reason = firstNonEmpty(reason, w.nameRef(value, ctx, "nameref"))
		}
	}
	if (strings.ContainsRune(attrs, 'a') || strings.ContainsRune(attrs, 'A')) && !dynamic && strings.HasPrefix(value, "(") {
		// declare -a a='(...)' evaluates the string as a compound assignment.
		reason = firstNonEmpty(reason, w.compoundText(name, value, ctx))
	}
	return reason
}

// elementValue is assignedValue for one element of an array literal: an
// integer array evaluates each element (declare -ai a=('b[$(cmd)]')).
func (w *walker) elementValue(name string, el *syntax.Word, ctx evalCtx, attrs string) string {
	t, ok := staticText(el)
	if !ok {
		return ""
	}
	return w.assignedValue(name, t, false, ctx, strings.ReplaceAll(strings.ReplaceAll(attrs, "a", ""), "A", ""))
}

// declFlags are the option letters of a declaration ("-ai -x" gives "aix").
func declFlags(c *syntax.DeclClause) string {
	flags := ""
	for _, a := range c.Args {
		if a.Naked && a.Value != nil {
			if s, ok := staticText(a.Value); ok && len(s) > 1 && s[0] == '-' {
				flags += s[1:]
			}
		}
	}
	return flags
}

// mayHaveAttrs reports whether a script of the command can give a variable
// the integer or nameref attribute.
func (w *walker) mayHaveAttrs() bool {
	for ; w.attrScanned < len(w.roots) && !w.attrs; w.attrScanned++ {
		src := w.roots[w.attrScanned].src
		w.attrs = strings.Contains(src, "declare") || strings.Contains(src, "typeset") || strings.Contains(src, "local")
	}
	return w.attrs
}

// compoundText walks a quoted compound assignment that declare -a/-A
// evaluates: its elements are expanded like words of the command.
func (w *walker) compoundText(name, value string, ctx evalCtx) string {
	f, err := w.parseScript("a=" + value)
	if err != nil || f == nil || len(f.Stmts) != 1 {
		if err != nil {
			w.unanalysable("declare evaluates a compound value that does not parse: " + shortText(value))
			w.addCrude(value)
		}
		return "declare evaluates the value of " + name + " as a compound assignment"
	}
	c, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) != 0 || len(c.Assigns) != 1 || c.Assigns[0].Array == nil {
		w.unanalysable("declare evaluates a value that is not a compound assignment: " + shortText(value))
		return "declare evaluates the value of " + name + " as a compound assignment"
	}
	saved := w.src
	w.src = "a=" + value
	inner := evalFrame(ctx, "declare "+name)
	before := w.substs
	taint := ""
	for _, el := range c.Assigns[0].Array.Elems {
		if el.Index != nil {
			cur := &fieldBuilder{}
			w.arith(el.Index, cur, inner)
			taint = firstNonEmpty(taint, cur.w.taint)
		}
		if el.Value != nil {
			taint = firstNonEmpty(taint, w.walkWordSubsts(el.Value, inner))
			for _, p := range el.Value.Parts {
				if _, lit := p.(*syntax.Lit); !lit {
					taint = firstNonEmpty(taint, "declare expands the elements of "+name)
				}
			}
		}
	}
	w.src = saved
	if w.substs > before {
		w.unanalysableSeen("command substitution inside the compound value of " + name)
	}
	return taint
}

// declArgs handles the arguments of declare, typeset, local, export and
// readonly, whether parsed as a declaration or reached through a wrapper
// (builtin declare ...): each NAME[sub]=VALUE, with what the flags make
// bash do with VALUE. It returns a reason to keep the leaf from being read-only.
func (w *walker) declArgs(variant string, args []word, ctx evalCtx) string {
	attrs := ""
	taint := ""
	for _, a := range args {
		if w.stop {
			break
		}
		s := a.s
		if !a.dynamic && len(s) > 1 && (s[0] == '-' || s[0] == '+') && attrs != "--" {
			if s == "--" {
				attrs = "--"
				continue
			}
			if s[0] == '-' {
				attrs += s[1:]
			}
			continue
		}
		if a.dynamic {
			taint = firstNonEmpty(taint, variant+" takes a name or value known only at run time")
		}
		name, value, hasValue := strings.Cut(s, "=")
		if strings.Contains(name, dyn) {
			continue
		}
		taint = firstNonEmpty(taint, w.nameRef(strings.TrimSuffix(name, "+"), ctx, variant))
		if !hasValue {
			continue
		}
		if variant == "declare" || variant == "typeset" || variant == "local" {
			taint = firstNonEmpty(taint, w.assignedValue(baseName(strings.TrimSuffix(name, "+")), value, strings.Contains(value, dyn), ctx, attrs))
		} else {
			taint = firstNonEmpty(taint, w.assignedValue(baseName(strings.TrimSuffix(name, "+")), value, strings.Contains(value, dyn), ctx, ""))
		}
	}
	return taint
}

// optValues are the options of a builtin that take a value.
type optValues map[byte]bool

// builtinOpts splits argv[1:] of a builtin into options (letter → value
// words, "" for a flag) and operands; clusters like -rp PROMPT are read
// as bash does.
func builtinOpts(argv []word, withValue optValues) (opts []parsedOpt, operands []word) {
	i := 1
	for ; i < len(argv); i++ {
		a := argv[i]
		if a.s == "--" {
			i++
			break
		}
		if a.dynamic || len(a.s) < 2 || a.s[0] != '-' {
			break
		}
		for j := 1; j < len(a.s); j++ {
			c := a.s[j]
			if withValue[c] {
				v := a.s[j+1:]
				if v == "" && i+1 < len(argv) {
					i++
					v = argv[i].s
					if argv[i].dynamic {
						v = dyn
					}
				}
				opts = append(opts, parsedOpt{name: string(c), value: v})
				break
			}
			opts = append(opts, parsedOpt{name: string(c)})
		}
	}
	return opts, argv[i:]
}

// evalBuiltin models the builtins that evaluate a name, a subscript, an
// arithmetic string or a command string given as an argument. It returns a
// reason to keep the leaf from being read-only ("" when none), and why what
// the leaf runs is unknown (a command string or function name known only at
// run time: every deny and ask rule then hits the leaf).
func (w *walker) evalBuiltin(base string, argv []word, ctx evalCtx) (reason, unknown string) {
	switch base {
	case "mapfile", "readarray", "compgen", "complete":
		opts, _ := builtinOpts(argv, optValues{'A': true, 'C': true, 'F': true, 'G': true, 'o': true, 'P': true,
			'S': true, 'W': true, 'X': true, 'd': true, 'n': true, 'O': true, 's': true, 'u': true, 'c': true})
		for _, o := range opts {
			switch {
			case o.name == "C" && strings.Contains(o.value, dyn):
				unknown = base + " -C runs a command known only at run time"
			case o.name == "F" && base != "mapfile" && base != "readarray":
				unknown = base + " -F runs shell function " + strings.ReplaceAll(o.value, dyn, "…")
			}
		}
	}
	return w.evalArgsOf(base, argv, ctx), unknown
}

// evalArgsOf is evalBuiltin's reason.
func (w *walker) evalArgsOf(base string, argv []word, ctx evalCtx) string {
	switch base {
	case "test", "[":
		return w.testArgs(base, argv, ctx)
	case "printf":
		opts, _ := builtinOpts(argv, optValues{'v': true})
		for _, o := range opts {
			if o.name == "v" {
				return firstNonEmpty(w.nameWord(valueWord(o.value), ctx, "printf -v"), "printf -v assigns a shell variable")
			}
		}
	case "read":
		opts, names := builtinOpts(argv, optValues{'a': true, 'd': true, 'i': true, 'n': true, 'N': true, 'p': true, 't': true, 'u': true})
		taint := ""
		for _, o := range opts {
			if o.name == "a" {
				taint = firstNonEmpty(taint, w.nameWord(valueWord(o.value), ctx, "read -a"))
			}
		}
		for _, n := range names {
			taint = firstNonEmpty(taint, w.nameWord(n, ctx, "read"))
		}
		return taint
	case "wait":
		opts, _ := builtinOpts(argv, optValues{'p': true})
		for _, o := range opts {
			if o.name == "p" {
				return w.nameWord(valueWord(o.value), ctx, "wait -p")
			}
		}
	case "unset":
		opts, names := builtinOpts(argv, nil)
		for _, o := range opts {
			if o.name == "f" {
				return ""
			}
		}
		taint := ""
		for _, n := range names {
			taint = firstNonEmpty(taint, w.nameWord(n, ctx, "unset"))
		}
		return taint
	case "mapfile", "readarray":
		opts, names := builtinOpts(argv, optValues{'d': true, 'n': true, 'O': true, 's': true, 'u': true, 'C': true, 'c': true})
		taint := ""
		for _, o := range opts {
			if o.name == "C" {
				taint = base + " -C runs a command"
				w.commandString(o.value, ctx, base+" -C")
			}
		}
		for _, n := range names {
			taint = firstNonEmpty(taint, w.nameWord(n, ctx, base))
		}
		return taint
	case "compgen", "complete":
		opts, _ := builtinOpts(argv, optValues{'A': true, 'C': true, 'F': true, 'G': true, 'o': true, 'P': true, 'S': true, 'W': true, 'X': true})
		taint := ""
		for _, o := range opts {
			switch o.name {
			case "C":
				taint = base + " -C runs a command"
				w.commandString(o.value, ctx, base+" -C")
			case "F":
				taint = base + " -F runs a shell function"
				if kind, ok := w.defined[o.value]; ok {
					w.unanalysable(base + " -F calls " + kind + " " + o.value + " defined in the script")
				}
			case "W":
				// The word list is expanded: $(...) in it runs.
				if strings.ContainsAny(o.value, "$`") {
					taint = firstNonEmpty(taint, base+" -"+o.name+" expands its string")
					w.docText(o.value, evalFrame(ctx, base+" -"+o.name), base+" -"+o.name)
				}
			}
		}
		return taint
	case "declare", "typeset", "local", "export", "readonly":
		return w.declArgs(base, argv[1:], ctx)
	}
	return ""
}

// functionArgs walks the code hidden in the static arguments of a call of
// a function or alias defined in the script: its body may evaluate them
// (f(){ test -v "$1"; }; f 'a[$(cmd)]'). The call is unanalysable anyway.
func (w *walker) functionArgs(name string, argv []word, ctx evalCtx) {
	for _, a := range argv[1:] {
		if !a.dynamic && strings.ContainsAny(a.s, "$`") {
			w.docText(a.s, evalFrame(ctx, "argument of "+name), "argument of "+name)
		}
	}
}

// valueWord is an option value as a word.
func valueWord(v string) word {
	return word{s: v, dynamic: strings.Contains(v, dyn)}
}

// commandString walks a string a builtin runs as a command (mapfile -C,
// compgen -C): deny rules see its commands; the command is not analysable
// (no allow rule can name what runs).
func (w *walker) commandString(s string, ctx evalCtx, label string) {
	if strings.Contains(s, dyn) {
		w.unanalysable(label + " runs a string known only at run time")
		return
	}
	// Parsed and walked: its commands are leaves (a parse error is recorded
	// as hiding a command by script).
	w.unanalysableSeen(label + " runs a string as a command")
	w.script(s, ctx.fr.wrap(label, nil, false, label+" runs a string as a command"), ctx.st, label)
}

// testArgs finds the operands test and [ resolve as names (-v NAME). A
// word known only at run time may itself be -v (or split into "-v NAME"),
// so the word after it is a name too.
func (w *walker) testArgs(base string, argv []word, ctx evalCtx) string {
	args := argv[1:]
	if base == "[" && len(args) > 0 && args[len(args)-1].s == "]" && !args[len(args)-1].dynamic {
		args = args[:len(args)-1]
	}
	taint := ""
	for i, a := range args {
		if numberWords(a) {
			continue // digits only, never -v nor a name (numbervalues.go)
		}
		if a.splits || a.glob {
			taint = firstNonEmpty(taint, "an unquoted expansion in "+base+" may become -v NAME, which evaluates a subscript")
			w.nameWord(a, ctx, base+" -v")
			continue
		}
		if i+1 >= len(args) {
			break
		}
		if a.s == "-v" || a.dynamic {
			taint = firstNonEmpty(taint, w.nameWord(args[i+1], ctx, base+" -v"))
		}
	}
	return taint
}
