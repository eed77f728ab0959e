package bash

import (
	"strings"

	"github.com/permopa/permopa/builtins/flagspec"
	"github.com/permopa/permopa/builtins/scriptfile"
)

// wrapper is a program the walker reads itself rather than through its
// flag spec: a wrapper whose command it unwraps, a builtin that runs shell
// code, a builtin that changes the shell's state (docs/shell.md,
// "Wrappers"). Programs that run their operands and are not here are read
// by their flag spec (flagspec's Verdict.Runs: strace, flock, chroot, ...);
// the sh-family shells by shellCmd.
type wrapper struct {
	// kind is what the vocabulary's one table of programs that run code
	// says the program is (flagspec.RunsCode); NoCode for the builtins
	// that only change or list the shell's state. TestWrapperTableDrift
	// holds it to the vocabulary.
	kind flagspec.CodeKind
	// opts are the options before the command it runs.
	opts optSpec
	// skip is the number of operands before the command (timeout DURATION).
	skip int
	// transparent: allow rules see the command it runs, which is read-only
	// when that command is (env only without options, and with only
	// allowlisted assignments).
	transparent bool
	// detached: after it, the shell's state is what it was before, not
	// what the command it runs leaves (exec, setsid).
	detached bool
	// What the wrapper itself does, by option (short and long name): reads
	// the file named by (xargs -a), writes it (time -o), or runs the
	// command in that directory (env -C, sudo -D).
	reads, writes, chdir []string
	// walk reads one call; done is false when the call runs no command
	// (nice with no operand): it is then judged as a plain leaf.
	walk func(w *walker, c *wrapperCall) (st, next state, done bool)
}

// wrapperCall is one call of a program in wrappers.
type wrapperCall struct {
	*wrapper
	name  string // the program, without its directory
	argv  []word
	sv    []string
	fr    frame
	st    state
	stdin *string
	piped pipedInput
}

// wrappers are the programs the walker reads itself, by name.
var wrappers map[string]*wrapper

