package makefile

import (
	"strings"
)

// topLevel returns the index of the first c in s outside variable
// references `$(…)`/`${…}`, or -1.
func topLevel(s string, c byte) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{'):
			depth++
			i++
		case depth > 0 && (s[i] == '(' || s[i] == '{'):
			depth++
		case depth > 0 && (s[i] == ')' || s[i] == '}'):
			depth--
		case depth == 0 && s[i] == c:
			return i
		}
	}
	return -1
}

// splitRecipe cuts a rule line at its first `;` (the rest is a recipe
// line, kept whole, `#` included) or `#` (a comment), outside references.
func splitRecipe(s string) (left, recipeText string, semi bool) {
	depth := 0
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '#':
			b.WriteByte('#')
			i++
			continue
		case c == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{'):
			depth++
			b.WriteByte(c)
			b.WriteByte(s[i+1])
			i++
			continue
		case depth > 0 && (c == '(' || c == '{'):
			depth++
		case depth > 0 && (c == ')' || c == '}'):
			depth--
		case depth == 0 && c == '#':
			return b.String(), "", false
		case depth == 0 && c == ';':
			return b.String(), s[i+1:], true
		}
		b.WriteByte(c)
	}
	return b.String(), "", false
}

// specialTargets are make's special targets; those that change how
// recipes run are not modelled.
var specialTargets = map[string]string{
	".PHONY": "", ".SUFFIXES": "", ".DEFAULT": "", ".PRECIOUS": "", ".INTERMEDIATE": "",
	".SECONDARY": "", ".DELETE_ON_ERROR": "", ".IGNORE": "", ".LOW_RESOLUTION_TIME": "",
	".SILENT": "", ".NOTPARALLEL": "", ".NOTINTERMEDIATE": "", ".WAIT": "",
	".ONESHELL":             ".ONESHELL runs a whole recipe in one shell",
	".POSIX":                ".POSIX changes how make reads recipes and runs the shell",
	".SECONDEXPANSION":      ".SECONDEXPANSION expands prerequisites a second time",
	".EXPORT_ALL_VARIABLES": ".EXPORT_ALL_VARIABLES puts every variable in the recipes' environment",
}

