package makefile

import (
	"path/filepath"
	"strings"
)

// variable is one make variable: its value (expanded already when simple)
// and its origin, as $(origin) names it.
type variable struct {
	value  string
	simple bool
	origin string // "default", "environment", "file", "command line", "override", "automatic"
}

// rule is what the explicit rules say of one target.
type rule struct {
	prereqs   []string
	orderOnly []string
	recipe    *recipe // nil: no recipe
	stem      string  // a static pattern rule's stem
	stemSet   bool
	file      string
	line      int
}

type recipe struct {
	lines []recipeLine
}

type recipeLine struct {
	text string
	file string
	line int
}

// pattern is a rule whose target holds `%` (or a suffix rule read as one).
type pattern struct {
	target string
	file   string
	line   int
}

// patternRule is a rule whose targets hold `%` (or a suffix rule read as
// one): an implicit rule of the makefile.
type patternRule struct {
	targets   []string
	prereqs   []string
	orderOnly []string
	recipe    *recipe // nil: the rule cancels built-in ones
	file      string
	line      int
}

type cond struct {
	outer   bool // ignoring before this conditional
	taken   bool // a branch was taken
	ignored bool // the current branch is ignored
	sawElse bool
}

type reader struct {
	inv Invocation
	lim Limits
	fs  FS

	vars      map[string]*variable
	rules     map[string]*rule
	mentioned map[string]bool // every target and prerequisite named
	firstGoal string
	patterns  []*patternRule
	dotRules  []pattern // rules whose target starts with '.': suffix rules once .SUFFIXES is known
	phony     map[string]bool
	suffixes  []string
	tvars     map[string]string // target → where a target-specific variable is set for it
	pvars     []pattern         // pattern-specific variables
	defaultAt string            // where .DEFAULT has a recipe
	makefiles []string          // every makefile and include, as make names them
	missing   []string          // -include files that do not exist
	commands  []Line
	readFiles []string

	// parse state
	group      []string // targets of the rule whose recipe lines follow
	groupRec   *recipe
	groupHas   bool     // the rule line has a `;` recipe (maybe empty)
	groupN     [][2]int // per target of group: prerequisites and order-only ones the rule line added
	groupPat   *patternRule
	conds      []cond
	lines      int
	fileDepth  int
	sawDefault bool

	// expansion state
	steps, produced, depth int
	expanding              map[string]bool
	scopes                 []map[string]*variable
	where                  string // file:line of what is being expanded, for reasons

	// build state
	done, visiting map[string]bool
	built          int
	listings       int
	sources        map[string][]string // sourcesOf, per suffix
	suffixSet      map[string]bool     // r.suffixes once reading is done
	vcsDirs        map[string]bool     // mayCheckOut, per directory
	mentionsVCS    bool
	dirs           map[string]map[string]bool // directory listings for built-in rule sources
}

func newReader(inv Invocation, lim Limits) *reader {
	r := &reader{
		inv:       inv,
		lim:       lim,
		vars:      map[string]*variable{},
		rules:     map[string]*rule{},
		mentioned: map[string]bool{},
		phony:     map[string]bool{},
		tvars:     map[string]string{},
		expanding: map[string]bool{},
		done:      map[string]bool{},
		visiting:  map[string]bool{},
	}
	if inv.Program == "" {
		r.inv.Program = "make"
	}
	if inv.NoBuiltinVars {
		r.inv.NoBuiltinRules = true
	}
	r.defineDefaults()
	return r
}

// ignoring reports whether the current conditional branch is skipped.
func (r *reader) ignoring() bool {
	return len(r.conds) > 0 && (r.conds[len(r.conds)-1].outer || r.conds[len(r.conds)-1].ignored)
}