func init() {
	// Filled here: the handlers call w.command, which reads the table.
	wrappers = map[string]*wrapper{
		"env": {kind: flagspec.Wrapper, transparent: true, walk: (*walker).envCmd, chdir: []string{"C", "chdir"},
			opts: optSpec{shortVal: "uCS", shortFlag: "i0v",
				longVal:  []string{"unset", "chdir", "split-string", "block-signal", "default-signal", "ignore-signal"},
				longFlag: []string{"ignore-environment", "null", "debug", "list-signal-handling"}}},
		"command": {kind: flagspec.Wrapper, transparent: true, walk: (*walker).commandCmd,
			opts: optSpec{shortFlag: "pvV"}},
		"builtin": {kind: flagspec.Wrapper, transparent: true, walk: (*walker).builtinCmd},
		"exec": {kind: flagspec.Wrapper, transparent: true, detached: true, walk: (*walker).execCmd,
			opts: optSpec{shortVal: "a", shortFlag: "cl"}},
		"nice": {kind: flagspec.Wrapper, transparent: true, walk: (*walker).runsOperands,
			opts: optSpec{shortVal: "n", longVal: []string{"adjustment"}, numeric: true}},
		"nohup": {kind: flagspec.Wrapper, transparent: true, walk: (*walker).nohupCmd},
		"timeout": {kind: flagspec.Wrapper, transparent: true, skip: 1, walk: (*walker).runsOperands,
			opts: optSpec{shortVal: "sk", shortFlag: "v",
				longVal: []string{"signal", "kill-after"}, longFlag: []string{"preserve-status", "foreground", "verbose"}}},
		"stdbuf": {kind: flagspec.Wrapper, transparent: true, walk: (*walker).runsOperands,
			opts: optSpec{shortVal: "ioe", longVal: []string{"input", "output", "error"}}},
		"time": {kind: flagspec.Wrapper, transparent: true, walk: (*walker).timeCmd, writes: []string{"o", "output"},
			opts: optSpec{shortVal: "fo", shortFlag: "apqvV",
				longVal: []string{"format", "output"}, longFlag: []string{"append", "portability", "quiet", "verbose"}}},
		"sudo":    {kind: flagspec.Wrapper, walk: (*walker).sudoCmd, opts: sudoOpts, chdir: []string{"D", "chdir"}},
		"doas":    {kind: flagspec.Wrapper, walk: (*walker).sudoCmd, opts: sudoOpts, chdir: []string{"D", "chdir"}},
		"su":      {kind: flagspec.Wrapper, walk: (*walker).suCmd},
		"runuser": {kind: flagspec.Wrapper, walk: (*walker).suCmd},
		"watch": {kind: flagspec.Wrapper, walk: (*walker).watchCmd,
			opts: optSpec{shortVal: "n", shortFlag: "tbegcxpqwr", shortOpt: "d",
				longVal: []string{"interval"},
				longFlag: []string{"no-title", "beep", "errexit", "chgexit", "color", "no-color", "exec", "precise",
					"no-wrap", "no-rerun"},
				longOpt: []string{"differences"}}},
		"setsid": {kind: flagspec.Wrapper, detached: true, walk: (*walker).runsOperands,
			opts: optSpec{shortFlag: "cfw", longFlag: []string{"ctty", "fork", "wait"}}},
		"ionice": {kind: flagspec.Wrapper, walk: (*walker).runsOperands,
			opts: optSpec{shortVal: "cnp", shortFlag: "t", longVal: []string{"class", "classdata"}, longFlag: []string{"ignore"}}},
		"xargs": {kind: flagspec.Wrapper, walk: (*walker).xargsCmd, reads: []string{"a", "arg-file"},
			opts: optSpec{shortVal: "adEILnPs", shortFlag: "0oprtx", shortOpt: "eil",
				longVal: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
				longFlag: []string{"null", "open-tty", "interactive", "no-run-if-empty", "verbose", "exit",
					"show-limits"},
				longOpt: []string{"eof", "replace", "max-lines"}}},
		"find":    {kind: flagspec.DataRunner, walk: (*walker).findCmd},
		"eval":    {kind: flagspec.ShellCode, walk: (*walker).evalCmd},
		"source":  {kind: flagspec.ShellCode, walk: (*walker).sourceCmd},
		".":       {kind: flagspec.ShellCode, walk: (*walker).sourceCmd},
		"trap":    {kind: flagspec.ShellCode, walk: (*walker).trapCmd},
		"alias":   {walk: (*walker).aliasCmd},
		"shopt":   {walk: (*walker).shellSettingCmd},
		"enable":  {walk: (*walker).shellSettingCmd},
		"unalias": {walk: (*walker).shellSettingCmd},
		"set":     {walk: (*walker).shellSettingCmd},
		"hash":    {walk: (*walker).shellSettingCmd},
		"jobs":    {kind: flagspec.Wrapper, transparent: true, walk: (*walker).jobsCmd},
		"cd":      {walk: (*walker).cdCmd},
		"pushd":   {walk: (*walker).cdCmd},
		"popd":    {walk: (*walker).popdCmd},
	}
}

// sudoOpts are sudo's and doas's options.
var sudoOpts = optSpec{shortVal: "aCcDghpRrTtUu", shortFlag: "AbEeHiKklnPSsVvBN",
	longVal: []string{"user", "group", "chdir", "chroot", "close-from", "host", "prompt", "role", "type",
		"command-timeout", "other-user", "login-class", "auth-type"},
	longFlag: []string{"askpass", "background", "bell", "edit", "login", "remove-timestamp",
		"reset-timestamp", "list", "non-interactive", "preserve-groups", "stdin", "shell", "validate", "set-home"},
	longOpt: []string{"preserve-env"}}

// failed is wrapperFailed for a call.
func (w *walker) failed(c *wrapperCall) (state, state, bool) {
	st, next := w.wrapperFailed(c.argv, c.fr, c.st, c.name)
	return st, next, true
}

