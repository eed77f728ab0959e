package bash

import (
	"fmt"
	"github.com/permopa/permopa/builtins/scriptfile"
	"path"
	"path/filepath"
	"strings"
)

// Scripts (docs/shell.md, "Scripts"). A leaf that runs a script file —
// npm run X, yarn X, ./x.sh, bash x.sh, source x.sh, and every program in
// scriptReaders — is walked as what the file says it runs: each command
// line of each script (scriptfile.Line) is parsed and walked as sh -c's
// script is, under a wrapper naming the file, line and script
// ("package.json:12 script clean"), which is also the leaf's Script. Deny
// and ask rules see every command inside, flag-aware; allow rules see the
// command that runs the script (AllowArgv, as for bash -c), so an allow
// rule for npm run clean allows it only when no deny or ask rule matches
// inside. A leaf that runs a script file is never read-only: the file can
// change between the decision and the run (SECURITY.md), so its content is
// evidence for deny and ask rules, not a promise. What the reader cannot
// tell (scriptfile.Script.Unknown), a script changed earlier in the same
// command, a loop of scripts, or one nested deeper than
// scriptfile.MaxDepth makes the leaf uncertain (RunsUnknown).

// scriptReaders read what a program runs from its script files, by the
// program's base name: the one integration point for script readers
// (scriptfile.Reader). Shell scripts (sh x.sh, ./x.sh, source x.sh) are
// read by the walker itself with scriptfile.ShellFile.
var scriptReaders = map[string]scriptfile.Reader{
	"npm": scriptfile.Package, "yarn": scriptfile.Package, "pnpm": scriptfile.Package, "bun": scriptfile.Package,
}

// maxScriptBytes bounds the script text one analysis walks (every file
// and every package script together), beside the command's own budget.
const maxScriptBytes = 512 << 10

// scriptsNotReadOnly is why a leaf inside a script is not read-only.
const scriptsNotReadOnly = "runs a script file, which can change between the decision and the run"

// shellBuiltins are names sh runs without looking them up on PATH: a
// node_modules/.bin program of the same name does not shadow them.
var shellBuiltins = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`cd echo printf test [ true false : exit export set unset shift read pwd type
		command source . eval exec trap wait kill return break continue local readonly alias unalias umask getopts
		hash times ulimit let declare typeset builtin shopt enable help jobs fg bg disown suspend logout dirs pushd
		popd caller compgen complete mapfile readarray`) {
		shellBuiltins[n] = true
	}
}

// scriptCall is the scriptfile.Call of a leaf; ok false when the walker
// reads no files (no working directory is known).
func (w *walker) scriptCall(argv []word, st state) scriptfile.Call {
	c := scriptfile.Call{Argv: strs(argv), Dynamic: make([]bool, len(argv)), Files: w.scriptFiles()}
	for i, a := range argv {
		c.Dynamic[i] = a.dynamic || strings.Contains(a.s, dyn)
	}
	if d := st.single(); d != "" && !st.unknown {
		c.Dir = d
	}
	return c
}

// scriptFiles is the analysis's file reader, made on first use.
func (w *walker) scriptFiles() *scriptfile.Files {
	if w.files == nil {
		var roots []string
		if w.opts.Cwd != "" {
			roots = append(roots, w.opts.Cwd)
			for _, d := range w.opts.WorkingDirectories {
				if d = cleanAbs(d, w.opts.Cwd, w.opts.Home); filepath.IsAbs(d) {
					roots = append(roots, d)
				}
			}
		}
		w.files = scriptfile.NewFiles(roots)
	}
	return w.files
}

// readsScripts reports whether this walk reads script files: not a
// scratch walk (preLinks), which only learns links. Without a known
// working directory every script is Unknown (scriptfile.Files reads
// nothing).
func (w *walker) readsScripts() bool {
	return !w.scratch
}

// scriptProgram runs the reader of argv's program, if any: true when the
// leaf was walked as its scripts.
func (w *walker) scriptProgram(base string, argv []word, fr frame, st state) bool {
	read, ok := scriptReaders[base]
	if !ok || !w.readsScripts() {
		return false
	}
	c := w.scriptCall(argv, st)
	if fr.appends {
		// xargs appends words to the command at run time: the manager
		// passes them to the script, or reads them as options.
		c.Argv = append(c.Argv, dyn)
		c.Dynamic = append(c.Dynamic, true)
	}
	c.Layers, c.Parents, c.EnvChanged = fr.layers, w.scriptArgvs, w.envChanged()
	scripts, handled := read(c)
	if !handled {
		return false
	}
	w.walkScripts(argv, fr, st, scripts, nil, base+" runs "+scriptKind(base))
	return true
}

