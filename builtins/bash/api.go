// Package bash is permopa's shell model: it parses a command line with
// mvdan.cc/sh/v3 (bash dialect), unwraps wrappers, and says per leaf command
// what it runs, what it reads and writes, and whether it is read-only.
//
// Everything it does not model fails closed: not read-only, and not
// analysable when the construct hides what runs.
package bash

import (
	"sync/atomic"

	"github.com/permopa/permopa/builtins/scriptfile"
)

// Options are the facts about the call that the analysis needs.
type Options struct {
	// Cwd is the call's working directory; relative paths resolve against it.
	Cwd string `json:"cwd"`
	// Home is the user's home directory, for ~ and $HOME.
	Home string `json:"home"`
	// WorkingDirectories are the directories the agent may work in (Cwd is
	// always one); removing one of them or a parent is a critical removal.
	WorkingDirectories []string `json:"working_directories"`
	// MaxLength caps the command length in bytes (0: DefaultMaxLength);
	// beyond it a command is not analysable. HardMaxLength applies whatever it says.
	MaxLength int `json:"max_length"`
	// MaxLeaves caps the number of leaf commands (0: DefaultMaxLeaves).
	MaxLeaves int `json:"max_leaves"`
	// ShellPerCall: the host runs the command in a shell of its own that
	// ends with it (only the working directory may carry over, named in
	// the next call's payload), so a change of the shell's state that
	// nothing after it in the command sees is harmless (docs/shell.md,
	// "Shell state"). False, the safe default, for a caller that may keep
	// a shell between calls.
	ShellPerCall bool `json:"shell_per_call"`
	// PositionalEmpty: the host runs the command as the script of
	// bash -c with no words after it, so in the command $1... $@ $* are
	// empty, $# is 0 and BASH_SOURCE is empty ($0, the shell's path, stays
	// unknown: docs/hosts.md, "Shell state between calls"). False, the
	// safe default, for a caller that may pass words after the script.
	PositionalEmpty bool `json:"positional_empty"`
	// StdinTerminal: the command may keep a terminal the agent types into
	// after the call, which no hook sees (Codex's exec_command with a tty,
	// then write_stdin), so a program that reads keys or commands from its
	// terminal (a pager, top, man, git's pager: flagspec's Verdict.Terminal)
	// is not read-only (docs/shell.md, "Terminal input"). False for a
	// caller whose commands have no terminal the agent can type into.
	StdinTerminal bool `json:"stdin_terminal"`
	// GitPagerCat: the host runs every command with GIT_PAGER=cat in its
	// environment (Codex does), which beats core.pager and pager.<cmd>, so
	// git run with that environment pages nothing and keeps no terminal
	// use under StdinTerminal (docs/shell.md, "Terminal input").
	GitPagerCat bool `json:"git_pager_cat"`
}

// Defaults for the caps: beyond them a command is not read-only and not
// analysable, but every leaf found so far is still matched against deny rules.
const (
	DefaultMaxLength = 16 * 1024
	DefaultMaxLeaves = 64
)

// Hard limits on the work of one analysis, whatever the options say. Beyond
// one of them the analysis stops, LimitExceeded names it, and the policy
// denies the call (code limit_exceeded): see doc.go, "Limits".
const (
	// HardMaxLength caps the command in bytes; nested scripts and strings
	// bash evaluates count too, up to twice as much in all.
	HardMaxLength = 128 << 10
	// MaxNesting caps nested substitutions, subshells, groups, compound
	// commands, arithmetic, parameter expansions and nested scripts.
	MaxNesting = 64
	// MaxWords caps the words of the command and the fields its expansions make.
	MaxWords = 16384
	// MaxCommands caps the commands, pipeline parts and arithmetic
	// operations of the command (each nests the parsed tree one level).
	MaxCommands = 2048
)

// Values of Analysis.LimitExceeded.
const (
	LimitLength   = "command_length"
	LimitNesting  = "nesting_depth"
	LimitWords    = "word_count"
	LimitCommands = "command_count"
)

// ProjectConfig is a program that loads configuration from the project
// and the directory it starts in (absolute, clean).
type ProjectConfig struct {
	Program string `json:"program"`
	Dir     string `json:"dir"`
}