// runsOperands: WRAPPER [options] [skip operands] cmd args (nice, timeout,
// stdbuf, exec, setsid, ionice).
func (w *walker) runsOperands(c *wrapperCall) (state, state, bool) {
	_, i, ok := c.opts.scan(c.argv)
	if !ok {
		return w.failed(c)
	}
	if i += c.skip; i >= len(c.argv) {
		return c.st, c.st, false
	}
	st, next := w.command(c.argv[i:], c.fr.wrap(c.name, c.sv, c.transparent, ""), c.st, c.stdin)
	if c.detached {
		return c.st, c.st, true
	}
	return st, next, true
}

// commandCmd: command [-p] cmd args runs cmd; command -v and -V look it up.
func (w *walker) commandCmd(c *wrapperCall) (state, state, bool) {
	opts, _, ok := c.opts.scan(c.argv)
	if !ok {
		return w.failed(c)
	}
	if _, lookup := hasOpt(opts, "v", "V"); lookup {
		w.leaf(c.fr, c.st, c.argv, "")
		return c.st, c.st, true
	}
	return w.runsOperands(c)
}

// builtinCmd: builtin [--] name args.
func (w *walker) builtinCmd(c *wrapperCall) (state, state, bool) {
	i := 1
	if len(c.argv) > 1 && c.argv[1].s == "--" {
		i = 2
	}
	if i >= len(c.argv) {
		return c.st, c.st, false
	}
	st, next := w.command(c.argv[i:], c.fr.wrap(c.name, c.sv, true, ""), c.st, c.stdin)
	return st, next, true
}

// nohupCmd: nohup [--] cmd args; nohup's own options (--help) run nothing.
func (w *walker) nohupCmd(c *wrapperCall) (state, state, bool) {
	i := 1
	if len(c.argv) > 2 && c.argv[1].s == "--" {
		i = 2
	} else if len(c.argv) < 2 || strings.HasPrefix(c.argv[1].s, "-") {
		return c.st, c.st, false
	}
	st, next := w.command(c.argv[i:], c.fr.wrap(c.name, c.sv, true, ""), c.st, c.stdin)
	return st, next, true
}

// timeCmd: time [-o FILE] cmd args; -o writes FILE, so the wrapper is no
// longer transparent.
func (w *walker) timeCmd(c *wrapperCall) (state, state, bool) {
	opts, i, ok := c.opts.scan(c.argv)
	if !ok {
		return w.failed(c)
	}
	if i >= len(c.argv) {
		return c.st, c.st, false
	}
	inner := c.fr.wrap(c.name, c.sv, true, "")
	if o, has := hasOpt(opts, c.writes...); has {
		inner = w.redirWriteFrame(c.fr.wrap(c.name, c.sv, false, ""), c.st, o.value)
	}
	st, next := w.command(c.argv[i:], inner, c.st, c.stdin)
	return st, next, true
}

// watchCmd: watch [-x] cmd args; repeating a read-only command reads, and
// allow rules still see watch's whole argv (not transparent).
func (w *walker) watchCmd(c *wrapperCall) (state, state, bool) {
	opts, i, ok := c.opts.scan(c.argv)
	if !ok {
		return w.failed(c)
	}
	if i >= len(c.argv) {
		return c.st, c.st, false
	}
	inner := c.fr.wrap(c.name, c.sv, false, "")
	if _, direct := hasOpt(opts, "x", "exec"); direct {
		w.command(c.argv[i:], inner, c.st, nil)
		return c.st, c.st, true
	}
	// watch joins its operands and runs them with sh -c.
	if anyDynamic(c.argv[i:]) {
		w.unanalysable("watch command is not static")
		return c.st, c.st, false
	}
	w.script(strings.Join(c.sv[i:], " "), inner.withCode(c.sv, len(c.sv)), c.st, c.name)
	return c.st, c.st, true
}

