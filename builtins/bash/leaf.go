package bash

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/permopa/permopa/builtins/flagspec"
	"github.com/permopa/permopa/builtins/paths"
)

// harmlessOperands are programs for which any extra operand or option an
// unknown expansion could add keeps them read-only.
// (Not printf: "printf -v PATH x" assigns a variable.)
var harmlessOperands = map[string]bool{"echo": true, "true": true, "false": true, ":": true, "test": true, "[": true,
	"ps": true} // ps: every argument selects or formats what is printed

// reserve makes room for one more leaf, or records that the cap was hit.
func (w *walker) reserve() bool {
	if w.stop {
		return false
	}
	if len(w.res.Leaves) >= w.maxLeaves {
		w.res.Truncated = true
		w.stop = true
		w.unanalysable("more than the maximum number of leaf commands")
		return false
	}
	return true
}

// leaf emits one leaf command judged by the vocabulary.
func (w *walker) leaf(fr frame, st state, argv []word, reason string) {
	w.leafStrs(fr, st, argv, nil, reason)
}

// leafStrs is leaf with the argv strings already computed (or nil).
func (w *walker) leafStrs(fr frame, st state, argv []word, sv []string, reason string) {
	if len(argv) == 0 || !w.reserve() {
		return
	}
	if alts := loopAlternatives(fr.loopVars, argv); alts != nil {
		// One leaf per value of the loop variables it names: each runs.
		fr.loopVars = nil
		for _, alt := range alts {
			w.leafStrs(fr, st, alt, nil, reason)
		}
		return
	}
	var findRoots map[int]bool
	if argv[0].s == "find" {
		argv, _ = w.literalUnmatchedGlobs(argv, st)
		argv, findRoots = w.findGlobWords(argv, st)
	}
	// A glob operand (du -sh *, grep -r x *) in a working directory where
	// no name starts with "-" now (dataflow.go): judged as the glob where
	// the program reads it as a path (below).
	optionless, globWhy := w.globsNoOptionNow(argv, st)
	if sv == nil {
		sv = strs(argv)
	}
	prog := sv[0]
	base := prog
	if strings.Contains(prog, "/") {
		base = path.Base(prog)
	}
	judge := sv
	if base != prog || fr.placeholder != "" {
		judge = make([]string, len(sv))
		copy(judge, sv)
		judge[0] = base
	}
	historyFile := false // history -r "$HISTFILE": the word names the history file
	if base == "history" && base == prog {
		judge, fr, historyFile = w.historyJudge(argv, judge, fr)
	}
	if fr.blindRest && base == prog {
		judge = endOfShellJudge(judge, fr.tail)
	}
	var textValues map[int]bool // words that are an option's value whatever they hold
	if base == "read" && base == prog {
		judge, textValues = w.readJudge(argv, judge)
	} else if base == prog && fr.placeholder == "" {
		// A quoted run-time word that is an option's text value
		// (find -newermt "$d", date -d "$x"; substvalues.go).
		judge, textValues = optionTextValues(argv, judge)
	}
	if historyFile {
		textValues = map[int]bool{2: true}
	}
	// The value of each supplied word: a path under known roots
	// (pathMark, dataflow.go) or anything (dyn).
	supplied := dyn
	if fr.dataRoots != nil && !markInArgv(judge) {
		supplied = pathMark
	}
	if supplied == dyn && !markInArgv(judge) {
		// Words that are command substitutions of a known producer
		// (substvalues.go): paths under roots, numbers.
		if sfr, sargv, sjudge, ok := w.substJudge(fr, argv, judge); ok {
			fr, argv, judge = sfr, sargv, sjudge
			if fr.dataRoots != nil {
				supplied = pathMark
			}
		}
	}
	if fr.placeholder != "" {
		for i := 1; i < len(judge); i++ {
			judge[i] = strings.ReplaceAll(judge[i], fr.placeholder, supplied)
		}
	}
	var v flagspec.Verdict
	switch {
	case base == "command" && len(argv) > 1 && isLookupFlag(argv[1].s),
		base == "command" && len(sv) == 1 && !fr.appends:
		// command -v NAME looks NAME up; command alone runs nothing (but
		// xargs command runs the words it appends).
		v = flagspec.Verdict{Known: true, ReadOnly: true}
	case supplied == pathMark:
		if j, jv := judgeSupplied(judge, fr); jv.ReadOnly {
			judge, v = j, jv
			break
		}
		// Provenance only ever makes a leaf read-only: one that is not
		// is judged as before, its supplied words unknown (and xargs'
		// appended words not in its argv at all: env, nice).
		supplied = dyn
		reason = firstNonEmpty(reason, innermostWrapper(fr.wrappers)+" supplies words that make "+base+" not read-only")
		for i := 1; i < len(judge); i++ {
			judge[i] = strings.ReplaceAll(judge[i], pathMark, dyn)
		}
		v = flagspec.Judge(judge)
	default:
		v = flagspec.Judge(judge)
	}
	if kind, _ := flagspec.RunsCode(base); kind == flagspec.Interpreter && !v.ReadOnly && v.RunsUnknown == "" && v.CodeWords == 0 && fr.unknown == "" {
		// python3 x.py, node x.js, python3 -m pytest: a program permopa
		// does not read, as uncertain as inline code (docs/rules.md). A
		// prefix rule for the interpreter still covers it, as it covers
		// inline code.
		v.RunsUnknown = base + " runs " + firstNonEmpty(firstOperand(judge), "code") + ", a program permopa does not read"
		v.CodeWords = 1
	}
	if v.RunsData != "" {
		// As unknowable as eval of a run-time string: a safety ASK that
		// a tool-wide allow rule does not lift (docs/shell.md).
		w.unanalysableSeen(v.RunsData)
	}
	if v.RunsUnknown != "" && v.CodeWords > 0 && (fr.appends || fr.placeholder != "") {
		// The code word is the data xargs appends (xargs python3 -c,
		// xargs node -e) or holds the path find -exec or xargs -I
		// supplies (-exec python3 -c 'import {}'): data run as code.
		code := judge[min(v.CodeWords, len(judge))-1]
		if fr.appends && (strings.HasPrefix(code, "-") || strings.Contains(code, dyn)) || fr.placeholder != "" && strings.Contains(code, dyn) {
			w.unanalysableSeen(base + " runs code only known at run time (the data " + fr.wrappers[len(fr.wrappers)-1] + " supplies)")
		}
	}
	dynOK := false
	if at, splits := dynamicWords(argv); len(at) > 0 && !harmlessOperands[base] && fr.placeholder == "" && !fr.appends &&
		len(judge) == len(argv) {
		// A word only known at run time that may be an option, no word or
		// several: harmless when the program's spec lists every option
		// and none of them, nor "--", changes what the call does
		// (flagspec.DynamicWordsHarmless; docs/shell.md, "Values and
		// where they come from").
		if dv, ok := flagspec.DynamicWordsHarmless(judge, at, splits); ok {
			v, dynOK = dv, true
		}
	}
	if fr.appendsText != "" && supplied == dyn && fr.placeholder == "" && !harmlessOperands[base] {
		// xargs CMD fed any text: what it appends is an unquoted word
		// only known at run time at the end of the argv (dataflow.go,
		// xargsAppendsText).
		at, splits := dynamicWords(argv)
		ok := false
		if len(judge) == len(argv) {
			var dv flagspec.Verdict
			dv, ok = flagspec.DynamicWordsHarmless(append(slices.Clone(judge), dyn), append(at, len(judge)), append(splits, true))
			if ok {
				v, dynOK = dv, true
			}
		}
		if !ok && v.ReadOnly {
			v.ReadOnly, v.Reason = false, fr.appendsText
		}
	}
	if len(optionless) > 0 && len(judge) == len(argv) {
		// Only where the program reads the word as a file (or a tree):
		// in awk's program, jq's filter or grep's pattern the names would
		// be code or text the judgement did not see (awk * runs a file
		// named 'BEGIN{system("id")}').
		skip := map[int]bool{}
		for i := range findRoots {
			skip[i] = true
		}
		for i := range optionless {
			if !skip[i] && verdictReads(v, judge[i]) {
				skip[i] = true
				w.namesNow(listedBare) // the names are operands (namesnow.go)
			}
		}
		findRoots = skip
	}
	globRisk := leadingGlobs(argv, judge, findRoots)
	if globRisk != nil && v.ReadOnly {
		// A file named "--pre=sh" matches *: judge the glob as a word
		// that may be an option.
		if v2 := flagspec.Judge(globRisk); !v2.ReadOnly {
			v.ReadOnly = false
			v.Reason = "a glob may expand to options: " + v2.Reason
			if globWhy != "" {
				v.Reason = "a glob may expand to options (" + globWhy + "): " + v2.Reason
			}
		} else {
			// A file named --paging=always may turn the terminal on.
			v.Terminal = firstNonEmpty(v.Terminal, v2.Terminal)
		}
	}
	if many := severalMatches(argv, judge, globRisk); many != nil && v.ReadOnly {
		// A glob is one or more words: uniq ./*.txt runs uniq a.txt
		// b.txt, which writes b.txt.
		if v2 := flagspec.Judge(many); !v2.ReadOnly {
			v.ReadOnly = false
			v.Reason = "a glob may expand to several words: " + v2.Reason
		} else {
			v.Terminal = firstNonEmpty(v.Terminal, v2.Terminal)
		}
	}
	if !v.ReadOnly && strings.Contains(v.Reason, "$…") {
		// A substitution whose names at decision time failed: say which
		// (substvalues.go; the reason only).
		for _, a := range argv {
			if a.provWhy != nil {
				v.Reason += " ($(…): " + *a.provWhy + ")"
				break
			}
		}
	}
	if r := shellStateChange(base, sv); r != "" {
		v.ReadOnly = false
		v.Reason = r
	}
	if w.opts.StdinTerminal && v.Terminal != "" && v.ReadOnly && !(base == "git" && w.opts.GitPagerCat && keepsEnvironment(fr.wrappers)) {
		// What the agent types into the terminal later (Codex's
		// write_stdin) would be the program's commands, which no hook
		// sees (docs/shell.md, "Terminal input").
		v.ReadOnly = false
		v.Reason = base + " " + v.Terminal + ", and the agent can type into its terminal after the call"
	}
	var configDirs []string
	if base == "git" {
		r, dirs := w.gitLeaf(st, judge)
		if r != "" && v.ReadOnly {
			v.ReadOnly = false
			v.Reason = r
		}
		configDirs = dirs
	} else if paths.ConfigPrograms[base] && v.ReadOnly {
		switch {
		case st.unknown || len(st.dirs) == 0:
			v.ReadOnly = false
			v.Reason = base + " runs in a directory not known statically: the configuration it loads may be any"
		case w.linksOpaque != "":
			v.ReadOnly = false
			v.Reason = base + " runs after " + w.linksOpaque + ", which may have placed the configuration it loads"
		case base == "go" && goChangesDir(sv):
			// go list -C DIR reads DIR's module and repository, not the
			// directory the call names.
			v.ReadOnly = false
			v.Reason = "go -C runs in another directory, whose repository configuration is not read"
		}
		configDirs = st.dirs
	}
	lf := Leaf{Argv: sv, Program: prog, Wrappers: fr.wrappers, Subcommand: v.Subcommand, Network: v.Network}
	if fr.pasteShow != "" {
		// A place find or xargs pastes a path into is shown as written
		// ({}), for rules and messages (pastescript.go).
		lf.Argv = make([]string, len(sv))
		for i, a := range sv {
			lf.Argv[i] = strings.ReplaceAll(a, pasteMark, fr.pasteShow)
		}
	}
	if !flagspec.Modelled(base) {
		var ok bool
		if lf.operandViews, ok = unmodelledViews(judge, w.stdin); !ok {
			lf.RunsUnknown = base + " is not modelled and its arguments are too many to look for a command in"
		}
	}
	for _, c := range v.CacheWrites {
		// The program's own directories: ~ is the home directory.
		// ~ is the home directory; a relative path is the program's own
		// file relative to where it runs (git's .git/index).
		if strings.HasPrefix(c, "~/") {
			if w.opts.Home != "" {
				lf.CacheWrites = appendUnique(lf.CacheWrites, filepath.Clean(w.opts.Home+c[1:]))
			}
			continue
		}
		if paths, ok := w.resolve(c, st); ok {
			for _, p := range paths {
				lf.CacheWrites = appendUnique(lf.CacheWrites, p)
			}
		}
	}
	ro := v.ReadOnly && reason == ""
	// The wrapper's reason says more than the vocabulary's ("sudo ...", "path-qualified ...").
	why := firstNonEmpty(reason, fr.allForced())
	if !v.ReadOnly {
		why = firstNonEmpty(why, v.Reason)
	}
	dynWrite := false
	addPaths := func(dst *[]string, raw []string, write bool) {
		for _, p := range raw {
			if !write && supplied == pathMark && isPathMark(p) {
				// A supplied path: what it can name is the roots' trees
				// (down to find's -maxdepth, and the entries of a
				// directory there).
				lf.RecursiveReads = appendTrees(lf.RecursiveReads, rootTreesTo(fr.dataRoots, fr.dataDepth)...)
				continue
			}
			paths, ok := w.resolve(p, st)
			if !ok {
				ro = false
				why = firstNonEmpty(why, "path operand is not static")
				if write {
					dynWrite = true
					w.unplacedWrite(len(w.res.Leaves), p)
				}
				if g, ok := dynamicGlob(p); ok {
					// What a read or write only known at run time could
					// name (cat /proc/$$/environ): checked as a glob.
					if gs, ok := w.resolve(g, st); ok {
						for _, q := range gs {
							lf.Touches = appendUnique(lf.Touches, q)
						}
					}
				}
				continue
			}
			for _, q := range paths {
				if !pseudoDevice(q) {
					*dst = appendUnique(*dst, q)
				}
			}
		}
	}
	addPaths(&lf.Reads, v.Reads, false)
	addPaths(&lf.Writes, v.Writes, true)
	extraReads, extraWrites := shellKnownPaths(base, judge)
	addPaths(&lf.Reads, extraReads, false)
	addPaths(&lf.Writes, extraWrites, true)
	for _, t := range v.RecursiveReads {
		if supplied == pathMark && isPathMark(t.Path) {
			lf.RecursiveReads = appendTrees(lf.RecursiveReads, rootTrees(fr.dataRoots)...)
			continue
		}
		roots, ok := w.resolve(t.Path, st)
		if !ok {
			ro = false
			why = firstNonEmpty(why, "the root of a recursive read is not static")
			continue
		}
		for _, q := range roots {
			if !pseudoDevice(q) {
				lf.RecursiveReads = appendTrees(lf.RecursiveReads, Tree{
					Path: q, Hidden: t.Hidden, NamesOnly: t.NamesOnly, Ignores: t.Ignores, ExcludeDirs: t.ExcludeDirs,
					Include: t.Include, Exclude: t.Exclude, IncludeFirst: t.IncludeFirst, MaxDepth: t.MaxDepth,
					SkipsLinks: t.SkipsLinks,
				})
			}
		}
	}
	lf.Environment = v.Environment
	if !v.ReadOnly && (v.Unplaced || len(v.Reads) == 0 && len(v.Writes) == 0) {
		// The vocabulary cannot say which operands are files: every word
		// that is not an option may be one (less ~/.ssh/id_rsa).
		for _, a := range judge[1:] {
			if strings.HasPrefix(a, "-") {
				// A value glued to an option may be a path too
				// (curl -o.permopa/x, 7z x a.7z -o.claude, --out=f).
				a = gluedValue(a)
			}
			if a == "" || strings.HasPrefix(a, "-") || strings.Contains(a, dyn) {
				continue
			}
			if paths, ok := w.resolve(a, st); ok {
				for _, q := range paths {
					if !pseudoDevice(q) {
						lf.Touches = appendUnique(lf.Touches, q)
					}
				}
			} else {
				w.unplacedWrite(len(w.res.Leaves), a)
			}
		}
	}
	for _, p := range fr.reads {
		lf.Reads = appendUnique(lf.Reads, p)
	}
	for _, p := range fr.writes {
		lf.Writes = appendUnique(lf.Writes, p)
	}
	positionalFrom := len(argv)
	if base == "set" && base == prog {
		positionalFrom = setPositionalFrom(argv)
	}
	for i, a := range argv {
		if i == 0 || textValues[i] {
			continue
		}
		if i >= positionalFrom && a.taint == "" {
			// set's positional parameters: what they hold is no option
			// (flagspec.SetOperand); the analysis takes them as unknown.
			continue
		}
		if a.glob && w.globsChanged {
			ro = false
			why = firstNonEmpty(why, "shopt may change what a glob matches (nullglob, dotglob, globstar)")
		}
		if a.taint != "" {
			ro = false
			why = firstNonEmpty(why, a.taint)
		}
		if (a.splits || strings.HasPrefix(a.s, dyn)) && !harmlessOperands[base] && !dynOK {
			ro = false
			why = firstNonEmpty(why, "an expansion may add options or operands")
		}
	}
	if f := fr.allForced(); f != "" {
		ro = false
		why = firstNonEmpty(why, f)
	}
	// The targets of symbolic links the leaf makes are written in effect.
	linkTargets, copiesUnknown := w.leafLinks(fr, st, base, v)
	if base == "rsync" && !v.ReadOnly && len(judge) > 1 {
		ts, unknown := w.rsyncLinks(judge[1:], st)
		linkTargets = append(linkTargets, ts...)
		copiesUnknown = firstNonEmpty(copiesUnknown, unknown)
	}
	for _, t := range linkTargets {
		lf.Writes = appendUnique(lf.Writes, t)
	}
	for _, r := range removedPaths(base, judge, v) {
		if ps, ok := w.resolve(r, st); ok {
			for _, q := range ps {
				w.res.Removals = appendUnique(w.res.Removals, q)
			}
		}
	}
	if dynWrite {
		w.dynWrites = true
	}
	lf.FSCommand = v.FSCommand && !fr.noFS && !dynWrite && copiesUnknown == ""
	if copiesUnknown != "" {
		// The links it makes are not known: no allow rule covers that.
		r := base + " copies the symbolic links below " + copiesUnknown + ", which could not all be looked at"
		ro, why = false, firstNonEmpty(why, r)
		w.unanalysableSeen(r)
	}
	lf.RunsUnknown = firstNonEmpty(firstNonEmpty(v.RunsUnknown, w.runsWritten(base, prog, judge, st)), lf.RunsUnknown)
	lf.RunsUnknown = firstNonEmpty(lf.RunsUnknown, w.shimFileWritten(base, prog))
	if v.CodeWords > 0 {
		allow := fr.allowArgv
		if allow == nil {
			allow = sv
		}
		lf.CodeWords = mapWords(allow, sv, v.CodeWords)
	}
	w.finish(&lf, fr, ro, why)
	if base == "git" || w.res.Leaves[len(w.res.Leaves)-1].ReadOnly {
		// What the program reads from the project decides the rest
		// (docs/shell.md, "What a program reads besides its argv"). Every
		// git command is looked at, as for bare repositories: an allow
		// rule for git grep or git commit is not meant to run what a
		// project's repository configuration names.
		for _, d := range configDirs {
			w.res.ProjectConfigs = appendConfig(w.res.ProjectConfigs, ProjectConfig{Program: base, Dir: d})
		}
	}
	if base == prog && !shellBuiltins[base] && !paths.ConfigPrograms[base] && w.res.Leaves[len(w.res.Leaves)-1].ReadOnly {
		// Which file runs is PATH's choice: the policy looks it up
		// (permopa.path.project_configs; docs/shell.md, "What a program
		// reads besides its argv"). Dir "" is a directory not known
		// statically.
		if st.unknown || len(st.dirs) == 0 {
			w.res.PathPrograms = appendConfig(w.res.PathPrograms, ProjectConfig{Program: base})
		}
		for _, d := range st.dirs {
			w.res.PathPrograms = appendConfig(w.res.PathPrograms, ProjectConfig{Program: base, Dir: d})
		}
	}
	w.removals(len(w.res.Leaves)-1, base, judge, st, v.Recursive)
	// Command lines the program runs (tar --to-command, sed's e command)
	// are walked like sh -c's script, so deny rules see their leaves;
	// allow rules must spell them out.
	for _, c := range v.Commands {
		inner := fr.wrap(c.Source, sv, false, c.Source+" runs a command").withCode(sv, v.CodeWords)
		w.script(c.Line, inner, st, c.Source)
	}
	// A program that runs another one given as its operands (strace,
	// flock, chroot): that command is walked as a wrapped one.
	if v.Runs > 0 && v.Runs < len(argv) {
		w.command(argv[v.Runs:], fr.wrap(base, sv, false, base+" runs a command"), st, nil)
	}
}

