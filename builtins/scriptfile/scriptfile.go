// Package scriptfile is how rules see through the script files a command
// runs (docs/shell.md, "Scripts"): a package.json script with its pre and
// post scripts, a shell script, a makefile's recipes. A Reader turns one
// leaf that runs a script file (a Call) into the command lines it runs
// (Scripts); builtins/bash walks each line as sh -c's script is, under a
// wrapper naming the file and line, so that deny and ask rules see the
// commands and the leaf is read-only only when they all are.
//
// Files are read at decision time through Files: bounded in size, number
// and depth, only inside the working directories (after symbolic links),
// never a credential file, cached by path, size and modification time,
// and stamped, so that a cached analysis is used again only while the
// files it read are unchanged. Anything a reader does not model is an
// uncertainty (Script.Unknown), never a guess.
package scriptfile

// Line is one command line a script runs: shell source walked as sh -c's
// script is, in its own shell (a makefile's recipe lines each run in one;
// a package.json script or a shell script file is one Line).
type Line struct {
	// File is the absolute path of the file that holds the line.
	File string
	// Line is the 1-based line of File where Text starts (a statement on a
	// later line of Text is reported at Line plus its offset in Text).
	Line int
	// Text is the shell source.
	Text string
}

// Script is one script a leaf runs, in the order it runs.
type Script struct {
	// Name says what runs, for messages: "script clean", "script preclean",
	// "x.sh", "target build".
	Name string
	// File is the absolute path of the file that defines it ("" when none
	// was found).
	File string
	// Line is the line of File that names it (a package.json key, a
	// makefile target), 0 when it is the whole file.
	Line int
	// Dir is the absolute directory its lines run in; "" when not known
	// statically (the lines' relative paths are then not static).
	Dir string
	// Lines are the command lines, in order.
	Lines []Line
	// Unknown says why permopa cannot tell everything this script runs
	// (a missing script, a file it cannot read, a manager configuration
	// that changes the shell, ...): the leaf is uncertain (every deny and
	// ask rule may match it) and never read-only. Lines, if any, are still
	// walked for deny rules.
	Unknown string
	// NotReadOnly says why the lines are not read-only even when each
	// command is (a shell that is not sh: Yarn 2+'s own shell); "" none.
	NotReadOnly string
	// BinDirs are directories searched before PATH for a command name
	// (npm's node_modules/.bin of the package and its parents): a name
	// found there, or one that may be (a name only known at run time), is
	// the project's code.
	BinDirs []string
	// Self marks the call's own action beside its scripts (npm install
	// installs packages): no lines, judged by the call's words, uncertain
	// when Unknown says why (the dependencies' install scripts it runs).
	Self bool
	// OffBy names the file whose setting turned the scripts off (npm's
	// ignore-scripts=true in .npmrc), "" when none did: a command that
	// may change the file earlier in the same command makes the call
	// uncertain.
	OffBy string
}

// Call is one leaf that may run a script file, as the analyser sees it.
type Call struct {
	// Argv is the command after quote removal and wrapper removal; Argv[0]
	// is the program as written ("npm", "./x.sh", "/usr/bin/make").
	Argv []string
	// Dynamic[i] is true when Argv[i] is only known at run time (its text
	// then holds flagspec.Dynamic where the unknown part is).
	Dynamic []bool
	// Dir is the absolute directory the leaf runs in, "" when not known
	// statically.
	Dir string
	// Files reads the files of this decision.
	Files *Files
	// Layers are the argvs of the wrappers around the leaf, outermost
	// first (NAME=value assignments before a command, env, ...).
	Layers [][]string
	// Parents are the argvs of the commands whose scripts the leaf is in,
	// outermost first (a make running this one passes its command line's
	// variables and its level down).
	Parents [][]string
	// EnvChanged says why the environment the program runs with may hold
	// variables the command sets where a reader does not see them (an
	// earlier export, declare -x, set -a or sourced file); "" when not.
	EnvChanged string
}

// Reader reads what a Call runs. handled is false when the call runs no
// script file at all (npm view, make --version, yarn info): the analyser
// then judges the leaf as any other. With handled true, the scripts are
// what runs (none: nothing runs, as npm run x --if-present without x);
// a script with Unknown and no lines stands for what cannot be read.
type Reader func(c Call) (scripts []Script, handled bool)

// Bounds of the work for one command (one analysis): beyond them a script
// is Unknown, never skipped.
const (
	// MaxFileBytes is the largest script file read.
	MaxFileBytes = 256 << 10
	// MaxFiles is how many files (scripts, package.json, probes of
	// node_modules/.bin) one analysis may look at.
	MaxFiles = 64
	// MaxDepth is how deep scripts may run scripts (within the analyser's
	// own bound of 8 nested wrappers and scripts).
	MaxDepth = 6
)