// parseFile reads the makefile name (already read into data) line by line.
func (r *reader) parseFile(name string, data []byte) {
	if strings.IndexByte(string(data), 0) >= 0 {
		r.fail("%s holds a NUL byte: not a makefile", name)
	}
	if strings.IndexByte(string(data), '\r') >= 0 {
		r.fail("%s holds carriage returns, which make reads otherwise than this reader", name)
	}
	r.fileDepth++
	if r.fileDepth > r.lim.MaxFiles {
		r.fail("%s: includes nested more than %d deep", name, r.lim.MaxFiles)
	}
	defer func() { r.fileDepth-- }()
	condDepth := len(r.conds)
	r.makefiles = append(r.makefiles, name)
	r.appendVar("MAKEFILE_LIST", name)

	phys := strings.Split(string(data), "\n")
	if len(phys) > 0 && phys[len(phys)-1] == "" {
		phys = phys[:len(phys)-1]
	}
	r.lines += len(phys)
	if r.lines > r.lim.MaxLines {
		r.fail("%s: more than %d lines of makefiles", name, r.lim.MaxLines)
	}
	for i := 0; i < len(phys); {
		start := i
		parts := []string{phys[i]}
		i++
		for continued(parts[len(parts)-1]) && i < len(phys) {
			parts = append(parts, phys[i])
			i++
		}
		lineNo := start + 1
		r.where = posOf(name, lineNo)

		// A recipe line: it starts with a tab and follows a rule.
		if strings.HasPrefix(parts[0], "\t") && r.group != nil {
			if r.ignoring() {
				continue
			}
			r.groupRec.lines = append(r.groupRec.lines, recipeLine{text: joinRecipe(parts), file: name, line: lineNo})
			continue
		}

		line := joinLogical(parts)
		nc := stripComment(line)
		t := trimSpace(nc)

		// define ... endef: the body is raw text.
		if kw, rest := keyword(t); kw == "define" || (kw == "override" || kw == "export" || kw == "private") && firstWord(rest) == "define" {
			end := r.skipDefine(name, phys, i)
			if !r.ignoring() {
				r.endGroup()
				if kw != "define" {
					if kw == "export" || kw == "private" {
						r.failAt(name, lineNo, "%s define is not modelled", kw)
					}
					_, rest = keyword(rest)
				}
				r.define(name, lineNo, rest, strings.Join(phys[i:end], "\n"), kw == "override")
			}
			i = end + 1
			continue
		}
		if t == "" {
			continue
		}
		if r.conditional(name, lineNo, t) {
			continue
		}
		if r.ignoring() {
			continue
		}
		if r.assignment(name, lineNo, nc) {
			continue
		}
		if r.directive(name, lineNo, t) {
			continue
		}
		if strings.HasPrefix(line, "\t") {
			r.failAt(name, lineNo, "a recipe line before any rule")
		}
		r.ruleLine(name, lineNo, line)
	}
	if len(r.conds) != condDepth {
		r.fail("%s: a conditional is not closed (missing endif)", name)
	}
	r.endGroup()
}

func posOf(file string, line int) string {
	var b strings.Builder
	b.WriteString(file)
	b.WriteByte(':')
	b.WriteString(itoa(line))
	return b.String()
}

// continued reports whether a physical line ends in an odd number of
// backslashes: it continues on the next.
func continued(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// joinRecipe joins a recipe line's physical lines as make hands them to
// the shell: the backslash-newlines stay, the first tab of each line goes.
func joinRecipe(parts []string) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = strings.TrimPrefix(p, "\t")
	}
	return strings.Join(out, "\n")
}

// joinLogical joins a non-recipe line's physical lines: each
// backslash-newline with the blanks around it is one space.
func joinLogical(parts []string) string {
	if len(parts) == 1 {
		return parts[0]
	}
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			p = strings.TrimLeft(p, " \t")
		}
		if i < len(parts)-1 {
			p = strings.TrimRight(strings.TrimSuffix(p, "\\"), " \t")
			b.WriteString(p)
			b.WriteByte(' ')
			continue
		}
		b.WriteString(p)
	}
	return b.String()
}