// codeFiles are the files a program runs code from when it is given no
// file name (make's makefile, npm's package.json scripts).
var codeFiles = map[string][]string{
	"make": {"Makefile", "makefile", "GNUmakefile"}, "gmake": {"Makefile", "makefile", "GNUmakefile"},
	// The package managers' rc files name code too (yarn-path, pnpmfile;
	// docs/shell.md, "What a program reads besides its argv"): one written
	// earlier in the command is read after the decision looked.
	"npm":  {"package.json", ".npmrc"},
	"pnpm": {"package.json", ".npmrc", ".pnpmfile.cjs", ".pnpmfile.mjs", "pnpmfile.js", "pnpm-workspace.yaml"},
	"yarn": {"package.json", ".yarnrc", ".yarnrc.yml", ".yarnrc.yaml"},
	"bun":  {"package.json"},
	"npx":  {"package.json"},
}

// sourceExts are file name endings of code interpreters load by name
// (python -c 'import json' finds ./json.py first).
var sourceExts = []string{".py", ".pyc", ".pth", ".js", ".mjs", ".cjs", ".pl", ".pm", ".rb", ".php", ".lua", ".sh", ".mk"}

// runsWritten says why a leaf runs code from a file written earlier in the
// same command ("echo ... > x.sh; bash x.sh", "cat > json.py; python3 -c
// 'import json'"): a script on disk is governed by Write and Edit rules,
// but one written by this very command is code the analyser does not see
// before it runs. "" when the leaf runs no such file, or nothing was written.
func (w *walker) runsWritten(base, prog string, argv []string, st state) string {
	_, interp := interpreters[base]
	runsFiles := interp || shells[base] || codeFiles[base] != nil || strings.Contains(prog, "/")
	if !runsFiles {
		return ""
	}
	var written []string
	for i := range w.res.Leaves {
		written = append(written, w.res.Leaves[i].Writes...)
	}
	written = append(written, w.orphanWrites...)
	if len(written) == 0 && !w.dynWrites {
		return ""
	}
	if w.dynWrites {
		return "the command writes a file permopa cannot name before running " + base
	}
	for _, a := range append([]string{prog}, argv[1:]...) {
		if paths, ok := w.resolve(a, st); ok {
			for _, p := range paths {
				if contains(written, p) {
					return base + " runs " + p + ", written earlier in this command"
				}
			}
		}
	}
	for _, p := range written {
		name := path.Base(p)
		if slices.Contains(codeFiles[base], name) || (interp || shells[base]) && slices.ContainsFunc(sourceExts, func(e string) bool {
			return strings.HasSuffix(name, e)
		}) {
			return base + " may load " + p + ", written earlier in this command"
		}
	}
	return ""
}

