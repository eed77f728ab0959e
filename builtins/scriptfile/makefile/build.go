package makefile

import (
	"strings"
)

// defaultSuffixes is GNU make's .SUFFIXES before the makefile changes it.
var defaultSuffixes = strings.Fields(".out .a .ln .o .c .cc .C .cpp .p .f .F .m .r .y .l .ym .yl .s .S .mod .sym .def .h .info .dvi .tex .texinfo .texi .txinfo .w .ch .web .sh .elc .el")

// builtinRule is one of GNU make's built-in implicit rules, as `make -p`
// lists them: target pattern ← prerequisite pattern. Suffix rules apply
// only while both suffixes are in .SUFFIXES; terminal rules never chain.
type builtinRule struct {
	target, prereq string
	from, to       string // the suffixes of a suffix rule
	terminal       bool
}

var builtinRules = func() []builtinRule {
	var out []builtinRule
	pairs := map[string]string{
		".o":    ".C .F .S .c .cc .cpp .f .m .mod .p .r .s",
		".c":    ".l .w .y",
		".f":    ".F .r",
		".ln":   ".c .l .y",
		".m":    ".ym",
		".p":    ".web",
		".r":    ".l",
		".s":    ".S",
		".sym":  ".def",
		".tex":  ".w .web",
		".dvi":  ".tex .texi .texinfo .txinfo",
		".info": ".texi .texinfo .txinfo",
		"":      ".C .F .S .c .cc .cpp .f .m .mod .p .r .s .sh .o",
	}
	for to, froms := range pairs {
		for _, from := range strings.Fields(froms) {
			out = append(out, builtinRule{target: "%" + to, prereq: "%" + from, from: from, to: to})
		}
	}
	out = append(out, builtinRule{target: "%.out", prereq: "%"},
		builtinRule{target: "%.c", prereq: "%.w"}, builtinRule{target: "%.tex", prereq: "%.w"})
	for _, p := range []string{"%,v", "RCS/%,v", "RCS/%", "SCCS/s.%", "s.%"} {
		out = append(out, builtinRule{target: "%", prereq: p, terminal: true})
	}
	return out
}()

// defaults are the variables GNU make defines before reading a makefile
// (`make -p -f /dev/null`), those recipes commonly use.
var defaults = map[string]string{
	"AR": "ar", "ARFLAGS": "rv", "AS": "as", "CC": "cc", "CXX": "g++", "CPP": "$(CC) -E",
	"FC": "f77", "LD": "ld", "LEX": "lex", "YACC": "yacc", "RM": "rm -f", "CO": "co", "GET": "get",
	"M2C": "m2c", "PC": "pc", "OBJC": "cc", "LINT": "lint", "MAKEINFO": "makeinfo", "TEX": "tex",
	"TEXI2DVI": "texi2dvi", "WEAVE": "weave", "CWEAVE": "cweave", "TANGLE": "tangle",
	"CTANGLE": "ctangle", "F77": "$(FC)", "F77FLAGS": "$(FFLAGS)", "COFLAGS": "",
	"OUTPUT_OPTION": "-o $@",
	"COMPILE.c":     "$(CC) $(CFLAGS) $(CPPFLAGS) $(TARGET_ARCH) -c",
	"COMPILE.cc":    "$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(TARGET_ARCH) -c",
	"COMPILE.C":     "$(COMPILE.cc)", "COMPILE.cpp": "$(COMPILE.cc)",
	"COMPILE.s": "$(AS) $(ASFLAGS) $(TARGET_MACH)",
	"COMPILE.S": "$(CC) $(ASFLAGS) $(CPPFLAGS) $(TARGET_MACH) -c",
	"LINK.c":    "$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $(TARGET_ARCH)",
	"LINK.cc":   "$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(LDFLAGS) $(TARGET_ARCH)",
	"LINK.C":    "$(LINK.cc)", "LINK.cpp": "$(LINK.cc)",
	"LINK.o":       "$(CC) $(LDFLAGS) $(TARGET_ARCH)",
	"LINK.s":       "$(CC) $(ASFLAGS) $(LDFLAGS) $(TARGET_MACH)",
	"LINK.S":       "$(CC) $(ASFLAGS) $(CPPFLAGS) $(LDFLAGS) $(TARGET_MACH)",
	"PREPROCESS.S": "$(CC) -E $(CPPFLAGS)",
	"LEX.l":        "$(LEX) $(LFLAGS) -t", "YACC.y": "$(YACC) $(YFLAGS)",
}