// stripComment cuts s at its first `#` not escaped by a backslash (`\#` is
// a `#`).
func stripComment(s string) string {
	if !strings.Contains(s, "#") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == '#' {
			b.WriteByte('#')
			i++
			continue
		}
		if s[i] == '#' {
			break
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// keyword splits a line's first word (ended by a blank) from the rest.
func keyword(t string) (string, string) {
	i := strings.IndexAny(t, " \t")
	if i < 0 {
		return t, ""
	}
	return t[:i], trimSpace(t[i:])
}

func firstWord(t string) string { w, _ := keyword(t); return w }

// skipDefine returns the index of the `endef` line closing a define whose
// body starts at phys[from].
func (r *reader) skipDefine(name string, phys []string, from int) int {
	depth := 1
	for j := from; j < len(phys); j++ {
		t := trimSpace(stripComment(phys[j]))
		if strings.HasPrefix(phys[j], "\t") {
			continue
		}
		switch kw, rest := keyword(t); {
		case kw == "endef":
			depth--
			if depth == 0 {
				return j
			}
		case kw == "define", (kw == "override" || kw == "export" || kw == "private") && firstWord(rest) == "define":
			depth++
		}
	}
	r.failAt(name, from, "define without endef")
	return 0
}

// define stores `define NAME [op]`'s body.
func (r *reader) define(file string, line int, head, body string, override bool) {
	name, op := trimSpace(head), "="
	for _, o := range []string{":::=", "::=", ":=", "+=", "?=", "!=", "="} {
		if strings.HasSuffix(name, o) {
			name, op = trimSpace(strings.TrimSuffix(name, o)), o
			break
		}
	}
	name = trimSpace(r.expand(name))
	r.assign(file, line, name, op, body, override)
}

// conditional handles ifdef, ifndef, ifeq, ifneq, else and endif.
func (r *reader) conditional(file string, line int, t string) bool {
	kw, rest := keyword(t)
	switch kw {
	case "ifdef", "ifndef", "ifeq", "ifneq":
		outer := r.ignoring()
		c := cond{outer: outer}
		if !outer {
			c.ignored = !r.test(file, line, kw, rest)
			c.taken = !c.ignored
		}
		r.conds = append(r.conds, c)
		if len(r.conds) > 256 {
			r.failAt(file, line, "conditionals nested more than 256 deep")
		}
		return true
	case "else":
		if len(r.conds) == 0 {
			r.failAt(file, line, "else without a conditional")
		}
		c := &r.conds[len(r.conds)-1]
		if c.sawElse {
			r.failAt(file, line, "a second else")
		}
		if rest == "" {
			c.sawElse = true
			c.ignored = c.taken
			c.taken = true
			return true
		}
		kw2, rest2 := keyword(rest)
		switch kw2 {
		case "ifdef", "ifndef", "ifeq", "ifneq":
		default:
			r.failAt(file, line, "else followed by %q", kw2)
		}
		if c.outer || c.taken {
			c.ignored = true
			return true
		}
		c.ignored = !r.test(file, line, kw2, rest2)
		c.taken = !c.ignored
		return true
	case "endif":
		if len(r.conds) == 0 {
			r.failAt(file, line, "endif without a conditional")
		}
		r.conds = r.conds[:len(r.conds)-1]
		return true
	}
	return false
}

// test evaluates a conditional's condition.
func (r *reader) test(file string, line int, kw, arg string) bool {
	switch kw {
	case "ifdef", "ifndef":
		name := trimSpace(r.expand(arg))
		if name == "" || strings.ContainsAny(name, " \t") {
			r.failAt(file, line, "%s needs one variable name", kw)
		}
		v := r.lookup(name)
		if v == nil {
			r.undefined(name)
		}
		def := v != nil && v.value != ""
		return def == (kw == "ifdef")
	}
	a, b, ok := condArgs(arg)
	if !ok {
		r.failAt(file, line, "invalid syntax in conditional")
	}
	eq := r.expand(a) == r.expand(b)
	return eq == (kw == "ifeq")
}

// condArgs splits `(a,b)`, `"a" "b"` and the other quote forms as make
// does: in the parenthesised form the first argument loses its trailing
// blanks and the second its leading ones.
func condArgs(s string) (string, string, bool) {
	if s == "" {
		return "", "", false
	}
	if s[0] == '(' {
		depth, comma := 0, -1
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '(':
				depth++
			case ')':
				if depth == 0 {
					if comma < 0 || trimSpace(s[i+1:]) != "" {
						return "", "", false
					}
					return strings.TrimRight(s[1:comma], " \t"), strings.TrimLeft(s[comma+1:i], " \t"), true
				}
				depth--
			case ',':
				if depth == 0 && comma < 0 {
					comma = i
				}
			}
		}
		return "", "", false
	}
	q := s[0]
	if q != '"' && q != '\'' {
		return "", "", false
	}
	end := strings.IndexByte(s[1:], q)
	if end < 0 {
		return "", "", false
	}
	a := s[1 : 1+end]
	rest := trimSpace(s[2+end:])
	if rest == "" || (rest[0] != '"' && rest[0] != '\'') {
		return "", "", false
	}
	end2 := strings.IndexByte(rest[1:], rest[0])
	if end2 < 0 || trimSpace(rest[2+end2:]) != "" {
		return "", "", false
	}
	return a, rest[1 : 1+end2], true
}