func isLookupFlag(s string) bool {
	if len(s) < 2 || s[0] != '-' || s == "--" {
		return false
	}
	return strings.Trim(s[1:], "pvV") == "" && strings.ContainsAny(s, "vV")
}

// cdLeaf emits the leaf of a cd: read-only unless its operand is not static.
func (w *walker) cdLeaf(fr frame, st state, argv []word, reason string, reads []string) {
	if !w.reserve() {
		return
	}
	sv := strs(argv)
	lf := Leaf{Argv: sv, Program: sv[0], Wrappers: fr.wrappers}
	for _, p := range reads {
		lf.Reads = appendUnique(lf.Reads, p)
	}
	for _, p := range fr.reads {
		lf.Reads = appendUnique(lf.Reads, p)
	}
	lf.Writes = append(lf.Writes, fr.writes...)
	ro := reason == ""
	if f := fr.allForced(); f != "" {
		ro = false
		reason = firstNonEmpty(reason, f)
	}
	w.finish(&lf, fr, ro, reason)
}

// synthetic emits a leaf the walker judges itself ([[ ]], (( )), let, assignments).
func (w *walker) synthetic(fr frame, st state, argv []string, ro bool, reason string, reads []string) {
	if !w.reserve() {
		return
	}
	lf := Leaf{Argv: argv, Program: argv[0], Wrappers: fr.wrappers}
	for _, r := range reads {
		if paths, ok := w.resolve(r, st); ok {
			for _, p := range paths {
				if !pseudoDevice(p) {
					lf.Reads = appendUnique(lf.Reads, p)
				}
			}
		}
	}
	for _, p := range fr.reads {
		lf.Reads = appendUnique(lf.Reads, p)
	}
	lf.Writes = append(lf.Writes, fr.writes...)
	if f := fr.allForced(); f != "" {
		ro = false
		reason = firstNonEmpty(reason, f)
	}
	w.finish(&lf, fr, ro, reason)
}

