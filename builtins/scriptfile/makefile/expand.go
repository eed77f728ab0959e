package makefile

import (
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func itoa(n int) string { return strconv.Itoa(n) }

// harmlessUndefined reports whether a variable that nothing defines may be
// read as empty. make reads it from the environment, which permopa does
// not see: a reference to any other undefined variable makes the Read
// uncertain (docs/shell.md, "Makefiles"). These are the conventional flag
// and switch variables a build takes from the person's environment, whose
// values are theirs (a project cannot set them) and which select options
// rather than programs.
func harmlessUndefined(name string) bool {
	switch name {
	case "DESTDIR", "V", "VERBOSE", "OS", "TARGET_ARCH", "TARGET_MACH", "LDLIBS", "LOADLIBES",
		"MAKEOVERRIDES", "MAKECMDGOALS", ".DEFAULT_GOAL", "SUFFIXES":
		return true
	}
	return strings.HasSuffix(name, "FLAGS") && name != "MAKEFLAGS" && name != "MFLAGS" && name != ".SHELLFLAGS"
}

// step counts one unit of expansion work against the limits.
func (r *reader) step() {
	r.steps++
	if r.steps > r.lim.MaxSteps {
		r.fail("%s: expanding the makefile's variables takes more than %d steps", r.where, r.lim.MaxSteps)
	}
}

func (r *reader) grow(n int) {
	r.produced += n
	if r.produced > r.lim.MaxExpansion {
		r.fail("%s: expanding the makefile's variables produces more than %d bytes", r.where, r.lim.MaxExpansion)
	}
}

// expand expands every reference in s as make does.
func (r *reader) expand(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	r.depth++
	defer func() { r.depth-- }()
	if r.depth > r.lim.MaxDepth {
		r.fail("%s: variable references nested more than %d deep", r.where, r.lim.MaxDepth)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			break
		}
		r.step()
		n := s[i+1]
		switch n {
		case '$':
			b.WriteByte('$')
			i++
		case '(', '{':
			end := matchClose(s, i+1)
			if end < 0 {
				r.fail("%s: unterminated variable reference", r.where)
			}
			out := r.reference(s[i+2:end], n)
			r.grow(len(out))
			b.WriteString(out)
			i = end
		default:
			out := r.varValue(string(n))
			r.grow(len(out))
			b.WriteString(out)
			i++
		}
		if b.Len() > r.lim.MaxExpansion {
			r.fail("%s: an expansion is larger than %d bytes", r.where, r.lim.MaxExpansion)
		}
	}
	return b.String()
}