// shellScript walks the shell script file named by word file, run as how
// (scriptfile.ByShell, BySource, ByExec); false when the walk reads no
// files, and the caller judges the leaf as before.
//
// zero and args are the script's $0 and $1...: zero nil when it is not
// known, inherit (source x.sh without arguments) for the caller's.
func (w *walker) shellScript(argv []word, file word, zero *word, args []word, inherit bool, fr frame, st state, how, reason string) bool {
	if !w.readsScripts() {
		return false
	}
	c := w.scriptCall(argv, st)
	var s scriptfile.Script
	switch ps, ok := w.resolve(file.s, st); {
	case file.dynamic || strings.Contains(file.s, dyn):
		s = scriptfile.Script{Name: printableWord(file.s), Unknown: "the script's name is only known at run time"}
	case !ok || len(ps) != 1:
		s = scriptfile.Script{Name: file.s, Unknown: file.s + " is in a directory not known statically"}
	default:
		s = scriptfile.ShellFile(c, ps[0], how)
	}
	pos := newPosParams(zero, args, fr)
	if inherit {
		pos = w.pos.clone()
		if pos != nil {
			pos.noSource = false // BASH_SOURCE[0] is the sourced file
		}
	}
	w.walkScripts(argv, fr, st, []scriptfile.Script{s}, pos, reason)
	return true
}

// projectProgram reports whether a path-qualified program name resolves
// inside the working directories: the project's own script or program.
func (w *walker) projectProgram(name string, st state) (string, bool) {
	if !w.readsScripts() {
		return "", false
	}
	ps, ok := w.resolve(name, st)
	if !ok || len(ps) != 1 {
		// ./x in a directory not known statically: the project's, but
		// which file is not known.
		return "", strings.HasPrefix(name, "./") || strings.HasPrefix(name, "../")
	}
	// A relative name (./x, bin/x) is a file of the directory it runs in,
	// read or uncertain wherever that is; an absolute one outside the
	// working directories is a program of the system, judged by its name.
	return ps[0], !filepath.IsAbs(name) || w.scriptFiles().Within(ps[0])
}