func (r *reader) defineDefaults() {
	if !r.inv.NoBuiltinVars {
		for k, v := range defaults {
			if _, env := r.inv.Env[k]; !env { // the environment beats make's defaults
				r.vars[k] = &variable{value: v, origin: "default"}
			}
		}
	}
	simple := map[string]string{
		"MAKE_COMMAND": r.inv.Program, "CURDIR": r.inv.Dir, "SHELL": "/bin/sh", ".SHELLFLAGS": "-c",
		"MAKELEVEL": itoa(r.inv.Level), "MAKE_VERSION": "4.3", "MAKECMDGOALS": strings.Join(r.inv.Targets, " "),
		".DEFAULT_GOAL": "", "MAKEFILE_LIST": "", ".RECIPEPREFIX": "",
	}
	for k, v := range simple {
		r.vars[k] = &variable{value: v, simple: true, origin: "default"}
	}
	r.vars["MAKE"] = &variable{value: "$(MAKE_COMMAND)", origin: "default"}
	for _, a := range []string{"@", "<", "^", "+", "?", "*", "|", "%"} {
		r.vars[a+"D"] = &variable{value: "$(patsubst %/,%,$(dir $" + a + "))", origin: "automatic"}
		r.vars[a+"F"] = &variable{value: "$(notdir $" + a + ")", origin: "automatic"}
	}
	for k, v := range r.inv.Vars {
		if why := unmodelledVariable(k); why != "" {
			r.fail("the command line sets %s: %s", k, why)
		}
		r.vars[k] = &variable{value: v, origin: "command line"}
	}
	if r.inv.NoBuiltinRules {
		r.suffixes = nil
	} else {
		r.suffixes = append([]string(nil), defaultSuffixes...)
	}
}

// run reads the makefiles and builds the goals.
func (r *reader) run() {
	if len(r.inv.Files) > 0 {
		for _, f := range r.inv.Files {
			r.where = f
			data, ok := r.readFile(f)
			if !ok {
				r.fail("the makefile %s does not exist: make would try to build it", f)
			}
			r.parseFile(f, data)
		}
	} else {
		for _, f := range []string{"GNUmakefile", "makefile", "Makefile"} {
			r.where = f
			if data, ok := r.readFile(f); ok {
				r.parseFile(f, data)
				break
			}
		}
	}
	r.where = "make"
	r.finishRead()

	// make first brings its makefiles up to date, running their recipes
	// even under -n.
	for _, m := range r.makefiles {
		r.build(m)
	}
	goals := r.inv.Targets
	if len(goals) == 0 {
		if g := strings.Fields(r.varValue(".DEFAULT_GOAL")); len(g) > 1 {
			r.fail(".DEFAULT_GOAL names more than one target")
		} else if len(g) == 1 {
			goals = g
		} else if r.firstGoal != "" {
			goals = []string{r.firstGoal}
		}
	}
	for _, g := range goals {
		r.build(g)
	}
}

// finishRead turns suffix rules into patterns and checks what applies to
// the whole makefile.
func (r *reader) finishRead() {
	for name, ru := range r.rules {
		if !strings.HasPrefix(name, ".") || ru.recipe == nil || strings.Contains(name, "/") {
			continue
		}
		if _, special := specialTargets[name]; special {
			if name == ".DEFAULT" {
				r.defaultAt = posOf(ru.file, ru.line)
			}
			continue
		}
		for _, s := range r.suffixes {
			rest, ok := strings.CutPrefix(name, s)
			if !ok {
				continue
			}
			if len(ru.prereqs)+len(ru.orderOnly) > 0 {
				continue // with prerequisites, a normal target
			}
			if rest == "" {
				r.patterns = append(r.patterns, &patternRule{targets: []string{"%"}, prereqs: []string{"%" + s}, recipe: ru.recipe, file: ru.file, line: ru.line})
			}
			for _, t := range r.suffixes {
				if rest == t {
					r.patterns = append(r.patterns, &patternRule{targets: []string{"%" + t}, prereqs: []string{"%" + s}, recipe: ru.recipe, file: ru.file, line: ru.line})
				}
			}
		}
	}
	r.checkShell()
	for _, m := range r.missing {
		r.where = "make"
		if r.rules[m] != nil {
			r.fail("the included %s does not exist and has a rule: make would build it first", m)
		}
		if pr, _, _, _ := r.implicit(m); pr != nil {
			r.fail("the included %s does not exist and the pattern rule %s (%s) would build it first", m, pr.targets[0], posOf(pr.file, pr.line))
		}
	}
}