// xargsCmd: xargs [options] [cmd args]; the command runs with the lines
// or paths xargs reads appended (or in place of -I's placeholder).
func (w *walker) xargsCmd(c *wrapperCall) (state, state, bool) {
	opts, i, ok := c.opts.scan(c.argv)
	fr, st := c.fr, c.st
	inner := fr.wrap(c.name, c.sv, false, "xargs appends operands that are not known statically")
	if o, has := hasOpt(opts, c.reads...); has {
		inner = w.redirReadFrame(inner, st, o.value)
	}
	if !ok {
		return w.failed(c)
	}
	if o, has := hasOpt(opts, "I", "i", "replace"); has {
		inner.placeholder = o.value
		if inner.placeholder == "" {
			inner.placeholder = "{}"
		}
	}
	cmd := c.argv[i:]
	if i >= len(c.argv) && fr.appends {
		// An outer xargs appends its words to this one's argv: the
		// first is the command this xargs runs (find . -name '*.sh' |
		// xargs xargs runs ./a.sh), not echo's operand.
		why := "xargs runs the command named by a word an outer xargs appends, only known at run time"
		w.unanalysable(why)
		w.leaf(fr, st, c.argv, why)
		return st, st, true
	}
	if i >= len(c.argv) {
		cmd = wordsOf([]string{"echo"}) // xargs runs echo by default
	}
	inner.appends = inner.placeholder == ""
	inner.dataRoots, inner.dataDepth, inner.pasteNames = nil, 0, nil
	keeps, pipedWhy := c.piped.keptBy(xargsSplitOf(opts))
	if pipedWhy != "" {
		inner.forced = append(append([]string(nil), fr.forced...), "xargs appends operands that are not known statically: "+pipedWhy)
	}
	if why := inner.forced[len(inner.forced)-1]; inner.appends && xargsAppendsText(opts, cmd) {
		// Any text as words appended at the end, judged as an unquoted
		// run-time word there (dataflow.go).
		inner.forced, inner.appendsText = fr.forced, why
	}
	if keeps {
		// find ROOT -print0 | xargs -0 CMD: each operand is one path
		// under ROOT (dataflow.go, findpipe.go).
		inner.forced, inner.appendsText = fr.forced, ""
		inner.dataRoots, inner.dataDepth = c.piped.roots, c.piped.depth
		_, noEmpty := hasOpt(opts, "r", "no-run-if-empty")
		inner.dataEmpty = inner.appends && !noEmpty
		if !inner.appends {
			inner.pasteNames = c.piped.pasteNames
		}
	}
	w.command(cmd, inner, st, nil)
	return st, st, true
}

// sourceCmd: source FILE args, . FILE args. A script file is a file the
// analyser does not read, like any script (its content is governed by
// Write and Edit rules); a script that is not a file on disk (a process
// substitution, stdin, a name only known at run time) is code nobody sees.
func (w *walker) sourceCmd(c *wrapperCall) (state, state, bool) {
	argv, fr := c.argv, c.fr
	unknown := state{unknown: true}
	if len(argv) < 2 || unseenScript(argv[1]) {
		fr.unknown = firstNonEmpty(fr.unknown, c.name+" runs a script that is not a file permopa can name")
	} else if w.shellScript(argv, argv[1], sourceZero(w.pos), argv[2:], len(argv) == 2, fr, c.st, scriptfile.BySource, "source runs a script in this shell") {
		return unknown, unknown, true
	} else {
		fr.unknown = firstNonEmpty(fr.unknown, c.name+" runs "+argv[1].s+", a script file permopa did not read")
	}
	w.leaf(fr, c.st, argv, "source runs a script in this shell")
	return unknown, unknown, true
}

// aliasCmd: alias NAME=TEXT ... defines names later commands run; alias
// and alias -p list.
func (w *walker) aliasCmd(c *wrapperCall) (state, state, bool) {
	for _, a := range c.argv[1:] {
		if n, v, ok := strings.Cut(a.s, "="); ok && !a.dynamic {
			if w.defined == nil {
				w.defined = map[string]string{}
			}
			w.defined[n] = "alias"
			if !c.fr.tail {
				w.script(v, c.fr.wrap("alias "+n, c.sv, false, "alias changes what a name runs").withCode(c.sv, len(c.sv)), c.st, "alias")
			}
		}
	}
	reason := "alias changes what a name runs"
	if listsOnly(c.argv[1:], "-p") || c.fr.tail && !aliasesHostTrailer(c.argv[1:]) {
		// alias and alias -p list the aliases; a definition nothing
		// runs after is never used: the body is not walked, since
		// it never runs (docs/shell.md, "Shell state").
		reason = ""
	}
	w.leaf(c.fr, c.st, c.argv, reason)
	return c.st, c.st, true
}