// finish fills the wrapper-derived fields and appends the leaf.
func (w *walker) finish(lf *Leaf, fr frame, ro bool, why string) {
	lf.AllowArgv = lf.Argv
	if fr.allowArgv != nil {
		lf.AllowArgv = fr.allowArgv
	}
	if len(fr.layers) > 0 {
		lf.Layers = fr.layers
	}
	if lf.Reads == nil {
		lf.Reads = []string{}
	}
	if lf.Writes == nil {
		lf.Writes = []string{}
	}
	if lf.RecursiveReads == nil {
		lf.RecursiveReads = []Tree{}
	}
	if lf.Wrappers == nil {
		lf.Wrappers = []string{}
	}
	if lf.RunsUnknown == "" {
		lf.RunsUnknown = fr.unknown
	}
	lf.Script = fr.script
	if lf.RunsUnknown != "" {
		ro = false
		why = firstNonEmpty(why, lf.RunsUnknown)
	}
	lf.CodeWords = max(lf.CodeWords, fr.codeWords)
	if lf.RunsUnknown != "" && lf.CodeWords == 0 {
		// What runs is not in any one word: only the exact argv covers it.
		lf.CodeWords = len(lf.AllowArgv)
	}
	lf.RedirectWrites = len(fr.writes) > 0
	if r := w.opaqueReason(lf); r != "" {
		ro, why = false, firstNonEmpty(why, r)
		lf.FSCommand = false
	}
	lf.ReadOnly = ro
	if !ro {
		lf.Reason = firstNonEmpty(why, "not read-only")
	}
	w.res.Leaves = append(w.res.Leaves, *lf)
	w.written = append(w.written, lf.Writes...)
	if len(lf.Writes) > 0 {
		idx := len(w.res.Leaves) - 1
		for _, p := range lf.Writes {
			if blockDevice(p) {
				w.hit("block-device-write", idx, p)
			}
		}
	}
}