// checkShell allows SHELL and .SHELLFLAGS values that run recipes as
// `sh -c` runs them (bash and POSIX sh, with -e, -u, -x, -o pipefail).
func (r *reader) checkShell() {
	if v := r.vars["SHELL"]; v == nil || v.origin != "default" {
		r.where = "SHELL"
		sh := ""
		if v != nil {
			sh = trimSpace(r.varValue("SHELL"))
		}
		switch sh {
		case "/bin/sh", "/bin/bash", "/usr/bin/sh", "/usr/bin/bash":
		default:
			r.fail("the makefile sets SHELL to %s: recipes run in a shell permopa does not model", printable(sh))
		}
	}
	if v := r.vars[".SHELLFLAGS"]; v != nil && v.origin != "default" {
		r.where = ".SHELLFLAGS"
		f := strings.Fields(r.varValue(".SHELLFLAGS"))
		ok := len(f) > 0 && strings.HasPrefix(f[len(f)-1], "-") && strings.HasSuffix(f[len(f)-1], "c")
		for i := 0; i < len(f) && ok; i++ {
			w := f[i]
			if w == "-o" && i+1 < len(f) {
				switch f[i+1] {
				case "pipefail", "errexit", "nounset", "xtrace":
					i++
					continue
				}
			}
			ok = len(w) > 1 && w[0] == '-' && strings.Trim(w[1:], "euxc") == ""
		}
		if !ok {
			r.fail("the makefile sets .SHELLFLAGS to %s, which permopa does not model", printable(strings.Join(f, " ")))
		}
	}
}

// build brings target t up to date as make does: its prerequisites first,
// then its recipe; each target once.
func (r *reader) build(t string) {
	if r.done[t] || r.visiting[t] {
		return // done, or a circular dependency make drops
	}
	r.built++
	if r.built > r.lim.MaxTargets {
		r.fail("more than %d targets to build", r.lim.MaxTargets)
	}
	r.visiting[t] = true
	defer func() { r.visiting[t] = false; r.done[t] = true }()
	if at, ok := r.tvars[t]; ok {
		r.fail("%s: target-specific variables of %s are not modelled", at, printable(t))
	}
	for _, p := range r.pvars {
		if _, ok := matchPattern(p.target, t); ok {
			r.fail("%s: pattern-specific variables of %s apply to %s and are not modelled", posOf(p.file, p.line), p.target, printable(t))
		}
	}
	ru := r.rules[t]
	if ru == nil {
		ru = &rule{}
	}
	if ru.recipe != nil {
		for _, p := range append(append([]string(nil), ru.prereqs...), ru.orderOnly...) {
			r.build(p)
		}
		stem, set := ru.stem, ru.stemSet
		if !set {
			stem = r.suffixStem(t)
		}
		r.runRecipe(t, ru.recipe, ru.prereqs, ru.orderOnly, stem)
		return
	}
	// No recipe: an implicit rule may supply one. Its prerequisites come
	// first, then the explicit ones.
	var pr *patternRule
	var pre, ord []string
	stem := ""
	if !r.phony[t] {
		pr, pre, ord, stem = r.implicit(t)
	}
	for _, p := range append(append(append(append([]string(nil), pre...), ord...), ru.prereqs...), ru.orderOnly...) {
		r.build(p)
	}
	if pr != nil {
		r.runRecipe(t, pr.recipe, append(pre, ru.prereqs...), append(ord, ru.orderOnly...), stem)
	}
}

// suffixStem is $* of an explicit rule: the target without a suffix of
// .SUFFIXES, "" when it has none.
func (r *reader) suffixStem(t string) string {
	for _, s := range r.suffixes {
		if strings.HasSuffix(t, s) && len(s) < len(t) {
			return t[:len(t)-len(s)]
		}
	}
	return ""
}

