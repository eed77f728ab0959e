package flagspec

import "strings"

// Shell builtins that print state when given no operand and change it when
// given one: ulimit, umask, export, alias, set, shopt, hash, trap, declare.
// Their print forms are read-only, and so are the changes that stay in the
// shell running the command and that the analyser models.

// ulimit prints limits; an operand sets one.
var ulimitSpec = &spec{
	allow: `-a -b -c -d -e -f -i -k -l -m -n -p -q -r -s -t -u -v -x -H -S -P -T -R`,
	noStd: true,
	ops:   opsNone,
}

// umask prints the mask (-S symbolically, -p reusable); an operand sets it.
var umaskSpec = &spec{allow: `-S -p`, noStd: true, ops: opsNone}

// export and alias print with no operand (export -p); any other operand
// defines or changes something for later commands, except an export of a
// variable of the transparent environment (export LC_ALL=C).
var exportSpec = &spec{allow: `-p`, noStd: true, ops: opsHook, check: func(st *state) {
	for _, o := range st.ops {
		if n, _, ok := strings.Cut(o, "="); !ok || !TransparentEnvName(n) {
			st.fail("export: exporting " + printable(o) + " changes the environment of later commands")
			return
		}
	}
}}

// TransparentEnvName reports the environment variables a command may set
// for the programs it runs and stay read-only (docs/shell.md, Wrappers):
// the locale, the time zone and the terminal's description.
func TransparentEnvName(name string) bool {
	switch name {
	case "LANG", "TZ", "NO_COLOR", "TERM", "COLUMNS":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}

var aliasSpec = &spec{allow: `-p`, noStd: true, ops: opsNone}

// The shell options set, set -o and shopt -o may change in a read-only
// command: they change error handling, tracing and how a failing command
// is treated, or turn globbing off (set -f: words stay as written, fewer
// names than the analysis assumes). Not: -a/allexport (later assignments
// reach the environment of programs), -k/keyword (an assignment anywhere
// in argv does), -B/braceexpand (words become other than the analysis
// reads them), -P/physical (cd resolves links otherwise), -p/privileged,
// -H/histexpand, posix (tilde expansion in arguments changes), and the
// rest, unmodelled (docs/shell.md, "Shell state").
// -m/monitor (job control) only changes which process group a job runs
// in and whether the shell reports finished jobs.
var setOptionLetters = "euxvfCEThm"
var setOptionNames = map[string]bool{
	"errexit": true, "nounset": true, "xtrace": true, "verbose": true, "noglob": true, "noclobber": true,
	"errtrace": true, "functrace": true, "hashall": true, "pipefail": true, "monitor": true,
}

// ShoptGlobOptions are the shopt options that change what a glob matches
// (the analyser reads globs as bash does by default): set, a later glob
// word is not judged read-only (builtins/bash, globsChanged).
var ShoptGlobOptions = map[string]bool{
	"nullglob": true, "dotglob": true, "nocaseglob": true, "globstar": true, "extglob": true,
	"globasciiranges": true, "globskipdots": true,
}

// shoptOptions are the shopt options a read-only command may set or unset:
// the glob options above (modelled by the analyser), failglob (a pattern
// that matches nothing fails the command), and options that only change
// matching in case and [[ ]] (whose every branch is analysed), the last
// pipeline part's shell, error handling, echo's escapes and interactive
// history. Not: expand_aliases (the user's aliases would run), sourcepath,
// extdebug, assoc_expand_once and the other options that change how
// subscripts, variables or functions behave.
var shoptOptions = map[string]bool{
	"failglob": true, "nocasematch": true, "lastpipe": true, "inherit_errexit": true, "xpg_echo": true,
	"checkwinsize": true, "histappend": true, "cmdhist": true, "lithist": true, "checkhash": true,
	// Error handling only: a failed exec no longer ends a non-interactive
	// shell (the commands after it are walked either way), error messages
	// in GNU's format, shift past $# says so.
	"execfail": true, "gnu_errfmt": true, "shift_verbose": true,
}

// SetOperand reports a word of set that starts its positional parameters
// whatever an expansion in it gives: it starts with a literal character
// that is not - or + (set X=$(…)), nor a glob character (a name it matches
// could be -x). Bash splits only what expansions give and never the
// literal text, so the first word it yields starts with that character
// too, and every word after it is a parameter (bash takes them as one).
func SetOperand(a string) bool {
	return a != "" && !strings.HasPrefix(a, Dynamic) && !strings.ContainsRune("-+*?[", rune(a[0]))
}

// ShoptOptionAtEnd reports a shopt option of bash 5.2 that a shell nothing
// runs after may set or unset (builtins/bash, endOfShellJudge): none acts at
// exit or on what the hosts run after the command (Claude Code's pwd -P,
// Gemini CLI's EXIT trap), checked under strace for each option both ways
// in each host's shape (docs/shell.md, "Shell state"). Not expand_aliases:
// Gemini CLI's trap is parsed when it runs. A name bash 5.2 does not have
// is not modelled.
func ShoptOptionAtEnd(name string) bool { return shoptOptionsBash52[name] && name != "expand_aliases" }

var shoptOptionsBash52 = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`autocd assoc_expand_once cdable_vars cdspell checkhash checkjobs
		checkwinsize cmdhist compat31 compat32 compat40 compat41 compat42 compat43 compat44 complete_fullquote
		direxpand dirspell dotglob execfail expand_aliases extdebug extglob extquote failglob force_fignore
		globasciiranges globskipdots globstar gnu_errfmt histappend histreedit histverify hostcomplete
		huponexit inherit_errexit interactive_comments lastpipe lithist localvar_inherit localvar_unset
		mailwarn no_empty_cmd_completion nocaseglob nocasematch noexpand_translation nullglob
		patsub_replacement progcomp progcomp_alias promptvars shift_verbose sourcepath varredir_close xpg_echo`) {
		shoptOptionsBash52[n] = true
	}
}

