package bash

import (
	"fmt"
	"hash/maphash"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/permopa/permopa/builtins/flagspec"
)

// Rule contents are split into words with the shell's quoting rules:
// whitespace separates words; '...' is literal; "..." is literal except
// that \ quotes $ ` " \; $'...' decodes C escapes; a backslash quotes the
// next character. Nothing is expanded ($x and ~ stay as written). An
// unquoted * is a wildcard:
//   - a word that is only unquoted stars matches any run of zero or more words;
//   - a trailing ":*" glued to the last word means the same ("npm run:*" ==
//     "npm run *": npm run followed by anything, on a word boundary);
//   - a * inside a word matches any run of characters within that one word,
//     "/" included (rule contents describe commands, not paths; path rules
//     are Read/Write rules).
// Content without a wildcard matches a leaf's words exactly. Empty (or
// blank) content matches every leaf.
//
// Allow rules match AllowArgv (what the leaf runs, seen only through
// transparent wrappers) literally as above, and cover no more than their
// words: a wildcard never stands for a word that carries code (a leaf's
// CodeWords: sed's e command, git -c core.pager=..., bash -c's script, an
// assignment to PAGER), and no allow rule covers a leaf that writes a file
// by redirection (git status > out.txt: path rules and the mode decide).
//
// Deny and ask rules (MatchAny) hit a leaf in any of three ways:
//   - literally, as above, on any view of the leaf (every wrapper level,
//     the program's base name, ~ for the home directory, global options
//     before a subcommand dropped);
//   - flag-aware: when the rule's first word names a program with a flag
//     spec (builtins/flagspec), the rule names options (or ends in a
//     wildcard and names operands or a subcommand: "npm publish:*" hits
//     "npm pub") and its other words parse with that spec
//     (in-word stars only in operands and option values, no word wildcard
//     but a trailing one), the rule and the leaf are read with the same
//     parser (flagspec.Parse) and the rule hits a leaf of that program
//     whose subcommand is the rule's (or, for a rule ending in a wildcard,
//     starts with it) and that carries every option of the rule in any
//     spelling (synonyms, GNU abbreviations, clusters, before or after
//     operands, --opt=v or --opt v, repeated, or implied by another option
//     or operand form: git push +main is --force), with an equal value
//     when the rule gives one (a glob when it has stars); options the leaf
//     has beyond the rule's do not matter. The rule's operands must appear
//     among the leaf's in the same order (a subsequence; "./x", "x/" and
//     "x" are one path) for a rule ending in a wildcard, and be exactly
//     the leaf's operands for a rule without one. A leaf whose argv may
//     hold options permopa cannot see (a word only known at run time where
//     an option may stand, an option the spec does not know, xargs'
//     appended arguments) hits every rule of its program and subcommand;
//   - on uncertainty: a leaf whose program or code permopa cannot tell
//     (Leaf.RunsUnknown), and any command that hides what it runs (a
//     construct the analyser does not model, a cap hit, a parse error),
//     hit every deny and ask rule. MatchReason says why a rule hit.
//     MatchCertain leaves this way out and Uncertain says why it applies:
//     the policy denies on a certain match and asks on one that is only
//     possible (docs/rules.md, "Bash deny rules and code permopa cannot
//     read").

// ruleWord is one word of a rule content: text with the positions of unquoted stars.
type ruleWord struct {
	parts []string // text split at unquoted *; len(parts)-1 stars
}

func (r ruleWord) text() string { return strings.Join(r.parts, "*") }

func (r ruleWord) hasStar() bool { return len(r.parts) > 1 }

// onlyStars reports a word made of unquoted stars alone.
func (r ruleWord) onlyStars() bool {
	for _, p := range r.parts {
		if p != "" {
			return false
		}
	}
	return len(r.parts) > 1
}

// tokenize splits a rule content into words.
func tokenize(content string) ([]ruleWord, error) {
	var words []ruleWord
	var cur strings.Builder
	var parts []string
	inWord := false
	end := func() {
		if inWord {
			parts = append(parts, cur.String())
			words = append(words, ruleWord{parts: parts})
		}
		parts, inWord = nil, false
		cur.Reset()
	}
	s := content
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			end()
		case c == '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("bash rule %q: trailing backslash", content)
			}
			i++
			inWord = true
			if s[i] != '\n' {
				cur.WriteByte(s[i])
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("bash rule %q: unterminated single quote", content)
			}
			inWord = true
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '$' && i+1 < len(s) && s[i+1] == '\'':
			j := i + 2
			for j < len(s) && s[j] != '\'' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, fmt.Errorf("bash rule %q: unterminated $' quote", content)
			}
			inWord = true
			cur.WriteString(ansiC(s[i+2 : j]))
			i = j
		case c == '"':
			j := i + 1
			inWord = true
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("$`\"\\\n", s[j+1]) >= 0 {
					j++
					if s[j] != '\n' {
						cur.WriteByte(s[j])
					}
					continue
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("bash rule %q: unterminated double quote", content)
			}
			i = j
		case c == '*':
			inWord = true
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	end()
	return words, nil
}