func (w *walker) hit(pattern string, leaf int, detail string) {
	for _, h := range w.res.Dangerous {
		if h.Pattern == pattern && h.Leaf == leaf && h.Detail == detail {
			return
		}
	}
	w.res.Dangerous = append(w.res.Dangerous, Hit{Pattern: pattern, Leaf: leaf, Detail: detail})
}

func blockDevice(p string) bool {
	if !strings.HasPrefix(p, "/dev/") {
		return false
	}
	for _, prefix := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "mapper/", "dm-", "md", "loop"} {
		if strings.HasPrefix(p[5:], prefix) {
			return true
		}
	}
	return false
}

// shellKnownPaths are the paths of the few programs whose operands matter
// to the shell layer's own checks, whatever the vocabulary says.
func shellKnownPaths(base string, argv []string) (reads, writes []string) {
	switch base {
	case "rm", "rmdir", "shred", "unlink":
		writes = operands(argv)
	case "dd":
		for _, a := range argv[1:] {
			if v, ok := strings.CutPrefix(a, "of="); ok {
				writes = append(writes, v)
			}
			if v, ok := strings.CutPrefix(a, "if="); ok {
				reads = append(reads, v)
			}
		}
	case "find":
		// A primary, not a pattern that reads "-delete" (find -name -delete).
		if e := flagspec.ParseFind(argv); e.Has("-delete") {
			writes = e.Roots
		}
	}
	return reads, writes
}

// removedPaths are the paths a leaf removes or renames away, as written.
func removedPaths(base string, argv []string, v flagspec.Verdict) []string {
	switch base {
	case "rm", "rmdir", "unlink", "shred":
		return operands(argv)
	case "mv":
		var out []string
		for _, l := range v.Links {
			out = appendUnique(out, l.Target)
		}
		return out
	case "git":
		if v.Subcommand == "clean" {
			return v.Writes
		}
	case "find":
		// Only when it deletes everything below: with a filter, what it
		// removes is not known (docs/protected-paths.md, limits).
		if e := flagspec.ParseFind(argv); e.Has("-delete") && findFilterless(e) {
			return e.Roots
		}
	}
	return nil
}

// operands returns the non-option words of argv[1:] ("--" ends options).
func operands(argv []string) []string {
	var out []string
	opts := true
	for _, a := range argv[1:] {
		if opts && a == "--" {
			opts = false
			continue
		}
		if opts && len(a) > 1 && a[0] == '-' {
			continue
		}
		out = append(out, a)
	}
	return out
}