// walkScripts walks the scripts a leaf runs, under a wrapper per script;
// pos are a shell script's positional parameters (nil: not known, as in
// package scripts and recipes); reason says what the leaf does ("bash runs
// a script file"), for a leaf that stands for a script not walked.
func (w *walker) walkScripts(argv []word, fr frame, st state, scripts []scriptfile.Script, pos *posParams, reason string) {
	sv := strs(argv)
	// A script's commands see the call's words only through $1... (pos,
	// positional.go), never as the words a wrapper supplies (dataflow.go);
	// its variables are its own, not the calling shell's loop variables.
	fr.dataRoots, fr.dataEmpty, fr.piped = nil, false, pipedInput{}
	fr.dataDepth = 0
	fr.loopVars = nil
	before := len(w.res.Leaves)
	changed := w.scriptsChanged(argv, st)
	if (fr.appends || fr.placeholder != "") && len(fr.wrappers) > 0 {
		// xargs and find -exec supply arguments at run time, which the
		// script (and the package manager) reads.
		changed = firstNonEmpty(changed, innermostWrapper(fr.wrappers)+" supplies "+sv[0]+"'s arguments at run time")
	}
	for _, s := range scripts {
		if s.Self {
			// The call's own action (npm install installs packages):
			// judged by its words, beside the scripts it runs.
			sf := fr
			sf.unknown = firstNonEmpty(sf.unknown, s.Unknown)
			if s.OffBy != "" && sf.unknown == "" {
				// A setting read now that turns scripts off holds only if
				// nothing earlier in the command may have changed it.
				for i := range w.res.Leaves[:before] {
					if lf := &w.res.Leaves[i]; !lf.ReadOnly {
						sf.unknown = s.OffBy + " turns scripts off, but " + printableWord(lf.Program) + " ran earlier in this command and may have changed it"
						break
					}
				}
				sf.unknown = firstNonEmpty(sf.unknown, changed)
			}
			w.leaf(sf, st, argv, "")
			continue
		}
		loc := w.scriptLoc(s.File, s.Line, s.Name)
		// A prefix rule for the program (npm run:*) covers what its
		// scripts run, deny and ask rules permitting: it spells out the
		// program, as a rule for an interpreter does.
		inner := fr.wrap(loc, sv, false, sv[0]+" "+scriptsNotReadOnly).withCode(sv, 1)
		if s.NotReadOnly != "" {
			inner.forced = appendStr(inner.forced, s.NotReadOnly)
		}
		inner.binDirs = s.BinDirs
		key := s.File + "\x00" + s.Name
		unknown, walk := firstNonEmpty(changed, s.Unknown), len(s.Lines) > 0
		switch {
		case contains(w.scriptStack, key):
			unknown, walk = s.Name+" runs itself again ("+strings.Join(append(w.stackNames(), s.Name), " → ")+")", false
		case len(w.scriptStack) >= scriptfile.MaxDepth:
			unknown, walk = fmt.Sprintf("scripts run scripts more than %d deep", scriptfile.MaxDepth), false
		}
		if unknown != "" {
			inner.unknown = firstNonEmpty(inner.unknown, loc+": "+unknown)
		}
		if !walk {
			// Nothing to walk (or walking it again would loop): the
			// leaf itself stands for what runs, for deny rules.
			w.leaf(inner, st, argv, reason+": "+firstNonEmpty(unknown, scriptsNotReadOnly))
			continue
		}
		lst := state{unknown: true}
		if s.Dir != "" {
			lst = state{dirs: []string{s.Dir}}
		}
		w.scriptStack = append(w.scriptStack, key)
		w.scriptArgvs = append(w.scriptArgvs, sv)
		savedPos := w.pos
		w.pos = pos.clone()
		for _, ln := range s.Lines {
			w.scriptLine(ln, s, inner, lst)
		}
		w.pos = savedPos
		w.scriptStack = w.scriptStack[:len(w.scriptStack)-1]
		w.scriptArgvs = w.scriptArgvs[:len(w.scriptArgvs)-1]
	}
	if len(w.res.Leaves) == before {
		// The scripts run nothing (an empty script, --if-present).
		w.leaf(fr, st, argv, reason+": it runs none here (no package.json, an empty script, --if-present)")
	}
}

// scriptLine parses and walks one command line of a script, each
// statement under the location of its line.
func (w *walker) scriptLine(ln scriptfile.Line, s scriptfile.Script, fr frame, st state) {
	if w.stop {
		return
	}
	if w.scriptBytes += len(ln.Text); w.scriptBytes > maxScriptBytes {
		fr.unknown = firstNonEmpty(fr.unknown, fmt.Sprintf("the scripts this command runs are longer than %d KiB, more than permopa reads", maxScriptBytes>>10))
		w.leaf(fr, st, wordsOf(fr.layers[len(fr.layers)-1]), fr.unknown)
		return
	}
	if fr.depth >= maxDepth || !w.enter() {
		w.unanalysable("nesting too deep")
		return
	}
	defer w.leave()
	parsedBefore := w.parsed
	f, err := w.parseScript(ln.Text)
	if f != nil || err != nil {
		// Script text has its own budget (maxScriptBytes), not the command's.
		w.parsed = parsedBefore
	}
	if err != nil {
		w.unanalysable("parse error in " + w.scriptLoc(ln.File, ln.Line, s.Name) + ": " + err.Error())
		return
	}
	if f == nil {
		return // a limit was exceeded
	}
	w.addRoot(f, ln.Text)
	saved := w.src
	w.src = ln.Text
	w.prescan(f)
	w.ifsChanged = w.ifsChanged || mayAssignIFS(ln.Text)
	for _, stmt := range f.Stmts {
		if w.stop {
			break
		}
		line := ln.Line
		if s.Line == 0 {
			line += int(stmt.Pos().Line()) - 1
		}
		sf := fr.notTail() // the script's shell may run on after it
		sf.script = w.scriptLoc(ln.File, line, s.Name)
		if len(sf.wrappers) > 0 {
			sf.wrappers = appendStr(sf.wrappers[:len(sf.wrappers)-1], sf.script)
		}
		var after func(*posParams) *posParams
		w.pos, after = w.positionalBefore(stmt)
		st, _ = w.walkStmt(stmt, sf, st)
		w.pos = after(w.pos)
	}
	w.src = saved
}