// Pattern is a compiled Bash rule content ("npm run:*", "npm run *", "git status", "git * --force").
type Pattern struct {
	content string
	all     bool       // empty content: every leaf
	toks    []ruleWord // a token that onlyStars() matches any run of words
	// first is the literal first word when there is one, for fast rejection;
	// firstHash is its hash, cheaper to compare across thousands of rules.
	first     string
	firstHash uint64
	// literal is the number of leading words without a wildcard: an allow
	// rule covers a leaf only when it spells out the leaf's CodeWords.
	literal int
	// canon is the rule read with its program's flag spec, for flag-aware
	// deny and ask matching; nil when it cannot be.
	canon *ruleCanon
}

var firstSeed = maphash.MakeSeed()

// CompilePattern compiles a rule content; "" matches every command.
func CompilePattern(content string) (*Pattern, error) {
	words, err := tokenize(content)
	if err != nil {
		return nil, err
	}
	p := &Pattern{content: content}
	if len(words) == 0 {
		p.all = true
		return p, nil
	}
	last := words[len(words)-1]
	if n := len(last.parts); n > 1 && last.parts[n-1] == "" && strings.HasSuffix(last.parts[n-2], ":") {
		// "word:*": the word, then anything.
		trimmed := append([]string(nil), last.parts[:n-1]...)
		trimmed[n-2] = strings.TrimSuffix(trimmed[n-2], ":")
		words = words[:len(words)-1]
		if !(len(trimmed) == 1 && trimmed[0] == "") {
			words = append(words, ruleWord{parts: trimmed})
		}
		words = append(words, ruleWord{parts: []string{"", ""}})
	}
	// Runs of word wildcards are one wildcard.
	for _, wd := range words {
		if wd.onlyStars() && len(p.toks) > 0 && p.toks[len(p.toks)-1].onlyStars() {
			continue
		}
		if wd.onlyStars() {
			wd = ruleWord{parts: []string{"", ""}}
		}
		p.toks = append(p.toks, wd)
	}
	if !p.toks[0].hasStar() {
		p.first = p.toks[0].parts[0]
		p.firstHash = maphash.String(firstSeed, p.first)
	}
	for _, t := range p.toks {
		if t.hasStar() {
			break
		}
		p.literal++
	}
	p.canon = compileCanon(p)
	return p, nil
}

// ruleCanon is a rule's content read with its program's flag spec.
type ruleCanon struct {
	inv    flagspec.Invocation
	prefix bool // the content ends with a word wildcard
	// openOnly: the rule hits through its canonical form only a leaf
	// whose options or subcommand permopa cannot place.
	openOnly bool
	ops      []ruleWord // the operands, as patterns
	vals     []ruleWord // the options' values, as patterns (parallel to inv.Options)
}

// starMark stands for an unquoted star while a rule's words are parsed.
const starMark = "\x01"

// compileCanon reads a rule's words with the flag spec of its program:
// nil when the first word is not a literal program name with a spec, when
// a word wildcard stands anywhere but at the end, when a star is in an
// option's name or the subcommand, or when the spec does not understand
// the words.
func compileCanon(p *Pattern) *ruleCanon {
	if p.first == "" || strings.ContainsAny(p.first, "/"+starMark) {
		return nil
	}
	toks := p.toks
	prefix := false
	if last := toks[len(toks)-1]; last.onlyStars() {
		toks, prefix = toks[:len(toks)-1], true
	}
	if len(toks) < 2 {
		return nil
	}
	words := make([]string, len(toks))
	for i, t := range toks {
		if t.onlyStars() {
			return nil
		}
		for _, part := range t.parts {
			if strings.Contains(part, starMark) || strings.Contains(part, dyn) {
				return nil
			}
		}
		words[i] = strings.Join(t.parts, starMark)
	}
	inv, ok := flagspec.Parse(words)
	// A rule that stops at a subcommand whose options permopa does not
	// model ("docker image rm:*") names nothing it could not read.
	named := inv.Unmodelled && prefix && inv.SubcommandEnd == len(words) && len(inv.Options) == 0
	if !ok || inv.Open != "" && !named || inv.SubcommandOpen || strings.Contains(inv.Subcommand, starMark) {
		return nil
	}
	// A rule naming no option is flag-aware only when it ends in a
	// wildcard and names operands (git push origin main:* also hits
	// git push -q origin main) or a subcommand (npm publish:* also hits
	// npm pub, npm --prefix . publish and a leaf whose subcommand permopa
	// cannot place; docker run:* hits docker container run); "git status"
	// stays exact.
	// A rule naming only a subcommand, without a wildcard ("npm
	// publish"), stays literal (its spellings are views of the leaf:
	// spelledSubcommandView) but hits a leaf whose subcommand or options
	// permopa cannot place (npm --prefix . publish).
	openOnly := len(inv.Options) == 0 && !prefix && len(inv.Operands) == 0 && inv.Subcommand != ""
	if len(inv.Options) == 0 && (!prefix || len(inv.Operands) == 0 && inv.Subcommand == "") && !openOnly {
		return nil
	}
	rc := &ruleCanon{inv: inv, prefix: prefix, openOnly: openOnly}
	for _, o := range inv.Options {
		if strings.Contains(o.Name, starMark) {
			return nil
		}
		rc.vals = append(rc.vals, canonWord(o.Value))
	}
	for _, o := range inv.Operands {
		rc.ops = append(rc.ops, canonWord(o))
	}
	return rc
}