// set with no argument prints every variable (an environment dump,
// environ.go); set -o and set +o list the options; set -- clears the
// positional parameters. Operands (after --, -, or from the first word
// that starts with neither - nor +: bash takes every later word as one,
// "set a -x" sets $2 to -x) set the positional parameters, which only
// this shell sees: the analyser takes them as unknown after any set with
// operands (builtins/bash/positional.go; at the top of a command they are
// unknown anyway). "set -" also turns -x and -v off. A word only known at
// run time before the operands may be any option.
var setSpec = &spec{anyArgs: true, noStd: true, check: func(st *state) {
	args := st.argv[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, Dynamic):
			st.fail("set: a word only known at run time may set any option")
			return
		case SetOperand(a):
			return // a, and every word after it, are positional parameters
		case strings.Contains(a, Dynamic):
			st.fail("set: a word only known at run time may set any option")
			return
		case a == "--" || a == "-":
			return // the rest are positional parameters
		case a == "-o" || a == "+o":
			if i+1 < len(args) {
				i++
				if !setOptionNames[args[i]] {
					st.fail("set: option " + printable(args[i]) + " changes what later commands do")
					return
				}
			}
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			for j := 1; j < len(a); j++ {
				switch {
				case a[j] == 'o' && j == len(a)-1:
					if i+1 < len(args) {
						i++
						if !setOptionNames[args[i]] {
							st.fail("set: option " + printable(args[i]) + " changes what later commands do")
							return
						}
					}
				case strings.IndexByte(setOptionLetters, a[j]) < 0:
					st.fail("set: option " + printable(string(a[0])+string(a[j])) + " changes what later commands do")
					return
				}
			}
		default:
			return // a, and every word after it, are positional parameters
		}
	}
}}

// shopt prints options (no operand, -p, -q, a name alone) and sets the
// options of shoptOptions and ShoptGlobOptions with -s/-u (-o: set's
// options).
var shoptSpec = &spec{anyArgs: true, noStd: true, check: func(st *state) {
	changes, setNames := false, false
	var names []string
	for _, a := range st.argv[1:] {
		switch {
		case strings.Contains(a, Dynamic):
			st.fail("shopt: a word only known at run time may set any option")
			return
		case len(a) > 1 && a[0] == '-' && names == nil:
			for _, c := range a[1:] {
				switch c {
				case 's', 'u':
					changes = true
				case 'o':
					setNames = true
				case 'p', 'q':
				default:
					st.fail("shopt: option " + printable("-"+string(c)) + " is not modelled")
					return
				}
			}
		default:
			names = append(names, a)
		}
	}
	if !changes {
		return
	}
	for _, n := range names {
		if setNames && !setOptionNames[n] || !setNames && !shoptOptions[n] && !ShoptGlobOptions[n] {
			st.fail("shopt: option " + printable(n) + " changes what later commands do")
			return
		}
	}
}}

// hash prints the remembered locations of programs (no operand, -l, -t
// NAME), forgets them (-r, -d NAME) or looks names up in PATH; -p makes
// a name run another program.
var hashSpec = &spec{allow: `-l -r -t -d`, noStd: true, ops: opsText,
	deny: []denial{{`-p=`, "makes a command name run another program"}}}

