package flagspec

import (
	"maps"
	"slices"
)

// CodeKind says how a program runs code that is not in its own argv: an
// interpreter its program, a shell its script, a wrapper the command in
// its operands, a package runner a downloaded package, a data runner what
// its data or script says. A prefix rule for any of them ("python:*",
// "sudo:*", "parallel:*") allows anything.
type CodeKind uint8

const (
	// NoCode: the program runs no code beyond what its flag spec models.
	NoCode CodeKind = iota
	// Interpreter runs a program in its own language from a file, an
	// option (-c, -e) or stdin. Shells whose language is not sh's (fish,
	// csh, pwsh) are interpreters: the analyser cannot read their scripts.
	Interpreter
	// Shell is an sh-family shell: builtins/bash parses its -c script as
	// a shell script (docs/shell.md).
	Shell
	// ShellCode is a shell builtin that runs a string or a file as shell
	// code (eval, source, trap).
	ShellCode
	// Wrapper runs the command given as its operands, here or elsewhere
	// (sudo, env, timeout, xargs, ssh).
	Wrapper
	// PackageRunner downloads and runs a package's program.
	PackageRunner
	// DataRunner runs its data or its script as commands (awk system(),
	// sed's e, find -exec, parallel, a makefile).
	DataRunner
)

// codeRunner is one program's entry in codeRunners.
type codeRunner struct {
	kind CodeKind
	why  string
}

const (
	runsCode    = "runs code"
	isShell     = "is a shell and runs commands"
	runsCommand = "runs any command after it"
	runsPackage = "downloads and runs any package"
)

// codeRunners is the one table of the programs that run code: every other
// list derives from it (interpreterReason here; exactOnly, interpreters and
// shells in builtins/bash; rules lint's wide rules in settings; replay's
// broad allows), and a drift test in each of those packages holds it to
// this table. Interpreters need an entry in inlineCode (interp.go), which
// says where their command line carries code.
var codeRunners = buildCodeRunners()

// buildCodeRunners fills codeRunners; a variable's initializer runs before
// every init function, which derive their tables from it.
func buildCodeRunners() map[string]codeRunner {
	codeRunners := map[string]codeRunner{}
	add := func(kind CodeKind, why string, names ...string) {
		for _, n := range names {
			if _, dup := codeRunners[n]; dup {
				panic("flagspec: " + n + " is twice in codeRunners")
			}
			codeRunners[n] = codeRunner{kind, why}
		}
	}
	add(Interpreter, runsCode, "python", "python2", "python3", "pypy", "pypy3",
		"node", "nodejs", "deno", "bun", "ruby", "irb", "perl", "php", "lua", "luajit",
		"R", "Rscript", "julia", "tclsh", "wish", "expect", "java", "jshell", "jrunscript",
		"guile", "racket", "ocaml", "swift", "scala", "kotlin", "groovy", "erl", "escript",
		"elixir", "iex", "raku", "osascript")
	add(Interpreter, isShell, "fish", "csh", "tcsh", "pwsh", "powershell", "nu", "elvish", "xonsh")
	add(Shell, isShell, "sh", "bash", "rbash", "dash", "ash", "ksh", "ksh93", "mksh", "pdksh", "oksh",
		"loksh", "zsh", "yash", "posh")
	add(ShellCode, "runs any code it is given", "eval", "source", ".")
	add(ShellCode, "installs commands run on signals", "trap")
	add(Wrapper, runsCommand, "env", "sudo", "doas", "su", "runuser", "pkexec", "xargs", "exec", "command",
		"builtin", "nohup", "timeout", "nice", "ionice", "stdbuf", "time", "watch", "setsid", "chroot",
		"unshare", "nsenter", "strace", "ltrace", "gdb", "valgrind", "flock", "script", "taskset", "chrt",
		"setpriv", "sg", "busybox", "fakeroot", "xvfb-run", "dbus-run-session", "catchsegv", "torsocks",
		"proxychains", "proxychains4", "unbuffer", "rlwrap")
	add(Wrapper, "runs any command on another machine (and ProxyCommand here)", "ssh")
	add(Wrapper, "jobs -x runs its operands as a command", "jobs")
	add(PackageRunner, runsPackage, "npx", "pnpx", "bunx", "uvx", "pipx")
	add(DataRunner, "runs any code it is given (system())", "awk", "gawk", "mawk", "nawk")
	add(DataRunner, "runs the commands its script names (the e command, w files)", "sed")
	add(DataRunner, "runs commands built from its input", "parallel")
	add(DataRunner, "runs commands on what it finds (-exec, -execdir, -ok)", "find")
	add(DataRunner, "runs the commands of a makefile", "make", "gmake")
	return codeRunners
}

// RunsCode says whether program runs code that is not in its argv (its
// kind, NoCode for none) and why. Program is a command name, not a path.
func RunsCode(program string) (CodeKind, string) {
	r, ok := codeRunners[program]
	if !ok {
		return NoCode, ""
	}
	return r.kind, r.why
}

// CodeRunners lists the programs RunsCode names, sorted.
func CodeRunners() []string {
	return slices.Sorted(maps.Keys(codeRunners))
}