// canonWord turns a parsed rule word back into a pattern; a path without
// stars is cleaned ("./x/" is "x").
func canonWord(s string) ruleWord {
	if !strings.Contains(s, starMark) {
		return ruleWord{parts: []string{cleanOperand(s)}}
	}
	return ruleWord{parts: strings.Split(s, starMark)}
}

// cleanOperand cleans a word that looks like a path, so that "./x", "x/"
// and "x" compare equal; other words are unchanged.
func cleanOperand(s string) string {
	if s == "" || !strings.ContainsAny(s, "/.") || strings.Contains(s, "://") || strings.HasPrefix(s, "-") {
		return s
	}
	return path.Clean(s)
}

// leafCanon is a leaf read with its program's flag spec.
type leafCanon struct {
	inv flagspec.Invocation
	ok  bool
	// extra are the canonical forms of what an unmodelled program may run
	// (Leaf.operandViews whose program has a flag spec): toybox rm -fr x
	// is hit by a rule "rm -rf:*" as rm -fr x is.
	extra []flagspec.Invocation
}

// canonical returns the leaves' canonical forms, computed once per
// analysis (the analysis is cached per command string).
func (a *Analysis) canonical() []leafCanon {
	if c := a.canon.Load(); c != nil {
		return *c
	}
	out := make([]leafCanon, len(a.Leaves))
	for i := range a.Leaves {
		lf := &a.Leaves[i]
		if len(lf.Argv) == 0 {
			continue
		}
		argv := lf.Argv
		if strings.Contains(argv[0], "/") {
			argv = append([]string{path.Base(argv[0])}, argv[1:]...)
		}
		inv, ok := flagspec.Parse(argv)
		if ok && inv.Open == "" && contains(lf.Wrappers, "xargs") {
			inv.Open = "xargs appends arguments read from its input"
		}
		out[i] = leafCanon{inv: inv, ok: ok}
		for _, v := range lf.operandViews {
			if strings.Contains(v[0], "/") {
				v = append([]string{path.Base(v[0])}, v[1:]...)
			}
			if !flagspec.Modelled(v[0]) {
				continue
			}
			if inv, ok := flagspec.Parse(v); ok {
				out[i].extra = append(out[i].extra, inv)
			}
		}
	}
	a.canon.Store(&out)
	return out
}

// matches reports whether the rule hits the leaf read canonically, and
// whether it did so only because the leaf may hold options nobody sees.
func (rc *ruleCanon) matches(lc *flagspec.Invocation, home string) (hit, open bool) {
	if lc.Program != rc.inv.Program {
		return false, false
	}
	rs, ls := rc.inv.Subcommand, lc.Subcommand
	if lc.SubcommandOpen {
		return ls == "" || rs == ls || strings.HasPrefix(rs, ls+" "), true
	}
	if rs != ls && !(rc.prefix && (rs == "" || strings.HasPrefix(ls, rs+" "))) {
		return false, false
	}
	if lc.Open != "" {
		return true, true
	}
	if rc.openOnly {
		return false, false
	}
	for i, ro := range rc.inv.Options {
		found := false
		for _, lo := range lc.Options {
			if lo.Name == ro.Name && (!ro.HasValue || matchOperand(rc.vals[i], lo.Value, home)) {
				found = true
				break
			}
		}
		if !found {
			return false, false
		}
	}
	ops := lc.Operands
	if !rc.prefix && len(ops) != len(rc.ops) {
		return false, false
	}
	j := 0
	for _, o := range ops {
		if j < len(rc.ops) && matchOperand(rc.ops[j], o, home) {
			j++
		} else if !rc.prefix {
			return false, false
		}
	}
	return j == len(rc.ops), false
}

// matchOperand matches a leaf's word against a rule's: a word only known
// at run time may be anything; paths are compared cleaned; a rule word
// starting with ~ also stands for the home directory.
func matchOperand(r ruleWord, s, home string) bool {
	if strings.Contains(s, dyn) {
		return true
	}
	s = cleanOperand(s)
	if matchWord(r, s) {
		return true
	}
	if home != "" && home != "/" && strings.HasPrefix(r.parts[0], "~") && (len(r.parts[0]) == 1 || r.parts[0][1] == '/') {
		parts := append([]string{home + r.parts[0][1:]}, r.parts[1:]...)
		if len(parts) == 1 {
			parts[0] = cleanOperand(parts[0])
		}
		return matchWord(ruleWord{parts: parts}, s)
	}
	return false
}

// String returns the rule content.
func (p *Pattern) String() string { return p.content }

// Match reports whether the pattern matches one argv.
func (p *Pattern) Match(argv []string) bool {
	if p == nil {
		return false
	}
	if p.all {
		return true
	}
	if p.first != "" && (len(argv) == 0 || argv[0] != p.first) {
		return false
	}
	// Wildcard matching over words, backtracking to the last word wildcard.
	ti, ai := 0, 0
	star, mark := -1, 0
	for ai < len(argv) {
		if ti < len(p.toks) && p.toks[ti].onlyStars() {
			star, mark = ti, ai
			ti++
			continue
		}
		if ti < len(p.toks) && matchWord(p.toks[ti], argv[ai]) {
			ti++
			ai++
			continue
		}
		if star < 0 {
			return false
		}
		ti = star + 1
		mark++
		ai = mark
	}
	for ti < len(p.toks) && p.toks[ti].onlyStars() {
		ti++
	}
	return ti == len(p.toks)
}

