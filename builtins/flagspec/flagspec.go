// Package flagspec is permopa's vocabulary of programs: for each known program,
// a flag specification that says which subcommands and flags keep an
// invocation read-only, how many values each flag takes, and which operands
// are files read or written.
//
// It knows nothing of shell syntax: the bash analyser hands it one leaf's argv
// after quote removal and wrapper unwrapping. Dynamic parts of a word (a
// parameter expansion or command substitution the analyser could not resolve)
// arrive as the byte Dynamic, so a path operand that contains it is not static.
package flagspec

import "strings"

// Dynamic marks, inside an argv word, a part whose value is only known at run time.
const Dynamic = "\x00"

// Verdict is what the vocabulary knows about one invocation.
type Verdict struct {
	// Known is true when the program is in the vocabulary at all.
	Known bool
	// ReadOnly is true only when the program, its subcommand and every flag are
	// modelled and none of them writes, executes or reaches the network in a
	// way that changes state.
	ReadOnly bool
	// Reason says why the invocation is not read-only ("" when it is).
	Reason string
	// Subcommand is the subcommand path when the program has subcommands
	// ("run" for "npm run build", "pr list" for "gh pr list"), else "".
	Subcommand string
	// Reads and Writes are the path operands the invocation reads and writes,
	// as written in argv (not resolved). Writes also holds output operands of
	// flags (sort -o F, git diff --output=F) and targets of filesystem commands.
	Reads  []string
	Writes []string
	// FSCommand is true for filesystem commands (mkdir touch rm rmdir mv cp ln,
	// sed -i) whose every write target is an operand listed in Writes.
	FSCommand bool
	// Recursive is true for removals that recurse (rm -r, rm -R, rm --recursive).
	Recursive bool
	// Commands are the shell command lines the invocation runs, as written
	// in argv (option values such as tar --to-command=CMD, sed's e
	// command): the analyser parses each like sh -c's script.
	Commands []Command
	// RunsUnknown says why the invocation runs code that cannot be read
	// from its argv (inline interpreter code, a command only known at run
	// time, a package fetched and run); "" when it runs nothing hidden.
	RunsUnknown string
	// RunsData says why the invocation runs text it reads at run time
	// (its input, the files it reads) as a command: sed's e command and
	// s///e flag, awk's system(), pipes and @ calls. Like eval of a
	// string only known at run time, no rule can say what that is; the
	// analysis is not analysable (a safety ASK). RunsUnknown is set too.
	RunsData string
	// CodeWords is 1 + the index in argv of the last word that carries
	// code (a command string, inline code), 0 when none: an allow rule
	// must spell out at least these words (a wildcard never stands for code).
	CodeWords int
	// Runs is the index in argv where a command the program runs starts
	// (flock FILE CMD ARGS: 2), 0 when none: the analyser walks it as a
	// wrapped command.
	Runs int
	// RecursiveReads are the directory trees the invocation reads below a
	// root (grep -r, rg, find, ls -R, cp -r, tar c; see trees.go). Each root
	// is in Reads too.
	RecursiveReads []Tree
	// Unplaced is true when some operands may be paths the vocabulary did
	// not place in Reads or Writes (a known writer, parsed best effort):
	// every word that is not an option may be read or written.
	Unplaced bool
	// Environment says why the invocation prints environment variables
	// (printenv, env, export -p, jq env, awk ENVIRON, ps e; see environ.go),
	// "" when it does not. It is independent of ReadOnly.
	Environment string
	// Network says how the invocation reaches the network: "" not at all;
	// NetRead only a service configured outside the command (a cluster, a
	// registry, a daemon, the resolver), which a read-only verdict allows
	// unless the network_reads setting says ask; NetEgress a destination
	// taken from its own arguments (a URL, a host), which can carry data out
	// and is never read-only.
	Network string
	// CacheWrites are the directories (or files) the program writes only for
	// its own cache, logs and state (~/.npm/_logs, ~/.cache/go-build), as
	// written (~ is the home directory). They are not Writes: a read-only
	// verdict stands with them, and permopa explain names them.
	CacheWrites []string
	// Terminal says how the invocation reads keys or commands from its
	// terminal when it has one (a pager, top), "" when it does not. It is
	// independent of ReadOnly: a caller whose command may keep a terminal
	// the agent types into later (bash.Options.StdinTerminal) counts such
	// an invocation as not read-only (docs/shell.md, "Terminal input").
	Terminal string
	// Links are the links (and moves and link-keeping copies) the
	// invocation makes: later paths under a Name may lead to its Target.
	Links []Link
}