// implicit finds the implicit rule make would build t with: a pattern
// rule of the makefile (or a suffix rule) whose prerequisites exist or are
// named in the makefile, the one with the shortest stem, then the first.
// It returns nil when no rule applies, and fails when what applies is not
// modelled: .DEFAULT, one of make's built-in rules (its recipe runs the
// makefile's $(CC) and the like), a chain of rules, a rule with several
// target patterns or a match-anything one, an archive member, a library.
func (r *reader) implicit(t string) (best *patternRule, pre, ord []string, stem string) {
	switch {
	case strings.HasPrefix(t, "-l"):
		r.fail("the prerequisite %s is a library make searches for", printable(t))
	case strings.Contains(t, "("):
		r.fail("%s names an archive member, which make builds with implicit rules", printable(t))
	}
	bestLen, missing := -1, ""
	var missingRule *patternRule
	for _, pr := range r.patterns {
		for _, tp := range pr.targets {
			dir, name := "", t
			if !strings.Contains(tp, "/") {
				if i := strings.LastIndexByte(t, '/'); i >= 0 {
					dir, name = t[:i+1], t[i+1:]
				}
			}
			st, ok := matchPattern(tp, name)
			if !ok || st == "" {
				continue
			}
			at := posOf(pr.file, pr.line)
			switch {
			case len(pr.targets) > 1:
				r.fail("%s has no recipe: the pattern rule %s (%s) with several targets may build it, which is not modelled", printable(t), strings.Join(pr.targets, " "), at)
			case tp == "%":
				r.fail("%s has no recipe: the match-anything rule %s (%s) may build it, which is not modelled", printable(t), tp, at)
			case pr.recipe == nil:
				r.fail("%s has no recipe: the pattern rule %s (%s) has none either, which is not modelled", printable(t), tp, at)
			}
			p, o := substPattern(pr.prereqs, dir, st), substPattern(pr.orderOnly, dir, st)
			applies := true
			for _, q := range append(append([]string(nil), p...), o...) {
				if !r.mentioned[q] && r.rules[q] == nil && !r.existsPath(q) {
					applies = false
					if missing == "" {
						missing, missingRule = q, pr
					}
					break
				}
			}
			if applies && (bestLen < 0 || len(st) < bestLen) {
				best, pre, ord, stem, bestLen = pr, p, o, dir+st, len(st)
			}
		}
	}
	if best == nil && missing != "" {
		// The rule needs a file that does not exist: another rule may
		// make it (a chain), else the rule does not apply.
		if r.patternFor(missing, missingRule) != nil {
			r.fail("%s has no recipe: the pattern rule %s (%s) would need %s, which another pattern rule may make: a chain, which is not modelled", printable(t), missingRule.targets[0], posOf(missingRule.file, missingRule.line), printable(missing))
		}
		if !r.inv.NoBuiltinRules && r.builtinSource(missing, -1) != "" {
			r.fail("%s has no recipe: the pattern rule %s (%s) would need %s, which a built-in rule may make", printable(t), missingRule.targets[0], posOf(missingRule.file, missingRule.line), printable(missing))
		}
	}
	if best == nil && r.defaultAt != "" {
		r.fail("%s has no rule: make would run the recipe of .DEFAULT (%s)", printable(t), r.defaultAt)
	}
	if r.inv.NoBuiltinRules {
		return best, pre, ord, stem
	}
	// A built-in rule with a shorter stem wins over the makefile's.
	if from := r.builtinSource(t, bestLen); from != "" {
		r.fail("%s has no recipe: make may build it from %s with a built-in implicit rule", printable(t), from)
	}
	return best, pre, ord, stem
}

// patternFor returns a pattern rule of the makefile other than not (a
// chain uses a rule once) whose target pattern matches name, or nil.
func (r *reader) patternFor(name string, not *patternRule) *patternRule {
	for _, pr := range r.patterns {
		if pr == not {
			continue
		}
		for _, tp := range pr.targets {
			n := name
			if !strings.Contains(tp, "/") {
				n = name[strings.LastIndexByte(name, '/')+1:]
			}
			if st, ok := matchPattern(tp, n); ok && st != "" {
				return pr
			}
		}
	}
	return nil
}

// substPattern replaces the first `%` of each word with stem, and puts dir
// (the target's directory, when the target pattern has none) before the
// words that had one.
func substPattern(words []string, dir, stem string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		if strings.Contains(w, "%") {
			w = dir + strings.Replace(w, "%", stem, 1)
		}
		out[i] = w
	}
	return out
}