// findFilterless reports whether a find expression selects everything
// (only -delete and traversal options), so -delete empties its roots.
func findFilterless(e flagspec.FindExpr) bool {
	for _, p := range e.Primaries {
		switch p.Name {
		case "-delete", "-depth", "-xdev", "-mount", "-noleaf", "-print", "-true", "-ignore_readdir_race":
			continue
		case "-mindepth", "-maxdepth":
			if len(p.Values) == 1 && isNumberLit(p.Values[0]) {
				continue
			}
		}
		return false
	}
	return true
}

// removals records critical removal targets and dangerous patterns of a leaf.
func (w *walker) removals(idx int, base string, argv []string, st state, recursive bool) {
	switch base {
	case "rm", "rmdir":
		for _, a := range argv[1:] {
			if a == "--recursive" || (len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a, "rR")) {
				recursive = true
			}
		}
		for _, op := range operands(argv) {
			if strings.Contains(op, dyn) {
				// A target that starts with an unknown part may be empty:
				// rm -rf "$DIR/" removes /.
				if recursive && strings.HasPrefix(op, dyn) {
					shown := strings.ReplaceAll(op, dyn, "${…}")
					w.critical(idx, shown, "rm-recursive-critical")
				}
				continue
			}
			paths, ok := w.resolve(op, st)
			if !ok {
				continue
			}
			for _, p := range paths {
				if w.isCritical(p) {
					pattern := ""
					if recursive {
						pattern = "rm-recursive-critical"
					}
					w.critical(idx, p, pattern)
				}
			}
		}
	case "find":
		e := flagspec.ParseFind(argv)
		if !e.Has("-delete") || !findFilterless(e) {
			return
		}
		for _, r := range e.Roots {
			paths, ok := w.resolve(r, st)
			if !ok {
				continue
			}
			for _, p := range paths {
				if w.isCritical(p) || w.isCritical(filepath.Join(p, "*")) {
					w.critical(idx, p, "find-delete-critical")
				}
			}
		}
	case "dd":
		for _, a := range argv[1:] {
			if v, ok := strings.CutPrefix(a, "of="); ok {
				w.hit("dd-of", idx, v)
			}
		}
	case "chmod", "chown", "chgrp":
		rec := false
		for _, a := range argv[1:] {
			if a == "--recursive" || (len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Contains(a, "R")) {
				rec = true
			}
		}
		if !rec {
			return
		}
		for _, op := range operands(argv) {
			paths, ok := w.resolve(op, st)
			if !ok {
				continue
			}
			for _, p := range paths {
				if w.isCritical(p) {
					w.hit("recursive-"+base+"-critical", idx, p)
				}
			}
		}
	default:
		if strings.HasPrefix(base, "mkfs") || base == "mke2fs" || base == "mkswap" || base == "wipefs" {
			w.hit("mkfs", idx, strings.Join(argv, " "))
		}
	}
}

func (w *walker) critical(idx int, target, pattern string) {
	w.res.CriticalRemovals = appendUnique(w.res.CriticalRemovals, target)
	if pattern != "" {
		w.hit(pattern, idx, target)
	}
}

// isCritical: /, a top-level directory, the home directory or a parent, a
// working directory or a parent of one, or everything in a directory.
func (w *walker) isCritical(p string) bool {
	if p == "/" || filepath.Dir(p) == "/" {
		return true
	}
	if strings.Trim(filepath.Base(p), "*") == "" {
		return true
	}
	if h := w.opts.Home; h != "" && (p == h || strings.HasPrefix(h, p+"/")) {
		return true
	}
	for _, d := range w.workDirs() {
		if p == d || strings.HasPrefix(d, p+"/") {
			return true
		}
	}
	return false
}

func (w *walker) workDirs() []string {
	out := make([]string, 0, 1+len(w.opts.WorkingDirectories))
	if w.opts.Cwd != "" {
		out = append(out, w.opts.Cwd)
	}
	for _, d := range w.opts.WorkingDirectories {
		if d != "" {
			out = append(out, cleanAbs(d, w.opts.Cwd, w.opts.Home))
		}
	}
	return out
}