// Leaf is one simple command that will run.
type Leaf struct {
	// Argv is the command after quote removal and every wrapper removed.
	Argv []string `json:"argv"`
	// Program is Argv[0].
	Program string `json:"program"`
	// Wrappers is the wrapper chain that was unwrapped, outermost first
	// ("env", "sudo", "timeout", "bash -c", "xargs", "find -exec", "$()", "<()", "assign:NAME", ...).
	Wrappers []string `json:"wrappers"`
	// AllowArgv is what allow rules see: Argv when every wrapper is
	// transparent (timeout nice nohup time stdbuf command, allowlisted
	// assignments), else the argv of the outermost command that is not
	// transparent, in full ("sudo rm x", "xargs rm", "bash -c 'rm x'" as 3 words).
	AllowArgv []string `json:"allow_argv"`
	// ReadOnly is the verdict for this leaf (wrappers included). A write by
	// redirection does not change it (the target is in Writes, and the
	// command as a whole is then not read-only).
	ReadOnly bool `json:"read_only"`
	// Reason says why the leaf is not read-only.
	Reason string `json:"reason,omitempty"`
	// Reads and Writes are absolute, cleaned paths (~ and $HOME expanded,
	// relative paths resolved against the cwd in force, cd tracked). Globs stay literal.
	Reads  []string `json:"reads"`
	Writes []string `json:"writes"`
	// Touches are the operands of a program the vocabulary cannot place (an
	// unknown program such as less or scp, or a writer whose flags it does
	// not model), resolved like paths: any of them may be read or written.
	// Deny and ask path rules treat them as both; nothing else trusts them.
	Touches []string `json:"touches"`
	// FSCommand is true for mkdir touch rm rmdir mv cp ln and in-place sed
	// whose every write target is known (in Writes).
	FSCommand bool `json:"fs_command"`
	// RecursiveReads are the directory trees the leaf reads below a root
	// (grep -r, rg, find, ls -R, cp -r, tar c, ...), resolved like Reads;
	// each root is also in Reads unless it is the implied working directory.
	RecursiveReads []Tree `json:"recursive_reads"`
	// Environment says why the leaf prints environment variables (printenv,
	// env, export -p, jq env, ps e, ...), "" when it does not.
	Environment string `json:"environment"`
	// Layers are the argvs of the wrapper levels above Argv, outermost
	// first ("sudo rm x" has [[sudo rm x]]); deny and ask rules see them all.
	Layers [][]string `json:"layers,omitempty"`
	// Subcommand is the vocabulary's subcommand path ("pr list"), if any.
	Subcommand string `json:"subcommand,omitempty"`
	// RunsUnknown says why permopa cannot tell what this leaf runs: a
	// command name built at run time, inline interpreter code, a command
	// string only known at run time (tar --to-command="$x"), a variable
	// that loads code (LD_PRELOAD). Every Bash deny and ask rule hits such
	// a leaf (match.go), and it is never read-only.
	RunsUnknown string `json:"runs_unknown,omitempty"`
	// CodeWords is how many leading words of AllowArgv an allow rule must
	// spell out (no wildcard may stand for them) to cover this leaf: the
	// words up to the last one that carries code (sed's e command, git -c
	// core.pager=..., the script of bash -c); 0 when none does.
	CodeWords int `json:"code_words,omitempty"`
	// RedirectWrites: the leaf writes a file by redirection (> f, time -o
	// f). No allow rule covers it: path rules and the mode decide.
	RedirectWrites bool `json:"redirect_writes,omitempty"`
	// Network is the vocabulary's network kind: "" none, "read" (a service
	// configured outside the command), "egress" (a destination named in
	// the arguments; never read-only).
	Network string `json:"network,omitempty"`
	// CacheWrites are the program's own cache and log directories it may
	// write (absolute, ~ expanded): not project writes, not in Writes.
	CacheWrites []string `json:"cache_writes,omitempty"`
	// Script is where the leaf's command is written when a script file
	// runs it ("package.json:12 script clean", "build.sh:3"; scripts.go),
	// "" for a command of the call itself.
	Script string `json:"script,omitempty"`
	// operandViews are more argvs deny and ask rules see: for a program
	// the vocabulary does not model, what it may run (match.go,
	// unmodelledViews).
	operandViews [][]string
}

// Tree is a directory tree read below Path (see flagspec.Tree).
type Tree struct {
	// Path is the root: absolute and cleaned.
	Path string `json:"path"`
	// Hidden: entries whose names start with "." below Path are read too.
	Hidden bool `json:"hidden"`
	// NamesOnly: only names are printed (ls -R, find, tree, du -a), not contents.
	NamesOnly bool `json:"names_only"`
	// Ignores: what .gitignore, .ignore and .rgignore files exclude is skipped (rg).
	Ignores bool `json:"ignores"`
	// ExcludeDirs are base-name globs of directories skipped (grep --exclude-dir).
	ExcludeDirs []string `json:"exclude_dirs"`
	// Include and Exclude are base-name globs of files read and skipped
	// (grep --include/--exclude, rg -g); with IncludeFirst a file matching
	// neither is skipped.
	Include      []string `json:"include"`
	Exclude      []string `json:"exclude"`
	IncludeFirst bool     `json:"include_first"`
	// MaxDepth is how many levels below Path are read (find -maxdepth,
	// tree -L); 0 is no limit.
	MaxDepth int `json:"max_depth"`
	// SkipsLinks: the program follows no symbolic link below Path (find
	// without -L, grep -r, rg without --follow; see flagspec.Tree).
	SkipsLinks bool `json:"skips_links"`
}