// existsPath reports whether the file name (relative to make's directory)
// exists, from the directory listings.
func (r *reader) existsPath(name string) bool {
	dir, base := "", name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir, base = name[:i+1], name[i+1:]
	}
	return r.existsIn(dir, base)
}

// builtinSource returns a file a chain of built-in rules could build t
// from, or "". A chain keeps the stem of its first rule and changes the
// suffix (prog ← prog.o ← prog.c ← prog.y), so the candidates are the
// stem with every suffix a chain reaches (sourcesOf), and the version
// control files the terminal rules check out (RCS/x,v, SCCS/s.x, ...).
func (r *reader) builtinSource(t string, maxStem int) string {
	dir, base := "", t
	if i := strings.LastIndexByte(t, '/'); i >= 0 {
		dir, base = t[:i+1], t[i+1:]
	}
	if c := r.checkedOut(dir, base); c != "" && maxStem < 0 {
		return c
	}
	for _, b := range builtinRules {
		if b.terminal || !r.active(b) {
			continue
		}
		stem, ok := matchPattern(b.target, base)
		if !ok || stem == "" || maxStem >= 0 && len(stem) >= maxStem {
			continue
		}
		first := strings.TrimPrefix(b.prereq, "%")
		sufs := []string{first}
		if first != "" {
			sufs = append(sufs, r.sourcesOf(first)...)
		}
		for _, s := range sufs {
			name := stem + s
			if name == base {
				continue
			}
			if r.existsIn(dir, name) || r.mentioned[dir+name] {
				return dir + name
			}
			if c := r.checkedOut(dir, name); c != "" {
				return c
			}
		}
	}
	return ""
}

// checkedOut returns the version control file a terminal built-in rule
// would check dir+name out of, or "".
func (r *reader) checkedOut(dir, name string) string {
	if !r.mayCheckOut(dir) {
		return ""
	}
	for _, c := range [][2]string{{dir, name + ",v"}, {dir + "RCS/", name + ",v"}, {dir + "RCS/", name}, {dir + "SCCS/", "s." + name}, {dir, "s." + name}} {
		if r.existsIn(c[0], c[1]) || r.mentioned[c[0]+c[1]] {
			return c[0] + c[1]
		}
	}
	return ""
}

// mayCheckOut reports whether dir holds, or the makefile names, anything
// a terminal rule checks files out of (RCS, SCCS, x,v, s.x): only then
// are checkedOut's names looked up.
func (r *reader) mayCheckOut(dir string) bool {
	if v, ok := r.vcsDirs[dir]; ok {
		return v
	}
	if r.vcsDirs == nil {
		r.vcsDirs = map[string]bool{}
		for m := range r.mentioned {
			b := m[strings.LastIndexByte(m, '/')+1:]
			if strings.HasSuffix(m, ",v") || strings.HasPrefix(b, "s.") || strings.Contains(m, "RCS/") || strings.Contains(m, "SCCS/") {
				r.mentionsVCS = true
			}
		}
	}
	v := r.mentionsVCS || r.existsIn(dir, "RCS") || r.existsIn(dir, "SCCS")
	for n := range r.dirs[dir] {
		if v {
			break
		}
		v = strings.HasSuffix(n, ",v") || strings.HasPrefix(n, "s.")
	}
	r.vcsDirs[dir] = v
	return v
}

// active reports whether a built-in rule applies: a suffix rule only while
// both its suffixes are in .SUFFIXES.
func (r *reader) active(b builtinRule) bool {
	return b.from == "" || r.hasSuffix(b.from) && (b.to == "" || r.hasSuffix(b.to))
}

// sourcesOf returns the suffixes from which a chain of active built-in
// rules (not match-anything ones) makes a file ending in suf.
func (r *reader) sourcesOf(suf string) []string {
	if out, ok := r.sources[suf]; ok {
		return out
	}
	if r.sources == nil {
		r.sources = map[string][]string{}
	}
	seen := map[string]bool{suf: true}
	queue := []string{suf}
	var out []string
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, b := range builtinRules {
			if b.terminal || b.target != "%"+cur || !r.active(b) {
				continue
			}
			p := strings.TrimPrefix(b.prereq, "%")
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			out = append(out, p)
			queue = append(queue, p)
		}
	}
	r.sources[suf] = out
	return out
}