func cleanAbs(p, cwd, home string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home != "" {
			p = home + p[1:]
		}
	}
	if !filepath.IsAbs(p) && cwd != "" {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// resolveWord resolves an evaluated word to absolute paths.
func (w *walker) resolveWord(wd word, st state) ([]string, bool) {
	if wd.dynamic {
		return nil, false
	}
	return w.resolve(wd.s, st)
}

// resolve turns a path as written (after shell expansion) into absolute,
// cleaned paths, one per possible cwd. A path with a dyn part, or a
// relative path while the cwd is unknown, is not static. A literal
// leading ~ (quoted, or inside an option value a program may expand) is
// resolved both ways.
func (w *walker) resolve(p string, st state) ([]string, bool) {
	if strings.Contains(p, dyn) {
		return nil, false
	}
	if p == "" {
		return nil, true
	}
	var raw []string
	switch {
	case filepath.IsAbs(p):
		raw = []string{p}
	default:
		if (p == "~" || strings.HasPrefix(p, "~/")) && w.opts.Home != "" {
			raw = append(raw, w.opts.Home+p[1:])
		}
		if st.unknown || len(st.dirs) == 0 {
			if len(raw) == 0 {
				return nil, false
			}
			break
		}
		for _, d := range st.dirs {
			raw = append(raw, d+"/"+p)
		}
	}
	// Each path in every spelling the path built-ins resolve as the
	// kernel does (paths.Spellings): cleaned, with "link/.." kept, and
	// /proc/self/cwd in the directories the command runs in.
	var cwds []string
	if !st.unknown {
		cwds = st.dirs
	}
	if len(w.links) > 0 {
		// Links made earlier in the command (links.go).
		var out []string
		for _, r := range raw {
			ps, ok := w.throughLinks(r)
			if !ok {
				return nil, false
			}
			for _, q := range ps {
				out = appendUnique(out, q)
			}
			for _, q := range paths.Spellings(r, cwds) {
				out = appendUnique(out, q)
			}
		}
		return out, true
	}
	out := make([]string, 0, len(raw))
	for _, r := range raw {
		for _, q := range paths.Spellings(r, cwds) {
			out = appendUnique(out, q)
		}
	}
	return out, true
}

func appendUnique(s []string, x string) []string {
	if contains(s, x) {
		return s
	}
	return append(s, x)
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// allForced returns the first reason the frame imposes, if any.
func (f frame) allForced() string {
	if len(f.forced) > 0 {
		return f.forced[0]
	}
	if len(f.redirForced) > 0 {
		return f.redirForced[0]
	}
	return ""
}

// verdictReads reports whether the verdict reads the word p as a path or
// the root of a tree.
func verdictReads(v flagspec.Verdict, p string) bool {
	if slices.Contains(v.Reads, p) {
		return true
	}
	for _, t := range v.RecursiveReads {
		if t.Path == p {
			return true
		}
	}
	return false
}

// leadingGlobs returns judge with every argument that starts with an
// active glob metacharacter replaced by a run-time word, or nil if none does;
// skip are the indexes of globs no option can come from (find's starting
// points ending in "/", findGlobWords).
func leadingGlobs(argv []word, judge []string, skip map[int]bool) []string {
	var out []string
	for i := 1; i < len(argv) && i < len(judge); i++ {
		a := argv[i]
		if !a.glob || !globMayBeOption(a.s) || skip[i] {
			continue
		}
		if out == nil {
			out = append([]string(nil), judge...)
		}
		out[i] = dyn + a.s[1:]
	}
	return out
}

// globMayBeOption reports whether a glob word may match a name that
// starts with "-": it starts with * or ?, or with a bracket expression
// that may hold "-". Quotes are gone from s, so a bracket is read for the
// most it could mean: up to its last "]", negated when "!" or "^" follows
// "[", holding "-" when a "-" stands anywhere in it (a range or a literal),
// and any class but those without "-" (grep [s]tring, [[:alnum:]]* cannot
// be options).
func globMayBeOption(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '*', '?':
		return true
	case '[':
	default:
		return false
	}
	end := strings.LastIndexByte(s, ']')
	if end < 2 {
		return end == 1 // "[]" alone: "]" is a member, the bracket is open
	}
	set := s[1:end]
	if set[0] == '!' || set[0] == '^' || strings.ContainsAny(set, "-\\") ||
		strings.Contains(set, "[=") || strings.Contains(set, "[.") {
		return true
	}
	for rest := set; ; {
		i := strings.Index(rest, "[:")
		if i < 0 {
			return false
		}
		name, _, ok := strings.Cut(rest[i+2:], ":]")
		switch {
		case !ok:
			return true
		case name == "alnum", name == "alpha", name == "digit", name == "lower", name == "upper",
			name == "xdigit", name == "space", name == "blank", name == "cntrl":
		default:
			return true
		}
		rest = rest[i+2+len(name)+2:]
	}
}

// severalMatches is the argv to judge with every glob word doubled (from
// globRisk when a glob may be an option, else from judge), nil when no
// word is a glob: a glob matching several names gives the program several
// operands, and a program's verdict may depend on their number (uniq IN
// OUT). One match, or none (bash then keeps the pattern), is one word,
// the argv as judged.
func severalMatches(argv []word, judge, globRisk []string) []string {
	base := judge
	if globRisk != nil {
		base = globRisk
	}
	var out []string
	for i := 1; i < len(argv) && i < len(base); i++ {
		if argv[i].glob && !argv[i].one {
			if out == nil {
				out = append(make([]string, 0, len(base)+2), base[:i]...)
			}
			out = append(out, base[i], base[i])
		} else if out != nil {
			out = append(out, base[i])
		}
	}
	if out != nil && len(base) > len(argv) {
		out = append(out, base[len(argv):]...)
	}
	return out
}

// endOfShellJudge is the argv to judge for a builtin that changes the
// state of a shell nothing runs after (tail) or only commands that expand
// variables (frame.blindRest): the variables it
// assigns, exports or removes are renamed to a variable of the shell only
// (export: of the transparent environment) when inertAtEnd, and an alias
// definition is never used. Options are
// judged as written (read -e still loads readline's key bindings).
func endOfShellJudge(argv []string, tail bool) []string {
	switch argv[0] {
	case "alias":
		if !tail || aliasesHostTrailer(wordsOf(argv[1:])) {
			return argv // a later line may use it (expand_aliases)
		}
		return argv[:1]
	case "history":
		// history -n and -r read the history file (historyJudge names
		// the read) into the shell's list, which nothing after the end
		// of the shell prints, nor writes: with history on and
		// $HISTFILE set, bash appends at exit only the lines added
		// since, and a read adds none (docs/shell.md, "Shell state").
		if tail && len(argv) == 2 && (argv[1] == "-n" || argv[1] == "-r") {
			return argv[:1]
		}
		return argv
	case "shopt":
		// Any option of bash 5.2 but expand_aliases: none acts at exit
		// or on what the hosts run after the command.
		if tail && shoptChangesOnly(argv[1:]) {
			return argv[:1]
		}
		return argv
	case "export", "declare", "typeset", "local", "readonly", "read", "unset":
	default:
		return argv
	}
	out := make([]string, len(argv))
	copy(out, argv)
	for i := 1; i < len(out); i++ {
		a := out[i]
		n := len(a)
		if j := strings.IndexByte(a, '='); j > 0 {
			n = j
			if a[j-1] == '+' {
				n--
			}
		}
		if name := a[:n]; name != "" && !flagspec.ShellLocalName(name) && inertAtEnd(name) {
			if argv[0] == "export" {
				// export takes only the transparent names (LC_*); an
				// export with no operand left would be a listing.
				out[i] = "LC_X" + a[n:]
				if n == len(a) {
					out[i] = "LC_X=" // export NAME: NAME's value, exported
				}
				continue
			}
			out[i] = "x" + a[n:]
		}
	}
	return out
}

// shellStateChange says why a builtin invocation changes the shell's
// variables, whatever the vocabulary says: a later command may run with
// another PATH.
func shellStateChange(base string, argv []string) string {
	if base != "printf" {
		return ""
	}
	for _, a := range argv[1:] {
		if a == "--" || !strings.HasPrefix(a, "-") {
			return ""
		}
		if strings.Contains(a, "v") || strings.Contains(a, dyn) {
			return "printf -v assigns a shell variable"
		}
	}
	return ""
}

// gluedValue is the value an option word may carry: after "=" in a long
// option, after the letter of a short one ("-ofile", "-o=file"); "" when
// there is none.
func gluedValue(a string) string {
	if strings.HasPrefix(a, "--") {
		_, v, _ := strings.Cut(a, "=")
		return v
	}
	if len(a) <= 2 {
		return ""
	}
	return strings.TrimPrefix(a[2:], "=")
}

func appendConfig(cs []ProjectConfig, c ProjectConfig) []ProjectConfig {
	for _, x := range cs {
		if x == c {
			return cs
		}
	}
	return append(cs, c)
}

// firstOperand is the first word after argv[0] that is not an option, ""
// when there is none or it is only known at run time.
func firstOperand(argv []string) string {
	for _, a := range argv[1:] {
		if a == "--" || strings.HasPrefix(a, "-") {
			continue
		}
		if strings.Contains(a, dyn) {
			return ""
		}
		return a
	}
	return ""
}

// dynamicWords returns the indexes of the words after the program that an
// expansion fills at run time where an option may stand (a word starting
// with one), or that may split into several words or none (unquoted), and
// for each whether it may split.
func dynamicWords(argv []word) ([]int, []bool) {
	var at []int
	var splits []bool
	for i, a := range argv[1:] {
		if a.splits || strings.HasPrefix(a.s, dyn) {
			at = append(at, i+1)
			splits = append(splits, a.splits)
		}
	}
	return at, splits
}

// keepsEnvironment: the wrappers a leaf runs under pass it the environment
// the host gave the command, so a GIT_PAGER=cat the host guarantees
// (Options.GitPagerCat) reaches git. env (-u, -i), exec -c and the
// wrappers that switch users can drop it; an assignment of GIT_PAGER or
// PAGER is not read-only anyway. Only the wrappers named here count.
func keepsEnvironment(wrappers []string) bool {
	for _, wr := range wrappers {
		if name, ok := strings.CutPrefix(wr, "assign:"); ok {
			if name == "GIT_PAGER" || name == "PAGER" {
				return false
			}
			continue
		}
		switch wr {
		case "$()", "timeout", "nice", "nohup", "stdbuf", "ionice", "time", "command", "builtin", "find -exec", "find -execdir":
		default:
			return false
		}
	}
	return true
}

// goChangesDir says whether a go command line holds -C (go list -C DIR),
// in any of the spellings go's flag package takes.
func goChangesDir(argv []string) bool {
	for _, a := range argv[1:] {
		if a == "--" {
			return false
		}
		if n, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "="); strings.HasPrefix(a, "-") && n == "C" {
			return true
		}
	}
	return false
}