// Hit is a dangerous-command pattern found on parsed argv.
type Hit struct {
	Pattern string `json:"pattern"`
	Leaf    int    `json:"leaf"`
	Detail  string `json:"detail"`
}

// Analysis is the result for a whole command line.
type Analysis struct {
	ReadOnly   bool `json:"read_only"`
	Analysable bool `json:"analysable"`
	// Reasons says why the command is not analysable.
	Reasons []string `json:"reasons"`
	// NotReadOnly says why the command is not read-only (one entry per cause).
	NotReadOnly []string `json:"not_read_only"`
	Leaves      []Leaf   `json:"leaves"`
	// Reads and Writes gather every leaf's paths plus redirect targets.
	Reads  []string `json:"reads"`
	Writes []string `json:"writes"`
	// Touches gathers every leaf's Touches.
	Touches []string `json:"touches"`
	// RecursiveReads gathers every leaf's trees. When the command hands
	// names to another program (xargs, find -exec), a names-only tree is
	// read in full: the program may read every file listed.
	RecursiveReads []Tree `json:"recursive_reads"`
	// Environment gathers why leaves print environment variables.
	Environment []string `json:"environment"`
	// NetworkRead is true when some leaf is a network read (Leaf.Network
	// "read"): read-only only while the network_reads setting allows them.
	NetworkRead bool `json:"network_read"`
	// CacheWrites gathers every leaf's CacheWrites.
	CacheWrites []string `json:"cache_writes"`
	// CriticalRemovals are removal targets that must never go without a
	// human: /, top-level directories, ~, a working directory or a parent,
	// everything in a directory (*, ./*, dir/*).
	CriticalRemovals []string `json:"critical_removals"`
	Dangerous        []Hit    `json:"dangerous"`
	// Truncated is true when a cap was hit.
	Truncated bool `json:"truncated"`
	// LimitExceeded names the hard limit the command exceeds (LimitLength,
	// LimitNesting, LimitWords, LimitCommands), "" when none: the analysis
	// stopped there, and the policy denies the call.
	LimitExceeded string `json:"limit_exceeded"`
	// DynamicWrites is true when something is written to a path that is not
	// known statically (redirect to "$f", rm "$x", a relative path after an
	// unknown cd); such targets are missing from Writes.
	DynamicWrites bool `json:"dynamic_writes"`
	// Removals are the paths removed or renamed away (rm, rmdir, unlink,
	// shred, the sources of mv, the roots of find -delete): whatever they
	// hold goes with them, so the policy checks what they hold.
	Removals []string `json:"removals"`
	// GitDirs are the directories git commands look for their repository
	// from (the cwd in force, then -C; --git-dir), for the policy to check on
	// disk that each finds the .git directory of a work tree (git.go).
	GitDirs []string `json:"git_dirs"`
	// ProjectConfigs are the programs of read-only leaves that load
	// configuration from the project (git, yarn, npm, pnpm) and the
	// directories they start in: the policy reads what each would load
	// (permopa.path.project_configs) and the command is read-only only
	// when nothing there runs code (docs/shell.md).
	ProjectConfigs []ProjectConfig `json:"project_configs"`
	// PathPrograms are the other read-only leaves' programs named without
	// a slash and the directories they start in (Dir "": not known
	// statically): PATH chooses the file that runs, and the policy looks
	// it up (permopa.path.project_configs, docs/shell.md).
	PathPrograms []ProjectConfig `json:"path_programs"`

	// home is Options.Home, for matching rules written with ~.
	home string
	// crude are argvs cut out of a command that did not parse, for deny and
	// ask rules only: bash accepts some input the parser rejects.
	crude [][]string
	// uncoverable: a cause of not being read-only that belongs to no leaf
	// (a redirection without a command), so no allow rule can cover it.
	uncoverable bool
	// hidden says why a command may run that no leaf shows (a construct
	// the analyser does not model, a cap hit, a parse error): every deny
	// and ask rule hits the command.
	hidden string
	// stamps are the script files the analysis read (scripts.go): a cached
	// analysis is used again only while they are unchanged.
	stamps []scriptfile.Stamp
	// listedNames: names were read from the file system at decision time,
	// and how they are used (namesnow.go).
	listedNames listing
	// canon caches the leaves' canonical forms for flag-aware rules.
	canon atomic.Pointer[[]leafCanon]
}