// matchClose returns the index of the bracket closing s[open], counting
// only brackets of its kind, as make does.
func matchClose(s string, open int) int {
	o := s[open]
	cl := byte(')')
	if o == '{' {
		cl = '}'
	}
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case o:
			depth++
		case cl:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// reference expands the inside of `$(…)`: a function call, a
// substitution reference or a variable.
func (r *reader) reference(body string, open byte) string {
	if i := strings.IndexAny(body, " \t"); i > 0 {
		if f, ok := functions[body[:i]]; ok {
			return r.call(body[:i], f, strings.TrimLeft(body[i:], " \t"), open)
		}
		if why, ok := unmodelledFunctions[body[:i]]; ok {
			r.fail("%s: $(%s …) %s", r.where, body[:i], why)
		}
	}
	if c := topLevel(body, ':'); c >= 0 {
		if e := strings.IndexByte(body[c:], '='); e >= 0 {
			name := r.expand(body[:c])
			from := r.expand(body[c+1 : c+e])
			to := r.expand(body[c+e+1:])
			val := r.varValue(name)
			if !strings.Contains(from, "%") {
				from, to = "%"+from, "%"+to
			}
			return patsubst(from, to, val)
		}
	}
	return r.varValue(r.expand(body))
}

// lookup finds a variable: the innermost scope (automatic variables,
// $(call) arguments, $(foreach) variables) first.
func (r *reader) lookup(name string) *variable {
	for i := len(r.scopes) - 1; i >= 0; i-- {
		if v, ok := r.scopes[i][name]; ok {
			return v
		}
	}
	return r.lookupGlobal(name)
}

// lookupGlobal finds a variable of the makefile, the command line, the
// known environment or make's defaults.
func (r *reader) lookupGlobal(name string) *variable {
	if v, ok := r.vars[name]; ok {
		return v
	}
	if v, ok := r.inv.Env[name]; ok && name != "SHELL" && name != "MAKEFLAGS" && name != "MFLAGS" {
		return &variable{value: v, origin: "environment"}
	}
	return nil
}

// varValue is the expanded value of a variable.
func (r *reader) varValue(name string) string {
	v := r.lookup(name)
	if v == nil {
		r.undefined(name)
		return ""
	}
	if v.simple {
		return v.value
	}
	if r.expanding[name] {
		r.fail("%s: the recursive variable %s references itself", r.where, name)
	}
	r.expanding[name] = true
	out := r.expand(v.value)
	delete(r.expanding, name)
	return out
}

// undefined is a reference to a variable nothing defines: empty to make,
// but the environment may define it.
func (r *reader) undefined(name string) {
	if harmlessUndefined(name) || automatic[name] {
		return
	}
	r.fail("%s: the variable %s is defined nowhere: its value would come from the environment, which permopa does not see", r.where, printable(name))
}

func printable(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strconv.Quote(s)
}

// automatic are the automatic variables: empty outside a recipe.
var automatic = map[string]bool{}

func init() {
	for _, a := range []string{"@", "<", "^", "+", "?", "*", "|", "%"} {
		automatic[a] = true
		automatic[a+"D"] = true
		automatic[a+"F"] = true
	}
}

type function struct {
	min, max int  // arguments (max 0: any number)
	lazy     bool // arguments are expanded by the function itself
	fn       func(r *reader, args []string) string
}

var functions map[string]function

// unmodelledFunctions run commands, read or write files, or evaluate
// makefile text.
var unmodelledFunctions = map[string]string{
	"shell":  "runs a shell command while make expands it",
	"eval":   "evaluates text as makefile code",
	"file":   "reads or writes a file",
	"guile":  "runs Guile code",
	"load":   "loads an object",
	"let":    "is not modelled",
	"intcmp": "is not modelled",
	"error":  "stops make",
}

func init() {
	functions = map[string]function{
		"subst": {3, 3, false, func(_ *reader, a []string) string {
			if a[0] == "" {
				return a[2] + ""
			}
			return strings.ReplaceAll(a[2], a[0], a[1])
		}},
		"patsubst":   {3, 3, false, func(_ *reader, a []string) string { return patsubst(a[0], a[1], a[2]) }},
		"strip":      {1, 1, false, func(_ *reader, a []string) string { return strings.Join(strings.Fields(a[0]), " ") }},
		"findstring": {2, 2, false, func(_ *reader, a []string) string { return ifs(strings.Contains(a[1], a[0]), a[0]) }},
		"filter":     {2, 2, false, func(_ *reader, a []string) string { return filter(a[0], a[1], true) }},
		"filter-out": {2, 2, false, func(_ *reader, a []string) string { return filter(a[0], a[1], false) }},
		"sort": {1, 1, false, func(_ *reader, a []string) string {
			w := strings.Fields(a[0])
			sort.Strings(w)
			out := w[:0]
			for i, x := range w {
				if i == 0 || x != w[i-1] {
					out = append(out, x)
				}
			}
			return strings.Join(out, " ")
		}},
		"word": {2, 2, false, func(r *reader, a []string) string {
			n := r.number(a[0], "word")
			w := strings.Fields(a[1])
			if n == 0 {
				r.fail("%s: $(word 0 …) stops make", r.where)
			}
			if n > len(w) {
				return ""
			}
			return w[n-1]
		}},
		"wordlist": {3, 3, false, func(r *reader, a []string) string {
			s, e := r.number(a[0], "wordlist"), r.number(a[1], "wordlist")
			if s == 0 {
				r.fail("%s: $(wordlist 0 …) stops make", r.where)
			}
			w := strings.Fields(a[2])
			if e > len(w) {
				e = len(w)
			}
			if s > e {
				return ""
			}
			return strings.Join(w[s-1:e], " ")
		}},
		"words":     {1, 1, false, func(_ *reader, a []string) string { return itoa(len(strings.Fields(a[0]))) }},
		"firstword": {1, 1, false, func(_ *reader, a []string) string { return nth(strings.Fields(a[0]), 0) }},
		"lastword": {1, 1, false, func(_ *reader, a []string) string {
			w := strings.Fields(a[0])
			return nth(w, len(w)-1)
		}},
		"dir": {1, 1, false, func(_ *reader, a []string) string {
			return mapWords(a[0], func(w string) string {
				if i := strings.LastIndexByte(w, '/'); i >= 0 {
					return w[:i+1]
				}
				return "./"
			})
		}},
		"notdir": {1, 1, false, func(_ *reader, a []string) string {
			return mapWords(a[0], func(w string) string { return w[strings.LastIndexByte(w, '/')+1:] })
		}},
		"suffix": {1, 1, false, func(_ *reader, a []string) string {
			var out []string
			for _, w := range strings.Fields(a[0]) {
				if s := suffixOf(w); s != "" {
					out = append(out, s)
				}
			}
			return strings.Join(out, " ")
		}},
		"basename": {1, 1, false, func(_ *reader, a []string) string {
			return mapWords(a[0], func(w string) string { return w[:len(w)-len(suffixOf(w))] })
		}},
		"addsuffix": {2, 2, false, func(_ *reader, a []string) string {
			return mapWords(a[1], func(w string) string { return w + a[0] })
		}},
		"addprefix": {2, 2, false, func(_ *reader, a []string) string {
			return mapWords(a[1], func(w string) string { return a[0] + w })
		}},
		"join": {2, 2, false, func(_ *reader, a []string) string {
			x, y := strings.Fields(a[0]), strings.Fields(a[1])
			n := max(len(x), len(y))
			out := make([]string, n)
			for i := range n {
				out[i] = nth(x, i) + nth(y, i)
			}
			return strings.Join(out, " ")
		}},
		"wildcard": {1, 1, false, func(r *reader, a []string) string {
			var out []string
			for _, w := range strings.Fields(a[0]) {
				out = append(out, r.glob(w)...)
			}
			return strings.Join(out, " ")
		}},
		"abspath": {1, 1, false, func(r *reader, a []string) string {
			return mapWords(a[0], func(w string) string {
				if !filepath.IsAbs(w) {
					w = filepath.Join(r.inv.Dir, w)
				}
				return filepath.Clean(w)
			})
		}},
		"realpath": {1, 1, false, func(r *reader, a []string) string {
			var out []string
			for _, w := range strings.Fields(a[0]) {
				if !filepath.IsAbs(w) {
					w = filepath.Join(r.inv.Dir, w)
				}
				if p, err := filepath.EvalSymlinks(w); err == nil {
					out = append(out, p)
				}
			}
			return strings.Join(out, " ")
		}},
		"info":    {0, 1, false, func(_ *reader, _ []string) string { return "" }},
		"warning": {0, 1, false, func(_ *reader, _ []string) string { return "" }},
		"value": {1, 1, false, func(r *reader, a []string) string {
			v := r.lookup(a[0])
			if v == nil {
				r.undefined(a[0])
				return ""
			}
			return v.value
		}},
		"origin": {1, 1, false, func(r *reader, a []string) string {
			v := r.lookup(a[0])
			if v == nil {
				r.undefined(a[0])
				return "undefined"
			}
			return v.origin
		}},
		"flavor": {1, 1, false, func(r *reader, a []string) string {
			v := r.lookup(a[0])
			switch {
			case v == nil:
				r.undefined(a[0])
				return "undefined"
			case v.simple:
				return "simple"
			}
			return "recursive"
		}},
		"if": {2, 3, true, func(r *reader, a []string) string {
			if strings.Trim(r.expand(a[0]), " \t\n") != "" {
				return r.expand(a[1])
			}
			if len(a) > 2 {
				return r.expand(a[2])
			}
			return ""
		}},
		"or": {1, 0, true, func(r *reader, a []string) string {
			for _, x := range a {
				if v := r.expand(x); strings.Trim(v, " \t\n") != "" {
					return v
				}
			}
			return ""
		}},
		"and": {1, 0, true, func(r *reader, a []string) string {
			v := ""
			for _, x := range a {
				if v = r.expand(x); strings.Trim(v, " \t\n") == "" {
					return ""
				}
			}
			return v
		}},
		"foreach": {3, 3, true, func(r *reader, a []string) string {
			name := trimSpace(r.expand(a[0]))
			var out []string
			v := &variable{simple: true, origin: "automatic"}
			r.scopes = append(r.scopes, map[string]*variable{name: v})
			defer func() { r.scopes = r.scopes[:len(r.scopes)-1] }()
			for _, w := range strings.Fields(r.expand(a[1])) {
				r.step()
				v.value = w
				x := r.expand(a[2])
				r.grow(len(x))
				out = append(out, x)
			}
			return strings.Join(out, " ")
		}},
		"call": {1, 0, false, func(r *reader, a []string) string {
			name := trimSpace(a[0])
			v := r.lookup(name)
			if v == nil {
				r.undefined(name)
				return ""
			}
			if _, ok := functions[name]; ok {
				r.fail("%s: $(call %s) of a built-in function is not modelled", r.where, name)
			}
			scope := map[string]*variable{}
			for i, x := range a {
				scope[itoa(i)] = &variable{value: x, simple: true, origin: "automatic"}
			}
			// $(call) leaves the caller's numbered arguments beyond its own
			// empty, not inherited.
			for i := len(a); i < 10; i++ {
				scope[itoa(i)] = &variable{simple: true, origin: "automatic"}
			}
			r.scopes = append(r.scopes, scope)
			defer func() { r.scopes = r.scopes[:len(r.scopes)-1] }()
			if v.simple {
				return v.value
			}
			if r.expanding[name] {
				r.fail("%s: the recursive variable %s calls itself", r.where, name)
			}
			r.expanding[name] = true
			defer delete(r.expanding, name)
			return r.expand(v.value)
		}},
	}
}

// call runs a function on the text after its name.
func (r *reader) call(name string, f function, argText string, open byte) string {
	args := splitArgs(argText, f.max, open)
	if len(args) < f.min {
		r.fail("%s: $(%s) needs %d arguments", r.where, name, f.min)
	}
	if !f.lazy {
		for i, a := range args {
			args[i] = r.expand(a)
		}
	}
	return f.fn(r, args)
}

// splitArgs splits a function's arguments at top-level commas; the last
// of max arguments takes the rest, commas included.
func splitArgs(s string, maxArgs int, open byte) []string {
	cl := byte(')')
	if open == '{' {
		cl = '}'
	}
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case cl:
			depth--
		case ',':
			if depth == 0 && (maxArgs == 0 || len(out) < maxArgs-1) {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func (r *reader) number(s, fn string) int {
	n, err := strconv.Atoi(trimSpace(s))
	if err != nil || n < 0 {
		r.fail("%s: $(%s) of a non-number stops make", r.where, fn)
	}
	return n
}

func nth(w []string, i int) string {
	if i < 0 || i >= len(w) {
		return ""
	}
	return w[i]
}

func ifs(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

func mapWords(s string, f func(string) string) string {
	w := strings.Fields(s)
	for i := range w {
		w[i] = f(w[i])
	}
	return strings.Join(w, " ")
}

// suffixOf is the suffix $(suffix) finds: from the last `.` of the last
// path element.
func suffixOf(w string) string {
	base := w[strings.LastIndexByte(w, '/')+1:]
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		return base[i:]
	}
	return ""
}

// patsubst replaces the words of text matching pat (one `%`) by repl.
func patsubst(pat, repl, text string) string {
	return mapWords(text, func(w string) string {
		if !strings.Contains(pat, "%") {
			if w == pat {
				return repl
			}
			return w
		}
		stem, ok := matchPattern(pat, w)
		if !ok {
			return w
		}
		return strings.Replace(repl, "%", stem, 1)
	})
}

func filter(pats, text string, keep bool) string {
	ps := strings.Fields(pats)
	var out []string
	for _, w := range strings.Fields(text) {
		hit := false
		for _, p := range ps {
			if _, ok := matchPattern(p, w); ok {
				hit = true
				break
			}
		}
		if hit == keep {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// glob expands a wildcard relative to make's directory as make's glob
// does: `*` and `?` do not match a leading dot; sorted; each directory
// listed through the FS; bounded.
func (r *reader) glob(pat string) []string {
	if strings.HasPrefix(pat, "~") {
		r.fail("%s: a wildcard under a home directory is not modelled", r.where)
	}
	if !strings.ContainsAny(pat, "*?[") {
		if r.exists(pat) {
			return []string{pat}
		}
		return nil
	}
	parts := strings.Split(pat, "/")
	cands := []string{""}
	if parts[0] == "" { // absolute
		cands, parts = []string{"/"}, parts[1:]
	}
	join := func(a, b string) string {
		if a == "" || a == "/" {
			return a + b
		}
		return a + "/" + b
	}
	lastLiteral := false
	for _, comp := range parts {
		if comp == "" {
			continue
		}
		if !strings.ContainsAny(comp, "*?[") {
			for i := range cands {
				cands[i] = join(cands[i], comp)
			}
			lastLiteral = true
			continue
		}
		lastLiteral = false
		var next []string
		for _, c := range cands {
			dir := c
			if dir == "" {
				dir = "."
			}
			names, ok := r.list(r.abs(dir))
			if !ok {
				r.fail("%s: the wildcard %s lists more files than permopa checks", r.where, printable(pat))
			}
			sort.Strings(names)
			for _, n := range names {
				if strings.HasPrefix(n, ".") && !strings.HasPrefix(comp, ".") {
					continue
				}
				if ok, err := path.Match(comp, n); err != nil {
					r.fail("%s: the wildcard %s is malformed", r.where, printable(pat))
				} else if ok {
					next = append(next, join(c, n))
				}
			}
			if len(next) > 4096 {
				r.fail("%s: the wildcard %s matches more than 4096 files", r.where, printable(pat))
			}
		}
		cands = next
	}
	out := cands[:0]
	for _, c := range cands {
		if !lastLiteral || r.exists(c) {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	r.grow(len(strings.Join(out, " ")))
	return out
}

// appendVar appends a word to a variable make maintains (MAKEFILE_LIST).
func (r *reader) appendVar(name, word string) {
	v := r.vars[name]
	if v == nil {
		v = &variable{simple: true, origin: "file"}
		r.vars[name] = v
	}
	v.value = joinWords(v.value, word)
}