// setPositionalFrom is the index of set's first word that is a positional
// parameter whatever it expands to: after "--" or "-", or the first operand
// that starts with a literal character other than -, + or a glob character
// (flagspec.SetOperand); len(argv) when there is none or a word before it
// is only known at run time (any option).
func setPositionalFrom(argv []word) int {
	for i := 1; i < len(argv); i++ {
		a := argv[i].s
		switch {
		case argv[i].splits && strings.HasPrefix(a, dyn), a == "":
			return len(argv)
		case a == "--" || a == "-":
			return i + 1
		case flagspec.SetOperand(a):
			return i
		case strings.Contains(a, dyn):
			return len(argv)
		case a == "-o" || a == "+o" || len(a) > 1 && (a[0] == '-' || a[0] == '+') && a[len(a)-1] == 'o':
			i++ // the option's name
		}
	}
	return len(argv)
}

// shoptChangesOnly reports shopt -s/-u (-p, -q) of names that
// flagspec.ShoptOptionAtEnd accepts, every word literal.
func shoptChangesOnly(args []string) bool {
	names := 0
	for _, a := range args {
		switch {
		case strings.Contains(a, dyn):
			return false
		case len(a) > 1 && a[0] == '-' && names == 0:
			if strings.Trim(a[1:], "supq") != "" {
				return false
			}
		case flagspec.ShoptOptionAtEnd(a):
			names++
		default:
			return false
		}
	}
	return names > 0
}

// historyJudge is the argv to judge for the history builtin, and the frame
// with the history file it reads (docs/shell.md, "Shell state"):
//   - history -r and -n read $HISTFILE, or ~/.history when the environment
//     names none (bash 5.2 under strace), into the shell's list; the
//     environment's HISTFILE is not known here, so the read named is
//     ~/.history. history -r "$HISTFILE" reads the same file (or "",
//     nothing, when HISTFILE is unset) and is judged as history -r;
//   - history -a appends to that file the lines added to the list since it
//     was read: only history -s adds any to a shell that bash -c runs
//     (commands of a -c string, of eval and of a sourced file are not
//     recorded, with history on too; checked under strace), and history -s
//     is never read-only. With no other history in the command it appends
//     nothing and is judged as history.
func (w *walker) historyJudge(argv []word, judge []string, fr frame) ([]string, frame, bool) {
	if len(judge) < 2 || len(judge) != len(argv) || w.opts.Home == "" || judge[1] != "-a" && judge[1] != "-r" && judge[1] != "-n" {
		return judge, fr, false
	}
	file := len(judge) == 3 && argv[2].param == "HISTFILE" && !argv[2].splits && !strings.Contains(argv[1].s, dyn)
	switch {
	case len(judge) == 2 && judge[1] == "-a":
		if strings.Count(w.topSrc, "history") == 1 {
			return judge[:1], fr, false
		}
	case len(judge) == 2 || file && judge[1] != "-a":
		fr.reads = append(append([]string(nil), fr.reads...), filepath.Join(w.opts.Home, ".history"))
		return judge[:2], fr, file
	}
	return judge, fr, false
}