// ruleLine reads `targets : prerequisites [; recipe]` and its variants.
func (r *reader) ruleLine(file string, line int, s string) {
	r.endGroup()
	left, recipeText, semi := splitRecipe(s)
	c := topLevel(left, ':')
	if c < 0 {
		if trimSpace(r.expand(left)) == "" {
			return
		}
		r.failAt(file, line, "missing separator: make stops here")
	}
	rawTargets, rest := left[:c], left[c+1:]
	if strings.HasPrefix(rest, ":") {
		r.failAt(file, line, "double-colon rules are not modelled")
	}
	rawTargets = strings.TrimRight(rawTargets, " \t")
	rawTargets = strings.TrimSuffix(rawTargets, "&") // grouped targets: each is built, once
	targets := r.words(rawTargets)
	if strings.ContainsAny(strings.Join(targets, " "), ":") {
		r.failAt(file, line, "a target list that expands to a colon is not modelled")
	}

	// Target- and pattern-specific variables: `targets: VAR = value`.
	if rs := strings.TrimLeft(rest, " \t"); true {
		for {
			kw, more := keyword(rs)
			if kw == "override" || kw == "export" || kw == "private" {
				rs = more
				continue
			}
			break
		}
		if _, _, ok := splitAssignment(rs); ok {
			for _, t := range targets {
				if strings.Contains(t, "%") {
					r.pvars = append(r.pvars, pattern{target: t, file: file, line: line})
				} else {
					r.tvars[t] = posOf(file, line)
				}
			}
			return
		}
	}

	var stemPattern string
	if c2 := topLevel(rest, ':'); c2 >= 0 {
		stemPattern = trimSpace(r.expand(rest[:c2]))
		rest = rest[c2+1:]
		if strings.Count(stemPattern, "%") != 1 || strings.ContainsAny(stemPattern, " \t") {
			r.failAt(file, line, "a static pattern rule needs one target pattern with one %%")
		}
	}
	normalRaw, orderRaw := rest, ""
	if i := topLevel(rest, '|'); i >= 0 {
		normalRaw, orderRaw = rest[:i], rest[i+1:]
	}
	normal, order := r.words(normalRaw), r.words(orderRaw)

	rec := &recipe{}
	if semi {
		if t := strings.TrimLeft(recipeText, " \t"); t != "" {
			rec.lines = append(rec.lines, recipeLine{text: t, file: file, line: line})
		}
	}
	r.group, r.groupRec, r.groupHas = []string{}, rec, semi

	for _, t := range targets {
		if why, special := specialTargets[t]; special {
			if why != "" {
				r.failAt(file, line, "%s", why)
			}
			switch t {
			case ".PHONY":
				for _, p := range append(append([]string{}, normal...), order...) {
					r.phony[p] = true
				}
				continue
			case ".SUFFIXES":
				if len(normal) == 0 {
					r.suffixes = nil
				}
				r.suffixes = append(r.suffixes, normal...)
				continue
			}
		}
		pn, po := normal, order
		stem := ""
		if stemPattern != "" {
			st, ok := matchPattern(stemPattern, t)
			if !ok {
				r.failAt(file, line, "target %s does not match the pattern %s", t, stemPattern)
			}
			stem = st
			pn, po = substStem(normal, stem), substStem(order, stem)
		} else if strings.Contains(t, "%") {
			if r.groupPat == nil {
				if len(r.group) > 0 {
					r.failAt(file, line, "a rule mixing pattern and other targets")
				}
				r.groupPat = &patternRule{prereqs: normal, orderOnly: order, file: file, line: line}
				r.patterns = append(r.patterns, r.groupPat)
			}
			r.groupPat.targets = append(r.groupPat.targets, t)
			continue
		} else if r.groupPat != nil {
			r.failAt(file, line, "a rule mixing pattern and other targets")
		}
		ru := r.rules[t]
		if ru == nil {
			if len(r.rules) >= 4*r.lim.MaxTargets {
				r.failAt(file, line, "more than %d targets", 4*r.lim.MaxTargets)
			}
			ru = &rule{file: file, line: line}
			r.rules[t] = ru
		}
		if stemPattern != "" {
			if ru.stemSet {
				r.failAt(file, line, "%s has two static pattern rules", t)
			}
			ru.stem, ru.stemSet = stem, true
		}
		ru.prereqs = append(ru.prereqs, pn...)
		ru.orderOnly = append(ru.orderOnly, po...)
		r.mentioned[t] = true
		for _, p := range pn {
			r.mentioned[p] = true
		}
		for _, p := range po {
			r.mentioned[p] = true
		}
		if r.firstGoal == "" && (!strings.HasPrefix(t, ".") || strings.Contains(t, "/")) {
			r.firstGoal = t
		}
		r.group = append(r.group, t)
		r.groupN = append(r.groupN, [2]int{len(pn), len(po)})
	}
}

// words expands s and splits it into file names, expanding globs as make
// does for targets and prerequisites.
func (r *reader) words(s string) []string {
	var out []string
	for _, w := range strings.Fields(r.expand(s)) {
		if strings.ContainsAny(w, "*?[") {
			if m := r.glob(w); len(m) > 0 {
				out = append(out, m...)
				continue
			}
		}
		if strings.HasPrefix(w, "~") {
			r.fail("%s: a file name starting with ~ is not modelled", r.where)
		}
		out = append(out, w)
	}
	return out
}

// matchPattern matches name against a pattern with one `%`; it returns
// the stem.
func matchPattern(pat, name string) (string, bool) {
	i := strings.IndexByte(pat, '%')
	if i < 0 {
		return "", pat == name
	}
	pre, suf := pat[:i], pat[i+1:]
	if len(name) < len(pre)+len(suf) || !strings.HasPrefix(name, pre) || !strings.HasSuffix(name, suf) {
		return "", false
	}
	return name[len(pre) : len(name)-len(suf)], true
}

// substStem replaces the first `%` of each word with stem.
func substStem(words []string, stem string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strings.Replace(w, "%", stem, 1)
	}
	return out
}