// matchWord matches one word against a rule word with in-word stars.
func matchWord(r ruleWord, s string) bool {
	if len(r.parts) == 1 {
		return r.parts[0] == s
	}
	first, last := r.parts[0], r.parts[len(r.parts)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	s = s[len(first) : len(s)-len(last)]
	for _, mid := range r.parts[1 : len(r.parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return true
}

// views are the argvs deny and ask rules see for a leaf: every wrapper
// level, the leaf, what allow rules see, and the same with a path-qualified
// program reduced to its basename and the home directory written as ~.
func (a *Analysis) views(lf *Leaf, fn func([]string) bool) bool {
	return a.viewsOf(lf, fn, false)
}

// viewsOf is views; with ownOnly, without the views of what an unmodelled
// program may run (Leaf.operandViews).
func (a *Analysis) viewsOf(lf *Leaf, fn func([]string) bool, ownOnly bool) bool {
	try := func(v []string) bool {
		if len(v) == 0 {
			return false
		}
		if fn(v) {
			return true
		}
		if strings.Contains(v[0], "/") {
			b := append([]string{path.Base(v[0])}, v[1:]...)
			if fn(b) {
				return true
			}
			if t, ok := tildeView(b, a.home); ok && fn(t) {
				return true
			}
		}
		if t, ok := tildeView(v, a.home); ok && fn(t) {
			return true
		}
		return false
	}
	for _, l := range lf.Layers {
		if try(l) {
			return true
		}
	}
	if try(lf.Argv) || try(lf.AllowArgv) {
		return true
	}
	if v, ok := subcommandView(lf); ok && try(v) {
		return true
	}
	if v, ok := a.spelledSubcommandView(lf); ok && try(v) {
		return true
	}
	if ownOnly {
		return false
	}
	for _, v := range lf.operandViews {
		if try(v) {
			return true
		}
	}
	return false
}

// subcommandView drops the global options before a subcommand, so that a
// deny rule "git push:*" also hits "git -C dir --no-pager push".
func subcommandView(lf *Leaf) ([]string, bool) {
	if lf.Subcommand == "" || len(lf.Argv) < 3 {
		return nil, false
	}
	first, _, _ := strings.Cut(lf.Subcommand, " ")
	for i := 2; i < len(lf.Argv); i++ {
		if lf.Argv[i] == first {
			return append([]string{lf.Argv[0]}, lf.Argv[i:]...), true
		}
	}
	return nil, false
}

// spelledSubcommandView is the leaf's argv with its subcommand written as
// the program runs it and the global options before it dropped, so that a
// literal deny rule "npm publish" also hits "npm pub" and "docker run x"
// hits "docker container run x" (docs/rules.md, "Spellings Bash rules see
// through").
func (a *Analysis) spelledSubcommandView(lf *Leaf) ([]string, bool) {
	if lf.Subcommand == "" {
		return nil, false
	}
	for i := range a.Leaves {
		if &a.Leaves[i] != lf {
			continue
		}
		lc := a.canonical()[i]
		inv := &lc.inv
		if !lc.ok || !inv.SubcommandAlias || inv.SubcommandOpen || inv.SubcommandEnd <= 1 || inv.SubcommandEnd > len(lf.Argv) {
			return nil, false
		}
		sub := strings.Split(inv.Subcommand, " ")
		view := make([]string, 0, 1+len(sub)+len(lf.Argv)-inv.SubcommandEnd)
		view = append(append(append(view, lf.Argv[0]), sub...), lf.Argv[inv.SubcommandEnd:]...)
		if slices.Equal(view, lf.Argv) {
			return nil, false
		}
		return view, true
	}
	return nil, false
}

// tildeView writes the home directory as ~ in argv, for rules such as "rm -rf ~".
func tildeView(argv []string, home string) ([]string, bool) {
	if home == "" || home == "/" {
		return nil, false
	}
	var out []string
	for i, s := range argv {
		if s == home || strings.HasPrefix(s, home+"/") {
			if out == nil {
				out = append([]string(nil), argv...)
			}
			out[i] = "~" + s[len(home):]
		}
	}
	return out, out != nil
}

// MatchAny returns the index of the first pattern that matches any leaf,
// seen through every wrapper, or -1. Deny and ask rules use it. The leaves
// of an unanalysable or truncated command that were found are matched too,
// and for a command that does not parse, the word runs between its shell
// operators (bash accepts some input the parser rejects: deny rules must
// still see "rm" in it). Rules are also matched flag-aware, and a command
// or leaf that runs what permopa cannot see hits every rule (see the rule
// grammar above).
func (a *Analysis) MatchAny(patterns []*Pattern) int {
	if a == nil {
		return -1
	}
	if a.uncertain() != "" {
		return firstNonNil(patterns)
	}
	return a.MatchCertain(patterns)
}

// MatchCertain is MatchAny without the uncertainty: the index of the first
// pattern that a leaf the command shows matches (literally, flag-aware, or
// through what a program permopa does not model may run), or -1, whether or
// not the command also runs what permopa cannot see (Uncertain). The policy
// tells a certain match of a deny rule from one that is only possible
// (docs/decision.md, point 1).
func (a *Analysis) MatchCertain(patterns []*Pattern) int {
	if a == nil {
		return -1
	}
	if len(a.Leaves) == 0 && len(a.crude) == 0 {
		return -1
	}
	if len(patterns) >= indexThreshold {
		return a.MatchCertainSet(indexFor(patterns))
	}
	firsts := a.firstWords()
	hashes := make([]uint64, len(firsts))
	for i, f := range firsts {
		hashes[i] = maphash.String(firstSeed, f)
	}
	for i, p := range patterns {
		if p == nil {
			continue
		}
		if p.first != "" {
			found := false
			for _, h := range hashes {
				if h == p.firstHash {
					found = true
					break
				}
			}
			if !found {
				continue
			}
		}
		if a.matchesAnyLeaf(p) {
			return i
		}
	}
	return -1
}

func firstNonNil(patterns []*Pattern) int {
	for i, p := range patterns {
		if p != nil {
			return i
		}
	}
	return -1
}

// Uncertain says why the command runs something permopa cannot see (inline
// interpreter code, a package's program, a script from stdin, a command
// name only known at run time, a construct the analyser does not model),
// with words only known at run time shown as $…; "" when it runs nothing
// of the kind. Every deny and ask rule may match such a command.
func (a *Analysis) Uncertain() string {
	if a == nil {
		return ""
	}
	return printableWord(a.uncertain())
}

// uncertain says why the command runs something permopa cannot see, ""
// when it does not: every deny and ask rule then hits it.
func (a *Analysis) uncertain() string {
	if a.hidden != "" {
		return a.hidden
	}
	for i := range a.Leaves {
		if r := a.Leaves[i].RunsUnknown; r != "" {
			return r
		}
	}
	return ""
}

func (a *Analysis) matchesAnyLeaf(p *Pattern) bool {
	for i := range a.Leaves {
		if a.views(&a.Leaves[i], p.Match) {
			return true
		}
	}
	for _, argv := range a.crude {
		if a.views(&Leaf{Argv: argv}, p.Match) {
			return true
		}
	}
	if p.canon != nil {
		for i := range a.Leaves {
			if a.canonHit(i, p) {
				return true
			}
		}
	}
	return false
}

// canonHit reports whether p, read with its program's flag spec, hits leaf i.
func (a *Analysis) canonHit(i int, p *Pattern) bool {
	if p.canon == nil {
		return false
	}
	lc := a.canonical()[i]
	if lc.ok {
		if hit, _ := p.canon.matches(&lc.inv, a.home); hit {
			return true
		}
	}
	for j := range lc.extra {
		if hit, _ := p.canon.matches(&lc.extra[j], a.home); hit {
			return true
		}
	}
	return false
}

// MatchReason says why a deny or ask rule content matches the command:
// "" when a leaf matches its words literally, else the reason (a leaf that
// carries the rule's options in another spelling, a command name only known
// at run time, code permopa cannot read, ...). It is meant for the decision's
// message, once a rule has matched; "" too when the rule does not match.
func (a *Analysis) MatchReason(p *Pattern) string {
	if a == nil || p == nil {
		return ""
	}
	for i := range a.Leaves {
		if a.viewsOf(&a.Leaves[i], p.Match, true) {
			// A command a script runs: say where it is written
			// (scripts.go), "package.json:12 script clean runs rm -rf dist".
			if lf := &a.Leaves[i]; lf.Script != "" && p.Match(lf.Argv) {
				return lf.Script + " runs " + printableWord(strings.Join(lf.Argv, " "))
			}
			return ""
		}
	}
	for _, argv := range a.crude {
		if a.views(&Leaf{Argv: argv}, p.Match) {
			return ""
		}
	}
	if p.canon != nil {
		for i, lc := range a.canonical() {
			if !lc.ok {
				continue
			}
			if hit, open := p.canon.matches(&lc.inv, a.home); hit {
				shown := strings.Join(a.Leaves[i].Argv, " ")
				if s := a.Leaves[i].Script; s != "" {
					shown = s + " runs " + shown
				}
				if open {
					reason := lc.inv.Open
					if lc.inv.SubcommandOpen {
						reason = "its subcommand is only known at run time"
					}
					return "permopa cannot tell which options " + printableWord(shown) + " carries (" + printableWord(reason) + ")"
				}
				if len(p.canon.inv.Options) == 0 && len(p.canon.ops) == 0 {
					return printableWord(shown) + " runs the rule's subcommand (" + p.canon.inv.Subcommand + ") under another spelling"
				}
				return printableWord(shown) + " carries the rule's options (flag-aware match)"
			}
		}
	}
	// What a program permopa does not model may run (Leaf.operandViews):
	// words the command shows, so before the uncertainty.
	for i, lc := range a.canonical() {
		hit := a.views(&a.Leaves[i], p.Match)
		for j := 0; !hit && p.canon != nil && j < len(lc.extra); j++ {
			hit, _ = p.canon.matches(&lc.extra[j], a.home)
		}
		if hit {
			return printableWord(a.Leaves[i].Program) + " is a program permopa does not model, and it may run its arguments as a command"
		}
	}
	if r := a.uncertain(); r != "" {
		return "permopa cannot tell what the command runs: " + printableWord(r)
	}
	return ""
}

// printableWord shows words only known at run time as $….
func printableWord(s string) string {
	return strings.ReplaceAll(s, dyn, "$…")
}

// firstWords are the program names of every view, for fast rejection.
func (a *Analysis) firstWords() []string {
	var out []string
	for i := range a.Leaves {
		a.views(&a.Leaves[i], func(v []string) bool {
			out = appendUnique(out, v[0])
			return false
		})
	}
	for _, argv := range a.crude {
		a.views(&Leaf{Argv: argv}, func(v []string) bool {
			out = appendUnique(out, v[0])
			return false
		})
	}
	return out
}

// Covered reports whether every leaf is read-only (and writes nothing by
// redirection) or has its AllowArgv matched by some pattern, and the index
// of the first pattern used (-1 when the call is covered by read-only
// leaves alone). Allow rules use it. "First" is the lowest index among the
// patterns that covered a leaf. An unanalysable or truncated command is
// never covered, nor is a leaf that writes a file by redirection, and a
// pattern covers a leaf only when it spells out the leaf's CodeWords.
func (a *Analysis) Covered(patterns []*Pattern) (index int, ok bool) {
	return a.covered(firstMatcher(patterns))
}

func (a *Analysis) covered(first func(argv []string, literal int) int) (int, bool) {
	if a == nil || !a.Analysable || a.Truncated || a.uncoverable || len(a.Leaves) == 0 {
		return -1, false
	}
	used := -1
	for i := range a.Leaves {
		lf := &a.Leaves[i]
		if !lf.needsRule() {
			continue
		}
		idx := lf.coveredBy(first)
		if idx < 0 {
			return -1, false
		}
		if used < 0 || idx < used {
			used = idx
		}
	}
	return used, true
}

// coveredBy is the index of the first allow rule that covers a leaf that
// needs one, or -1.
func (lf *Leaf) coveredBy(first func(argv []string, literal int) int) int {
	if lf.RedirectWrites {
		// A write by redirection is decided by path rules and the
		// mode, not by a rule for the program.
		return -1
	}
	return first(lf.AllowArgv, lf.CodeWords)
}

// covers reports whether p covers argv for a leaf whose first literal
// words must be spelled out.
func (p *Pattern) covers(argv []string, literal int) bool {
	return p != nil && (literal == 0 || p.literal >= literal) && p.Match(argv)
}

// PatternSet indexes patterns by their leading literal words (up to
// maxKeyWords) so that matching costs about the same for ten thousand rules
// as for ten, also when many rules share a program ("git push ..."). Build
// it once per rule set; it is safe for concurrent use.
type PatternSet struct {
	// byFirst holds the patterns by their literal first word.
	byFirst  map[string]*firstBucket
	wildcard []int // patterns without a literal first word
	// canon are the flag-aware patterns by program, subcommand, first
	// option and last operand (each "" when the rule has none or it is a
	// glob): a leaf looks up only the keys it carries. canonAll are all of
	// a program's, for leaves whose options or operands cannot all be seen.
	canon    map[canonKey][]int
	canonAll map[string][]int
	patterns []*Pattern
}

// firstBucket is the patterns of one first word: those with one leading
// literal word, and, when there are many, the others by the hash of their
// leading literal words (up to maxKeyWords; depth is the longest key).
type firstBucket struct {
	ids    []int
	deeper map[uint64][]int
	depth  int
}

// maxKeyWords caps the leading literal words a pattern is indexed by;
// deepAfter is the bucket size from which a first word's patterns are
// indexed by more words.
const (
	maxKeyWords = 6
	deepAfter   = 32
)

// nextKey extends a prefix hash by one word.
func nextKey(h *maphash.Hash, w string) uint64 {
	h.WriteString(w)
	h.WriteByte(0)
	return h.Sum64()
}

// canonKey is the PatternSet index key of a flag-aware rule or a leaf.
type canonKey struct{ program, sub, option, operand string }

// NewPatternSet indexes patterns; indices in results are positions in patterns.
func NewPatternSet(patterns []*Pattern) *PatternSet {
	s := &PatternSet{byFirst: map[string]*firstBucket{}, patterns: patterns}
	for i, p := range patterns {
		switch {
		case p == nil:
		case p.first != "":
			b := s.byFirst[p.first]
			if b == nil {
				b = &firstBucket{}
				s.byFirst[p.first] = b
			}
			b.ids = append(b.ids, i)
		default:
			s.wildcard = append(s.wildcard, i)
		}
		if p != nil && p.canon != nil {
			if s.canon == nil {
				s.canon, s.canonAll = map[canonKey][]int{}, map[string][]int{}
			}
			inv := &p.canon.inv
			k := canonKey{program: inv.Program, sub: inv.Subcommand}
			if len(inv.Options) > 0 {
				k.option = inv.Options[0].Name
			}
			for j := len(p.canon.ops) - 1; j >= 0; j-- {
				if r := p.canon.ops[j]; len(r.parts) == 1 && !strings.HasPrefix(r.parts[0], "~") {
					k.operand = r.parts[0]
					break
				}
			}
			s.canon[k] = append(s.canon[k], i)
			s.canonAll[inv.Program] = append(s.canonAll[inv.Program], i)
		}
	}
	var h maphash.Hash
	for _, b := range s.byFirst {
		if len(b.ids) < deepAfter {
			continue
		}
		var shallow []int
		b.deeper = map[uint64][]int{}
		for _, i := range b.ids {
			p := patterns[i]
			n := min(p.literal, maxKeyWords)
			if n < 2 {
				shallow = append(shallow, i)
				continue
			}
			h.SetSeed(firstSeed)
			var key uint64
			for _, t := range p.toks[1:n] {
				key = nextKey(&h, t.parts[0])
			}
			b.deeper[key] = append(b.deeper[key], i)
			b.depth = max(b.depth, n)
		}
		b.ids = shallow
	}
	return s
}

// firstMatch returns the lowest index of a pattern covering argv (see
// covers), or -1.
func (s *PatternSet) firstMatch(argv []string, literal int) int {
	best := -1
	check := func(ids []int) {
		for _, i := range ids {
			if best >= 0 && i >= best {
				return
			}
			if s.patterns[i].covers(argv, literal) {
				best = i
				return
			}
		}
	}
	if len(argv) > 0 {
		if b := s.byFirst[argv[0]]; b != nil {
			check(b.ids)
			if b.deeper != nil {
				var h maphash.Hash
				h.SetSeed(firstSeed)
				for k := 1; k < len(argv) && k < b.depth; k++ {
					check(b.deeper[nextKey(&h, argv[k])])
				}
			}
		}
	}
	check(s.wildcard)
	return best
}

// MatchAnySet is MatchAny over an indexed pattern set.
func (a *Analysis) MatchAnySet(s *PatternSet) int {
	if a == nil || s == nil {
		return -1
	}
	if a.uncertain() != "" {
		return firstNonNil(s.patterns)
	}
	return a.MatchCertainSet(s)
}

// MatchCertainSet is MatchCertain over an indexed pattern set.
func (a *Analysis) MatchCertainSet(s *PatternSet) int {
	if a == nil || s == nil {
		return -1
	}
	best := -1
	visit := func(v []string) bool {
		if idx := s.firstMatch(v, 0); idx >= 0 && (best < 0 || idx < best) {
			best = idx
		}
		return best == 0
	}
	for i := range a.Leaves {
		a.views(&a.Leaves[i], visit)
	}
	for _, argv := range a.crude {
		a.views(&Leaf{Argv: argv}, visit)
	}
	if s.canon != nil && best != 0 {
		check := func(ids []int, inv *flagspec.Invocation) {
			for _, i := range ids {
				if best >= 0 && i >= best {
					return
				}
				if hit, _ := s.patterns[i].canon.matches(inv, a.home); hit {
					best = i
					return
				}
			}
		}
		var invs []*flagspec.Invocation
		for _, lc := range a.canonical() {
			if lc.ok {
				invs = append(invs, &lc.inv)
			}
			for j := range lc.extra {
				invs = append(invs, &lc.extra[j])
			}
		}
		for _, inv := range invs {
			if inv.Open != "" || inv.SubcommandOpen || slices.ContainsFunc(inv.Operands, func(o string) bool {
				return strings.Contains(o, dyn)
			}) {
				check(s.canonAll[inv.Program], inv)
				continue
			}
			// Rules for the leaf's subcommand or a leading part of it,
			// keyed by an option the leaf carries, or by an operand it
			// carries, or by nothing.
			sub := inv.Subcommand
			for {
				for j := -1; j < len(inv.Options); j++ {
					k := canonKey{program: inv.Program, sub: sub}
					if j >= 0 {
						k.option = inv.Options[j].Name
						if slices.ContainsFunc(inv.Options[:j], func(p flagspec.Option) bool { return p.Name == k.option }) {
							continue
						}
					}
					check(s.canon[k], inv)
					for _, o := range inv.Operands {
						k.operand = cleanOperand(o)
						check(s.canon[k], inv)
					}
				}
				if sub == "" {
					break
				}
				if k := strings.LastIndexByte(sub, ' '); k >= 0 {
					sub = sub[:k]
				} else {
					sub = ""
				}
			}
		}
	}
	return best
}

// CoveredLists is Covered over several pattern lists taken together (the
// allow rules of several sources: each leaf may be covered by a rule of any
// list), without joining them. The rule used is reported as its list and
// its index in that list: the first in list order, then index order.
func (a *Analysis) CoveredLists(lists [][]*Pattern) (list, index int, ok bool) {
	return a.CoveredListsIndexed(lists, nil)
}

// IndexList is the index MatchAny and Covered use for a list as long as
// ps, nil for a short list (they scan it). A caller that keeps compiled
// lists (the built-ins, per data revision) keeps this beside them and calls
// MatchAnySet, CoveredSet and CoveredListsIndexed, so that no call has to
// find the index of its list again.
func IndexList(ps []*Pattern) *PatternSet {
	if len(ps) < indexThreshold {
		return nil
	}
	return NewPatternSet(ps)
}

// CoveredListsIndexed is CoveredLists with the lists' indexes (IndexList)
// given: sets[j] is lists[j]'s, or nil (sets may be nil).
func (a *Analysis) CoveredListsIndexed(lists [][]*Pattern, sets []*PatternSet) (list, index int, ok bool) {
	offsets := make([]int, len(lists))
	total := 0
	for j, ps := range lists {
		offsets[j] = total
		total += len(ps)
	}
	firsts := firstMatchers(lists, sets)
	flat, ok := a.covered(func(argv []string, literal int) int {
		for j, first := range firsts {
			if i := first(argv, literal); i >= 0 {
				return offsets[j] + i
			}
		}
		return -1
	})
	if !ok || flat < 0 {
		return -1, -1, ok
	}
	for j := len(lists) - 1; j >= 0; j-- {
		if flat >= offsets[j] && len(lists[j]) > 0 {
			return j, flat - offsets[j], true
		}
	}
	return -1, -1, ok
}

// firstMatchers are the firstMatcher of each list, through its index
// when the caller keeps one.
func firstMatchers(lists [][]*Pattern, sets []*PatternSet) []func([]string, int) int {
	firsts := make([]func([]string, int) int, len(lists))
	for j, ps := range lists {
		if j < len(sets) && sets[j] != nil {
			firsts[j] = sets[j].firstMatch
		} else {
			firsts[j] = firstMatcher(ps)
		}
	}
	return firsts
}

// firstMatcher returns what gives the lowest index of a pattern of ps
// covering argv, or -1; a long list goes through its (cached) index, looked
// up once per call rather than once per leaf.
func firstMatcher(ps []*Pattern) func([]string, int) int {
	if len(ps) >= indexThreshold {
		return indexFor(ps).firstMatch
	}
	return func(argv []string, literal int) int {
		for i, p := range ps {
			if p.covers(argv, literal) {
				return i
			}
		}
		return -1
	}
}

// CoveredSet is Covered over an indexed pattern set.
func (a *Analysis) CoveredSet(s *PatternSet) (int, bool) {
	if s == nil {
		return a.Covered(nil)
	}
	return a.covered(s.firstMatch)
}

// indexThreshold is the rule count from which MatchAny and Covered use an index.
const indexThreshold = 64

// recentSets remembers the indexes of the last pattern slices seen, so
// that a caller passing the same (cached) slice on every call gets indexed
// matching without building a PatternSet itself. An entry is reused only
// when the slice still holds exactly the same patterns.
var recentSets struct {
	sync.Mutex
	next    int
	entries [8]struct {
		patterns []*Pattern // a copy of the slice indexed
		set      *PatternSet
	}
}

func indexFor(patterns []*Pattern) *PatternSet {
	recentSets.Lock()
	for i := range recentSets.entries {
		e := &recentSets.entries[i]
		if len(e.patterns) == len(patterns) && len(patterns) > 0 && e.patterns[0] == patterns[0] &&
			slices.Equal(e.patterns, patterns) {
			recentSets.Unlock()
			return e.set
		}
	}
	recentSets.Unlock()
	set := NewPatternSet(append([]*Pattern(nil), patterns...))
	recentSets.Lock()
	e := &recentSets.entries[recentSets.next]
	e.patterns, e.set = set.patterns, set
	recentSets.next = (recentSets.next + 1) % len(recentSets.entries)
	recentSets.Unlock()
	return set
}

// needsRule reports a leaf an allow rule must cover: one that is not
// read-only, or a read-only program that writes a file by redirection.
func (lf *Leaf) needsRule() bool {
	return !lf.ReadOnly || len(lf.Writes) > 0 || lf.RunsUnknown != ""
}

// maxOperandViews bounds the views of one leaf's operands; a leaf with
// more words than that runs what permopa does not look at (RunsUnknown).
const maxOperandViews = 512

// unmodelledViews are the argvs deny and ask rules see in the operands of a
// program the vocabulary does not model, which may run them as a command:
// every suffix of argv from its second word (toybox rm x, ssh-agent rm x,
// firejail --quiet rm x), and every suffix of the words of each operand
// and of the text on its stdin that looks like a command line, split at
// blanks, shell operators, '=' and ':' (tmux new 'rm x', socat -
// EXEC:'rm x', nc -e 'ls;rm x', sqlite3 db '.shell rm x', ed f <<< '!rm x').
// ok is false when there are more than maxOperandViews.
func unmodelledViews(argv []string, stdin *string) (views [][]string, ok bool) {
	for i := 1; i < len(argv); i++ {
		views = append(views, argv[i:])
	}
	texts := argv[1:]
	if stdin != nil {
		texts = append(texts[:len(texts):len(texts)], *stdin)
	}
	for _, a := range texts {
		if !strings.ContainsAny(a, commandLineSeps) {
			continue
		}
		fields := strings.FieldsFunc(a, func(r rune) bool { return strings.ContainsRune(commandLineSeps, r) })
		for j := range fields {
			views = append(views, fields[j:])
		}
		if len(views) > maxOperandViews {
			return nil, false
		}
	}
	return views, len(views) <= maxOperandViews
}

// commandLineSeps separate the words of a command line held in one word:
// blanks, shell operators and quotes, and the '=' and ':' of option values
// and addresses (--exec=CMD, EXEC:CMD), and '!' (ed's and vim's shell escape).
const commandLineSeps = " \t\n\r;&|()<>`'\"$=:!{}"