// assignment handles a variable assignment line (with its override,
// export, private and unexport prefixes). It reports false for a line
// that is no assignment.
func (r *reader) assignment(file string, line int, s string) bool {
	t := strings.TrimLeft(s, " \t")
	override := false
	for {
		kw, rest := keyword(t)
		if (kw == "override" || kw == "export" || kw == "private" || kw == "unexport") && rest != "" {
			if _, _, ok := splitAssignment(rest); !ok {
				break
			}
			switch kw {
			case "override":
				override = true
			case "export", "unexport", "private":
				r.failAt(file, line, "`%s` of a variable is not modelled (it changes the recipes' environment)", kw)
			}
			t = rest
			continue
		}
		break
	}
	name, op, ok := splitAssignment(t)
	if !ok {
		return false
	}
	value := strings.TrimLeft(t[len(name)+len(op):], " \t")
	// name holds the text up to the operator; its blanks go.
	name = trimSpace(r.expand(trimSpace(name)))
	r.endGroup()
	if name == "" {
		r.failAt(file, line, "empty variable name")
	}
	r.assign(file, line, name, op, value, override)
	return true
}

// splitAssignment finds an assignment operator in s before any `:` that
// is not part of one; it returns the text before the operator (name),
// the operator and whether there is one. References `$(…)` are skipped.
func splitAssignment(s string) (string, string, bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{'):
			depth++
			i++
		case depth > 0 && (c == '(' || c == '{'):
			depth++
		case depth > 0 && (c == ')' || c == '}'):
			depth--
		case depth > 0:
		case c == '=':
			if i > 0 && strings.IndexByte("+?!", s[i-1]) >= 0 {
				return s[:i-1], s[i-1 : i+1], true
			}
			return s[:i], "=", true
		case c == ':':
			for _, op := range []string{":::=", "::=", ":="} {
				if strings.HasPrefix(s[i:], op) {
					return s[:i], op, true
				}
			}
			return "", "", false
		case c == ';':
			return "", "", false
		}
	}
	return "", "", false
}

// assign sets a variable as `name op value` in a makefile does.
func (r *reader) assign(file string, line int, name, op, value string, override bool) {
	origin := "file"
	if override {
		origin = "override"
	}
	if old := r.vars[name]; old != nil && old.origin == "command line" && !override {
		return // the command line wins
	}
	switch name {
	case "MAKEFLAGS", "MFLAGS":
		r.makeflags(file, line, op, value)
	default:
		if why := unmodelledVariable(name); why != "" {
			r.failAt(file, line, "the makefile sets %s: %s", name, why)
		}
	}
	switch op {
	case "=":
		r.vars[name] = &variable{value: value, origin: origin}
	case ":=", "::=":
		r.vars[name] = &variable{value: r.expand(value), simple: true, origin: origin}
	case "?=":
		if r.lookupGlobal(name) == nil {
			r.vars[name] = &variable{value: value, origin: origin}
		}
	case "+=":
		old := r.lookupGlobal(name)
		switch {
		case old == nil:
			r.vars[name] = &variable{value: value, origin: origin}
		case old.simple:
			r.vars[name] = &variable{value: joinWords(old.value, r.expand(value)), simple: true, origin: origin}
		default:
			o := old.origin
			if o == "default" || o == "environment" {
				o = origin
			}
			r.vars[name] = &variable{value: joinWords(old.value, value), origin: o}
		}
	case "!=":
		r.failAt(file, line, "%s != runs a shell command while make reads the makefile", name)
	default:
		r.failAt(file, line, "the assignment %s is not modelled", op)
	}
	r.limitValue(r.vars[name])
}