func (r *reader) hasSuffix(s string) bool {
	if r.suffixSet == nil {
		r.suffixSet = map[string]bool{}
		for _, x := range r.suffixes {
			r.suffixSet[x] = true
		}
	}
	return r.suffixSet[s]
}

// existsIn reports whether name exists in the directory dir (as written
// in the makefile, "" or ending in "/"), from one listing per directory.
func (r *reader) existsIn(dir, name string) bool {
	if r.dirs == nil {
		r.dirs = map[string]map[string]bool{}
	}
	names, ok := r.dirs[dir]
	if !ok {
		list, ok := r.list(r.abs(dir + "."))
		if !ok {
			r.fail("%s: more files to look at than permopa checks", r.where)
		}
		names = make(map[string]bool, len(list))
		for _, n := range list {
			names[n] = true
		}
		r.dirs[dir] = names
	}
	return names[name]
}

// runRecipe expands t's recipe and records its command lines.
func (r *reader) runRecipe(t string, rec *recipe, prereqs, orderOnly []string, stem string) {
	auto := func(v string) *variable { return &variable{value: v, simple: true, origin: "automatic"} }
	scope := map[string]*variable{
		"@": auto(t), "<": auto(nth(prereqs, 0)), "^": auto(strings.Join(dedup(prereqs), " ")),
		"+": auto(strings.Join(prereqs, " ")), "?": auto(strings.Join(dedup(prereqs), " ")),
		"|": auto(strings.Join(dedup(orderOnly), " ")), "*": auto(stem), "%": auto(""),
	}
	r.scopes = append(r.scopes, scope)
	defer func() { r.scopes = r.scopes[:len(r.scopes)-1] }()
	for _, l := range rec.lines {
		r.where = posOf(l.file, l.line)
		for _, cmd := range splitCommands(r.expand(l.text)) {
			line := Line{File: l.file, Line: l.line, Target: t}
			i := 0
			for ; i < len(cmd); i++ {
				switch cmd[i] {
				case '@':
					line.Silent = true
				case '-':
					line.IgnoreErrors = true
				case '+':
					line.Always = true
				case ' ', '\t', '\n':
				default:
					goto done
				}
			}
		done:
			line.Text = cmd[i:]
			if line.Text == "" {
				continue
			}
			if len(r.commands) >= r.lim.MaxCommands {
				r.fail("more than %d recipe lines", r.lim.MaxCommands)
			}
			r.commands = append(r.commands, line)
		}
	}
}

// splitCommands splits an expanded recipe line at newlines that no
// backslash escapes: each piece is a command of its own, with its own
// prefixes (a multi-line variable in a recipe).
func splitCommands(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '\n' {
			continue
		}
		n := 0
		for j := i - 1; j >= start && s[j] == '\\'; j-- {
			n++
		}
		if n%2 == 1 {
			continue
		}
		out = append(out, s[start:i])
		start = i + 1
	}
	return append(out, s[start:])
}

func dedup(w []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range w {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// maxListings bounds the directories one Read lists.
const maxListings = 256

// list lists a directory through the FS, counting it against maxListings.
func (r *reader) list(dir string) ([]string, bool) {
	r.listings++
	if r.listings > maxListings {
		r.fail("%s: more than %d directories to list", r.where, maxListings)
	}
	return r.fs.List(dir)
}

// unmodelledVariable says why setting the variable name (in the makefile
// or on the command line) changes how make reads or runs what the reader
// does not model; "" for any other name. SHELL and .SHELLFLAGS are judged
// by checkShell, MAKEFLAGS in a makefile by makeflags.
func unmodelledVariable(name string) string {
	switch name {
	case ".RECIPEPREFIX":
		return ".RECIPEPREFIX changes which lines are recipes"
	case "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS":
		return name + " holds make's options"
	case "VPATH", "GPATH":
		return name + " makes make search other directories for prerequisites"
	case ".EXTRA_PREREQS", ".LIBPATTERNS", ".INCLUDE_DIRS", "MAKEFILES", "MAKEFILE_LIST", ".DEFAULT":
		return name + " is not modelled"
	case "MAKE", "MAKE_COMMAND":
		return "recipes run $(MAKE)"
	}
	return ""
}