// shellSettingCmd: set, shopt, unalias, enable, hash. set, shopt and hash
// are judged by their flag specs: their listing forms and the options that
// stay in this shell are read-only (flagspec/shell.go); a glob option is
// modelled where globs are judged (globsChanged).
func (w *walker) shellSettingCmd(c *wrapperCall) (state, state, bool) {
	fr, reason := c.fr, ""
	switch {
	case c.name == "enable" || c.name == "unalias":
		reason = c.name + " changes shell behaviour"
		if c.name == "enable" && len(c.argv) > 1 {
			// enable -f loads builtins from a shared object; enable -n
			// makes a name run a program instead of a builtin.
			fr.unknown = "enable changes which builtins and programs names run"
		}
	case c.name == "hash" && len(c.argv) > 1 && (hashSets(c.sv) || anyDynamic(c.argv[1:])):
		// hash -p /bin/rm git: "git" then runs /bin/rm.
		fr.unknown = "hash -p makes a command name run another program"
	}
	w.leaf(fr, c.st, c.argv, reason)
	return c.st, c.st, true
}

// trapCmd: trap [-p|-l] | trap STRING SIGNAL...; the string runs on a signal.
func (w *walker) trapCmd(c *wrapperCall) (state, state, bool) {
	argv, fr := c.argv, c.fr
	switch {
	case len(argv) < 2 || argv[1].s == "-p" || argv[1].s == "-l":
		// trap -p and trap -l print; their operands are signal names.
	case !argv[1].dynamic:
		w.unanalysableSeen("trap runs a string as a command")
		w.script(argv[1].s, fr.wrap("trap", c.sv, false, "trap runs a string as a command").withCode(c.sv, 2), c.st, "trap")
	default:
		fr.unknown = "trap runs a string only known at run time"
	}
	w.leaf(fr, c.st, argv, "")
	return c.st, c.st, true
}

// jobsCmd: jobs -x CMD ARGS runs CMD with every word that is a job spec
// (%1, %+, %name) replaced by that job's process group, or kept as written
// when there is no such job (bash 5.2); jobs -x takes no other option
// (jobs -x -- x is an error). A job spec is judged as a word only known at
// run time (a number or the word; not an option, but a path or a command
// name the analysis cannot know). Without -x jobs lists the jobs (its flag
// spec).
func (w *walker) jobsCmd(c *wrapperCall) (state, state, bool) {
	if len(c.argv) < 3 || c.argv[1].s != "-x" || c.argv[1].dynamic {
		return c.st, c.st, false
	}
	argv := append([]word(nil), c.argv[2:]...)
	for i := range argv {
		if strings.HasPrefix(argv[i].s, "%") || argv[i].dynamic {
			argv[i] = word{s: dyn, dynamic: true, splits: argv[i].splits, taint: argv[i].taint}
		}
	}
	st, next := w.command(argv, c.fr.wrap(c.name, c.sv, c.transparent, ""), c.st, c.stdin)
	return st, next, true
}

// popdCmd: popd moves to a directory pushd saved, not tracked.
func (w *walker) popdCmd(c *wrapperCall) (state, state, bool) {
	w.leaf(c.fr, c.st, c.argv, "")
	return state{unknown: true}, state{unknown: true}, true
}

// hostTrailer are the commands a host parses after the command has run, in
// the call's shell (docs/hosts.md, "Shell state between calls"): Gemini CLI's
// EXIT trap's jobs -p, parsed when the trap runs, so an alias of it defined
// at the end of a call would be used (with expand_aliases). Claude Code's
// pwd -P is not one: it is on the line that evals the command, which bash
// parses whole before it runs any of it, so an alias the command defines
// never reaches it (checked under strace in Claude Code's shape, with the
// snapshot's expand_aliases; a function pwd does, and is judged as its body).
var hostTrailer = map[string]bool{"jobs": true}

func aliasesHostTrailer(args []word) bool {
	for _, a := range args {
		n, _, _ := strings.Cut(a.s, "=")
		if strings.Contains(n, dyn) || hostTrailer[n] {
			return true
		}
	}
	return false
}