// trap prints the traps (no operand, -p [SIGNAL...]) and the signal names
// (-l); any other use installs a command (builtins/bash walks it).
var trapSpec = &spec{anyArgs: true, noStd: true, check: func(st *state) {
	args := st.argv[1:]
	if len(args) == 0 || len(args) == 1 && args[0] == "-l" {
		return
	}
	if args[0] == "-p" {
		for _, a := range args[1:] {
			if strings.Contains(a, Dynamic) || strings.HasPrefix(a, "-") {
				st.fail("trap: installs a command")
				return
			}
		}
		return
	}
	st.fail("trap installs commands run on signals")
}}

// declare, typeset, readonly and local print variables (no operand, -p,
// -p NAME...) or functions (-f, -F); builtins/bash judges the forms that
// assign (the environment dump is environ.go's). A name alone declares a
// variable in this shell (local x), read-only for shell-local names.
var declareSpec = &spec{allow: `-p -f -F`, noStd: true, ops: opsHook, check: func(st *state) {
	printing := false // -p, -f and -F (the only options allowed) print
	for _, a := range st.argv[1:] {
		printing = printing || len(a) > 1 && a[0] == '-' && a != "--"
	}
	for _, o := range st.ops {
		if n, _, ok := strings.Cut(o, "="); ok && ShellLocalName(strings.TrimSuffix(n, "+")) {
			continue // a variable of this shell only; builtins/bash walks the value
		}
		if !printing && isIdent(o) && !ShellLocalName(o) {
			// local PATH unsets PATH in the function; declare IFS,
			// readonly PATH change how the shell reads later words.
			st.fail(st.argv[0] + ": declaring " + printable(o) + " may change what later commands do")
			return
		}
		if !isIdent(o) {
			st.fail(st.argv[0] + ": operand " + printable(o) + " assigns or names more than a plain variable")
			return
		}
	}
}}

// read reads a line of stdin into variables: builtins/bash decides which
// names a read-only command may assign (ShellLocalName) and walks their
// subscripts. -e reads with readline (the user's inputrc, key bindings
// that run commands) and -i only applies with it.
var readSpec = &spec{allow: `-r -s -a=@a -d= -n= -N= -p= -t= -u=`, noStd: true, posix: true, ops: opsHook,
	deny: []denial{{`-e -i=`, "reads with readline, which loads key bindings that can run commands"}},
	check: func(st *state) {
		names := append([]string(nil), st.ops...)
		for _, mv := range st.vals {
			if mv.mark == 'a' {
				names = append(names, mv.val)
			}
		}
		for _, n := range names {
			if !ShellLocalName(n) {
				st.fail("read: assigning " + printable(n) + " may change what later commands do")
				return
			}
		}
	}}

// ShellLocalName reports whether assigning the variable name changes
// nothing but this shell: a name with a lower-case letter (bash's own
// variables, PATH, LD_PRELOAD, PAGER, GIT_DIR and the like are upper case)
// that no program is known to read from its environment (the proxy
// variables, npm's, yarn's and pnpm's npm_config_* and the like) and no
// shell gives a meaning (notShellLocal). A variable the user's
// environment exports stays exported when assigned: that environment is
// the user's, as PATH is (docs/shell.md, "Values and where they come
// from").
func ShellLocalName(n string) bool {
	if !isIdent(n) || notShellLocal[n] || strings.ToUpper(n) == n {
		return false
	}
	l := strings.ToLower(n)
	return !strings.HasPrefix(l, "http") && !strings.HasSuffix(l, "_proxy") && !strings.HasPrefix(l, "npm_") &&
		!strings.HasPrefix(l, "yarn_") && !strings.HasPrefix(l, "pnpm_")
}

// notShellLocal are lower-case names a shell gives a meaning: bash's
// histchars and auto_resume, the parameters zsh ties to its environment
// variables (path is PATH) or reads (prompt, watch), should the command
// run in zsh, and the variables of a host's code around the command.
var notShellLocal = map[string]bool{
	"histchars": true, "auto_resume": true, "path": true, "cdpath": true, "fpath": true, "manpath": true,
	"mailpath": true, "module_path": true, "fignore": true, "psvar": true, "watch": true, "prompt": true,
	"argv": true, "status": true, "pipestatus": true,
	// The hosts' own shell code runs after the command in the same shell
	// (docs/hosts.md, "Shell state between calls"): Gemini CLI's EXIT
	// trap writes `jobs -p` to $_bgpids_file, then exits with $__code.
	"_bgpids_file": true, "__code": true,
}