func (r *reader) limitValue(v *variable) {
	if v != nil && len(v.value) > r.lim.MaxExpansion {
		r.fail("%s: a variable's value is larger than %d bytes", r.where, r.lim.MaxExpansion)
	}
}

func joinWords(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + " " + b
}

// makeflags allows MAKEFLAGS/MFLAGS assignments of options that change
// nothing this reader models, and -r.
func (r *reader) makeflags(file string, line int, op, value string) {
	if op != "+=" {
		r.failAt(file, line, "the makefile sets MAKEFLAGS")
	}
	for _, w := range strings.Fields(r.expand(value)) {
		switch w {
		case "-r", "--no-builtin-rules":
			r.inv.NoBuiltinRules = true
		case "-s", "--silent", "--quiet", "--no-print-directory", "-w", "--print-directory",
			"--warn-undefined-variables", "-k", "--keep-going", "-S", "--no-keep-going", "--stop":
		default:
			r.failAt(file, line, "MAKEFLAGS += %s is not modelled", w)
		}
	}
}

// directive handles include, -include, sinclude, export, unexport,
// undefine, vpath and load. It reports false for any other line.
func (r *reader) directive(file string, line int, t string) bool {
	kw, rest := keyword(t)
	switch kw {
	case "include", "-include", "sinclude":
		r.endGroup()
		r.include(file, line, kw != "include", rest)
		return true
	case "export":
		r.failAt(file, line, "export is not modelled (it changes the recipes' environment)")
	case "unexport":
		r.endGroup()
		return true // only takes variables out of the recipes' environment
	case "undefine", "override":
		if kw == "override" {
			k2, r2 := keyword(rest)
			if k2 != "undefine" {
				return false
			}
			rest = r2
		}
		r.endGroup()
		for _, n := range strings.Fields(r.expand(rest)) {
			if v := r.vars[n]; v != nil && v.origin == "command line" && kw != "override" {
				continue
			}
			delete(r.vars, n)
		}
		return true
	case "vpath", "load", "-load":
		r.failAt(file, line, "%s is not modelled", kw)
	}
	return false
}

// include reads the files an include line names, relative to make's
// directory.
func (r *reader) include(file string, line int, optional bool, arg string) {
	for _, n := range strings.Fields(r.expand(arg)) {
		names := []string{n}
		if strings.ContainsAny(n, "*?[") {
			names = r.glob(n)
		}
		for _, n := range names {
			if strings.HasPrefix(n, "~") {
				r.failAt(file, line, "include of %s: a home directory is not modelled", n)
			}
			data, ok := r.readFile(n)
			if !ok {
				if !filepath.IsAbs(n) {
					for _, d := range []string{"/usr/local/include", "/usr/include"} {
						if r.exists(filepath.Join(d, n)) {
							r.failAt(file, line, "include of %s reads %s", n, filepath.Join(d, n))
						}
					}
				}
				if !optional {
					r.failAt(file, line, "the included %s does not exist: make would try to build it first", n)
				}
				r.missing = append(r.missing, n)
				continue
			}
			saved := r.where
			r.parseFile(n, data)
			r.where = saved
		}
	}
}

// endGroup closes the rule whose recipe lines were being collected.
func (r *reader) endGroup() {
	if r.group == nil {
		return
	}
	if r.groupPat != nil && (r.groupHas || len(r.groupRec.lines) > 0) {
		r.groupPat.recipe = r.groupRec
	}
	if r.groupHas || len(r.groupRec.lines) > 0 {
		// make puts the prerequisites of the rule whose recipe it uses
		// first (they were appended last, by ruleLine).
		for i, t := range r.group {
			ru := r.rules[t]
			ru.recipe = r.groupRec
			ru.prereqs = toFront(ru.prereqs, r.groupN[i][0])
			ru.orderOnly = toFront(ru.orderOnly, r.groupN[i][1])
		}
	}
	r.group, r.groupRec, r.groupHas, r.groupN, r.groupPat = nil, nil, false, nil, nil
}

// toFront moves the last n elements of s to its front.
func toFront(s []string, n int) []string {
	if n == 0 || n == len(s) {
		return s
	}
	k := len(s) - n
	return append(append([]string{}, s[k:]...), s[:k]...)
}