// Command is a shell command line an invocation runs.
type Command struct {
	// Source names where it comes from ("tar --to-command", "sed e").
	Source string
	// Line is the command line as written.
	Line string
}

// Invocation is an argv read the way its program reads it (Parse): the
// subcommand path, the options under their canonical names (synonyms,
// abbreviations, clusters and implied options resolved) and the operands.
type Invocation struct {
	Program string
	// Subcommand is the subcommand path ("push", "pr list"), "" for none.
	Subcommand string
	// SubcommandOpen: the subcommand is only known at run time; Subcommand
	// holds the part before it.
	SubcommandOpen bool
	// Options in argv order, with the options each one implies after it.
	Options []Option
	// Operands in argv order, in canonical form (git push "+main" is "main").
	Operands []string
	// Open says why the argv may hold options and operands that are not
	// listed: a word only known at run time where an option may stand, an
	// option the spec does not know, an ambiguous abbreviation. The words
	// after that point are not read.
	Open string
	// Unmodelled: the subcommand's options are not in the flag spec at
	// all, so no option of it, one that runs code included, is recognised
	// (suggested rules then put no wildcard after the subcommand).
	Unmodelled bool
	// SubcommandEnd is the index in argv after the subcommand's last word
	// (0 without a subcommand): a rule "docker image rm:*" names nothing
	// after it, although its options are not modelled.
	SubcommandEnd int
	// SubcommandAlias: the subcommand was written another way than
	// Subcommand (npm pub, docker container run).
	SubcommandAlias bool
}

// Option is one option of an Invocation.
type Option struct {
	// Name is the canonical name ("--recursive" for -r, -R, --rec).
	Name string
	// Value is the option's value; HasValue says whether one was given.
	Value    string
	HasValue bool
}

// Parse reads argv (argv[0] a bare program name) with the program's flag
// spec, the same parser Judge uses, and returns its canonical form; ok is
// false when the program has no flag spec. Deny and ask rules that name
// options are matched this way (builtins/bash match.go).
func Parse(argv []string) (inv Invocation, ok bool) {
	if len(argv) == 0 || argv[0] == "" || strings.ContainsAny(argv[0], "/"+Dynamic) {
		return inv, false
	}
	s := lookup(argv[0])
	if s == nil {
		return inv, false
	}
	inv.Program = argv[0]
	if s.oldStyle && len(argv) > 1 && argv[1] != "" && argv[1][0] != '-' && !strings.Contains(argv[1], Dynamic) {
		argv = s.expandOld(argv)
	}
	st := &state{argv: argv, parse: true, inv: &inv}
	st.ops = st.opsBuf[:0]
	st.vals = st.valsBuf[:0]
	st.run(s, argv[1:])
	if c := canonicalSubcommand(inv.Program, inv.Subcommand); c != inv.Subcommand {
		inv.Subcommand, inv.SubcommandAlias = c, true
	}
	return inv, true
}

// Network kinds (Verdict.Network).
const (
	NetRead   = "read"
	NetEgress = "egress"
)

// Link says that after an invocation a path under Name may lead where the
// same path under Target leads. Both are as written in argv. When the link
// name may be a directory that the link goes into (ln -s T DIR makes
// DIR/T), both names are listed.
type Link struct {
	Name, Target string
	Kind         LinkKind
}

// LinkKind says what a Link is and what a relative Target is relative to.
type LinkKind uint8