// shift drops positional parameters, whose values the analyser never
// knows ("$1" is always an unknown word): a count, or none.
var shiftSpec = &spec{anyArgs: true, noStd: true, check: func(st *state) {
	args := st.argv[1:]
	if len(args) > 1 || len(args) == 1 && !allDigits(args[0]) {
		st.fail("shift: operand is not a count")
	}
}}

// unset removes variables (-v, or none) or functions (-f). A variable is
// read-only to remove when it is a variable of the shell only
// (ShellLocalName): unsetting PATH, IFS or a variable a program reads
// changes what later commands do. A function may always be removed: the
// name then runs the program or builtin the analyser judges it as (a
// call of a function the command defines is never read-only). Not -n
// (a nameref's target would be reached otherwise).
var unsetSpec = &spec{anyArgs: true, noStd: true, check: func(st *state) {
	funcs, opts := false, true
	for _, a := range st.argv[1:] {
		switch {
		case strings.Contains(a, Dynamic):
			st.fail("unset: a name only known at run time")
			return
		case opts && a == "--":
			opts = false
		case opts && len(a) > 1 && a[0] == '-':
			for _, c := range a[1:] {
				switch c {
				case 'f':
					funcs = true
				case 'v':
					funcs = false
				default:
					st.fail("unset: option " + printable("-"+string(c)) + " is not modelled")
					return
				}
			}
		default:
			opts = false
			if !funcs && !ShellLocalName(a) {
				st.fail("unset: removing " + printable(a) + " may change what later commands do")
				return
			}
		}
	}
}}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// jobs lists the shell's jobs.
var jobsSpec = &spec{allow: `-l -n -p -r -s`, noStd: true, ops: opsText}

// ss and netstat list sockets. ss -K/--kill closes sockets; ss -D/--diag
// writes raw information to a file; -F/--filter reads a filter file.
var ssSpec = &spec{
	allow: `-h --help -V --version -H --no-header -O --oneline -n --numeric -r@r --resolve@r -a --all
		-l --listening -o --options -e --extended -m --memory -p --processes -T --threads -i --info
		--tos --cgroup --tipcinfo -s --summary -E --events -Z --context -z --contexts -N= --net=
		-b --bpf -4 --ipv4 -6 --ipv6 -0 --packet -t --tcp -M --mptcp -S --sctp -u --udp -d --dccp
		-w --raw -x --unix --tipc --vsock --xdp --inet-sockopt -f= --family= -A= --query= --socket=
		-F=r --filter=r`,
	deny: []denial{
		{`-K --kill`, "closes sockets"},
		{`-D=w --diag=w`, "writes to a file"},
	},
	ops: opsText,
}
var netstatSpec = &spec{
	allow: `-a --all -t --tcp -u --udp -w --raw -x --unix -l --listening -n@n --numeric@n -p --program
		-e --extend -o --timers -r --route -i --interfaces -s --statistics -g --groups -M --masquerade
		-c --continuous -W --wide -4 -6 -A= -f= -v --verbose -N -F -C -Z --context --numeric-hosts
		--numeric-ports --numeric-users -T --notrim -b -I= -L -m -q -R -S`,
	// -r (routes) without -n prints host names: a network read (net.go).
	ops: opsNone,
}

// lsof lists open files; none of its options write (+|-r repeats, -F
// formats). Its "+" options (+D dir, +c n, ...) are read as operands.
var lsofSpec = &spec{
	allow: `-a -b -C -h -l -n@n -N -O -P -R -t -U -v -V -X -w -K? -i? -c= -d= -D= -e= -E -F? -g? -k=r
		-L? -M -o? -p= -r? -s? -S? -T? -u= -x?`,
	ops: opsText,
}

func init() {
	register(ulimitSpec, "ulimit")
	register(umaskSpec, "umask")
	register(exportSpec, "export")
	register(aliasSpec, "alias")
	register(jobsSpec, "jobs")
	register(setSpec, "set")
	register(shoptSpec, "shopt")
	register(hashSpec, "hash")
	register(trapSpec, "trap")
	register(declareSpec, "declare", "typeset", "readonly", "local")
	register(readSpec, "read")
	register(shiftSpec, "shift")
	register(unsetSpec, "unset")
	register(ssSpec, "ss")
	register(netstatSpec, "netstat")
	register(lsofSpec, "lsof")
}