// scriptLoc is how a message names a script: "package.json:12 script
// clean", "build.sh:3"; the file relative to the call's directory when
// under it.
func (w *walker) scriptLoc(file string, line int, name string) string {
	shown := file
	if cwd := w.opts.Cwd; cwd != "" && strings.HasPrefix(file, cwd+"/") {
		shown = file[len(cwd)+1:]
	}
	switch {
	case file == "":
		return name
	case line > 0 && path.Base(file) == name:
		return fmt.Sprintf("%s:%d", shown, line)
	case line > 0:
		return fmt.Sprintf("%s:%d %s", shown, line, name)
	case path.Base(file) == name:
		return shown
	}
	return shown + " " + name
}

func (w *walker) stackNames() []string {
	out := make([]string, len(w.scriptStack))
	for i, k := range w.scriptStack {
		_, out[i], _ = strings.Cut(k, "\x00")
	}
	return out
}

// scriptsChanged says why the scripts a leaf runs may not be what is on
// disk now: an earlier command wrote the file or the package.json the
// program reads (runsWritten), wrote a file permopa cannot name, made
// links no one can place, ran code permopa cannot see, or ran a package
// manager that rewrites package.json (npm pkg set, npm install, ...).
// "" when nothing earlier in the command can have changed them.
func (w *walker) scriptsChanged(argv []word, st state) string {
	sv := strs(argv)
	base := path.Base(sv[0])
	judge := append([]string{base}, sv[1:]...)
	if r := w.runsWritten(base, sv[0], judge, st); r != "" {
		return r
	}
	if w.linksOpaque != "" {
		return w.linksOpaque + " ran earlier in this command and may have replaced the script"
	}
	for i := range w.res.Leaves {
		lf := &w.res.Leaves[i]
		if lf.RunsUnknown != "" {
			return printableWord(lf.Program) + " ran earlier in this command and may have changed the script (permopa cannot tell what it runs)"
		}
		if !lf.ReadOnly && packageManagers[path.Base(lf.Program)] && lf.Script == "" {
			return printableWord(strings.Join(lf.Argv, " ")) + " ran earlier in this command and may have changed package.json or the files its scripts run"
		}
	}
	return ""
}

// scriptKind names what a program with a script reader runs, for reasons.
func scriptKind(base string) string {
	if packageManagers[base] {
		return "a package script"
	}
	return "a makefile's recipes"
}

// packageManagers rewrite package.json and node_modules when they are not
// read-only (npm pkg set, npm install, yarn add).
var packageManagers = map[string]bool{"npm": true, "yarn": true, "pnpm": true, "bun": true, "corepack": true}

// projectBin says why a command name inside a package script is the
// project's code: it is (or may be) in node_modules/.bin, which the
// package manager puts first on PATH. "" when it is not.
func (w *walker) projectBin(name string, fr frame) string {
	if len(fr.binDirs) == 0 || shellBuiltins[name] || strings.Contains(name, "/") {
		return ""
	}
	for _, d := range fr.binDirs {
		// The directory is stamped (its modification time changes with
		// its entries); the name in it only probed.
		dirExists, ok := w.scriptFiles().Exists(d)
		exists := false
		if ok && dirExists {
			exists, ok = w.scriptFiles().Probe(filepath.Join(d, name))
		}
		if !ok {
			return "permopa looked up more command names in node_modules/.bin than it reads; " + name + " may be the project's"
		}
		if exists {
			return firstNonEmpty(fr.script, "a package script") + " runs " + name + ", the project's " + filepath.Join(d, name) + ", whose code permopa does not read"
		}
	}
	return ""
}

// ReadsFiles reports whether the analysis looked at script files on disk
// (read or probed them): it then holds only while they are unchanged.
func (a *Analysis) ReadsFiles() bool { return len(a.stamps) > 0 }

// ScriptFiles describes the script files the analysis looked at as they
// are now on disk (path, target, size, times, inode; absent ones too), for
// the decision cache to compare (builtins/record.go). "" when none.
func (a *Analysis) ScriptFiles() string {
	var b strings.Builder
	for _, s := range a.stamps {
		fmt.Fprintf(&b, "%q %q %t %t %d %d %d %d\n", s.Path, s.Real, s.Exists, s.Dir, s.Size, s.Mtime, s.Ctime, s.Inode)
	}
	return b.String()
}