const (
	// LinkSymbolic is a symbolic link whose relative target is relative
	// to the directory of Name (ln -s).
	LinkSymbolic LinkKind = iota
	// LinkSymbolicCwd is a symbolic link whose target is written relative
	// to the cwd (ln -rs, cp -s).
	LinkSymbolicCwd
	// LinkSame: Name is what Target was, relative to the cwd: a hard link, a
	// move, a copy that keeps symbolic links (cp -r, cp -a, cp -P).
	LinkSame
)

// Judge returns the verdict for argv. argv[0] is a bare program name; an
// empty argv is not read-only.
func Judge(argv []string) Verdict {
	v := judge(argv)
	v.Environment = environmentRead(argv)
	sourceReads(&v, argv)
	return v
}

func judge(argv []string) Verdict {
	if len(argv) == 0 {
		return Verdict{Reason: "empty command"}
	}
	prog := argv[0]
	if prog == "" || strings.Contains(prog, Dynamic) {
		return Verdict{Reason: "the program name is only known at run time"}
	}
	if strings.ContainsRune(prog, '/') {
		return Verdict{Reason: "program " + prog + " is a path, not a bare name"}
	}
	if v, ok := judgeExact(argv); ok {
		return v
	}
	if v, ok := judgeEgress(argv); ok {
		return v
	}
	if v, ok := judgeHelpOnly(argv); ok {
		return v
	}
	if prog == "sort" {
		argv = sortObsoleteKeys(argv)
	}
	if prog == "rgrep" {
		// rgrep is GNU grep's script "exec grep -r "$@"" (run by
		// /bin/sh, which as sh reads no startup file): grep -r.
		return Judge(append([]string{"grep", "-r"}, argv[1:]...))
	}
	if prog == "unzip" && len(argv) > 1 && argv[1] == "-Z" {
		// unzip -Z is zipinfo with zipinfo's options.
		return Judge(append([]string{"zipinfo"}, argv[2:]...))
	}
	s := lookup(prog)
	if s == nil {
		v := Verdict{Reason: "program " + prog + " is not in the read-only vocabulary"}
		if why, ok := knownWriters[prog]; ok {
			v.Known = true
			v.Unplaced = true
			v.Reason = prog + " " + why
			if subcommandPrograms[prog] {
				v.Subcommand = firstWord(argv[1:])
			}
		}
		return v
	}
	orig := len(argv)
	expanded := false
	if s.oldStyle && len(argv) > 1 && argv[1] != "" && argv[1][0] != '-' && !strings.Contains(argv[1], Dynamic) {
		argv, expanded = s.expandOld(argv), true
	}
	st := statePool.Get().(*state)
	st.argv = argv
	st.v = Verdict{Known: true}
	st.ops = st.opsBuf[:0]
	st.vals = st.valsBuf[:0]
	st.marks = 0
	st.unknown = false
	st.parse, st.inv = false, nil
	st.help = false
	st.run(s, argv[1:])
	v := st.v
	if v.Reason == "" {
		v.ReadOnly = true
	}
	if t := firstNonEmptyStr(st.spec.terminal, s.terminal); t != "" && !st.has('m') {
		v.Terminal = t
	}
	if st.spec.fs && !st.unknown {
		v.FSCommand = true
	}
	if expanded && v.CodeWords > 0 {
		v.CodeWords = orig
	}
	if what := egressPrograms[prog]; what != "" && !v.ReadOnly && v.Network == "" {
		// ssh, scp, rsync ...: their destination is an operand.
		v.Network = NetEgress
		v.Reason += "; it sends to a " + what + " named in its arguments (network egress)"
	}
	*st = state{}
	statePool.Put(st)
	return v
}

// firstWord returns the first word that does not start with "-".
func firstWord(args []string) string {
	for _, a := range args {
		if a != "" && a[0] != '-' {
			return printable(a)
		}
	}
	return ""
}

// HasSubcommands reports whether program takes subcommands (git, npm, gh, docker, ...),
// so that a suggested rule is "program subcommand:*" rather than "program:*".
func HasSubcommands(program string) bool { return subcommandPrograms[program] }
