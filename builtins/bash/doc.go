package bash

// Design notes: the choices the analyser makes, and why.
//
// Walking. Every statement is walked in order with the shell state the
// analyser tracks: the working directories the shell may be in. cd can
// fail, so after "cd d; x" both the old and the new directory apply, while
// "cd d && x" runs x in d only and "cd d || x" in the old one. Subshells,
// pipeline parts and substitutions never leak a cd. A loop whose body can
// change directory runs with an unknown directory, where relative paths are
// not static. An unmodelled node makes the command unanalysable.
//
// Words are split as bash splits them (docs/shell.md, "Words"): a carriage
// return is read by mvdan.cc/sh as a blank, so every parse reads it as a
// reserved character and gives the words their "\r" back (limits.go,
// parseWith); a comment ending in a backslash ends at its line, as in bash;
// a word bash may brace-expand otherwise than mvdan.cc/sh is unanalysable
// (braceAmbiguous); a brace alternative that is empty and unquoted is no
// word. TestWordsAgainstBash holds the words to bash's own.
//
// Words. Quote removal, ANSI-C strings, ~ and $HOME/${HOME}, $PWD when the
// directory is known, brace expansion (at most 256 words; in the command
// name it also makes the command unanalysable) and an unquoted
// ${IFS} while IFS is never assigned (bash's default value only separates
// words) are evaluated; ~ after the first = and after : in an argument
// that looks like an assignment (echo x=~/a) too, as bash does outside
// POSIX mode. Any other expansion is flagspec.Dynamic. A process
// substitution is the pipe /dev/fd/63, a static path. A word that may turn
// into options — one starting with an expansion, an unquoted expansion that
// may split, a glob that may match a name starting with "-" (a file named
// "--files0-from=k" matches *) — keeps its command from being read-only
// unless the vocabulary accepts a run-time word there: for an expansion,
// a program that takes no harmful option (echo, test, ps; test -v is an
// evaluated string); for a glob, a program whose spec is complete and has
// no option with a path, command or code value, none denied and no mark
// (docs/shell.md, "What read-only means").
// Arithmetic that names variables is not read-only (bash evaluates a
// variable holding "a[$(cmd)]" as code); ${x@P} and other transformations,
// extglob and arithmetic holding a command substitution are unanalysable.
//
// Evaluated strings (evaluate.go). Bash evaluates some strings again after
// expansion, and a subscript in them runs its "$(...)": as arithmetic in
// (( )), $(( )), $[ ], let, for (( )), [[ ]]'s -eq -ne -lt -le -gt -ge,
// indexed-array subscripts and substring offsets (quotes do not stop
// expansion there: (( 'a[$(cmd)]' )) runs cmd), values assigned to an
// integer variable (declare -i, also later plain assignments and integer
// array elements), and the values of variables named in arithmetic; as a
// variable name with a subscript in test -v, [ -v, [[ -v ]], printf -v,
// read, unset, wait -p, declare/typeset/local 'a[i]=v', namerefs
// (declare -n), ${!x} and {a[i]}> redirections; as code in declare -a/-A
// with a quoted '(...)' value, mapfile/readarray -C, compgen/complete -C,
// compgen -W, PS0/PS1/PS2/PS4 (prompt expansion, PS4 under set -x) and
// PROMPT_COMMAND. Checked against bash 5.2: test's and printf's numeric
// operands, shift, return, exit, ulimit, kill, read -n/-t/-u, mapfile
// -n/-s/-O, getopts and export/readonly names are not evaluated. Every such
// string known statically is parsed as bash reads it (mvdan.cc/sh's
// Arithmetic and Document parsers, with the same limits as the command);
// its substitutions become leaves under a label ("subscript", "arithmetic",
// "value of x", "prompt PS4", "mapfile -C", ...), so deny rules see them;
// a string holding one, or one that does not parse (its word runs are then
// matched by deny rules), makes the command unanalysable. A name, a
// subscript or an operand that is not a literal number keeps the command
// from being read-only. Values of variables are collected from every
// script of the command, whatever the order, and walked where a variable
// is evaluated (x='a[$(cmd)]'; echo $((x))). test and [ treat any word
// known only at run time as possibly "-v" (and an unquoted one as
// possibly "-v NAME"), so the word after it is a name too.
//
// Limits (limits.go). Hard limits bound the work of one analysis whatever
// the input: HardMaxLength bytes of command (and twice that with nested
// scripts and evaluated strings), MaxNesting levels of nesting, MaxWords
// words and fields, MaxCommands commands, pipeline parts and arithmetic
// operations. A pre-scan reads the string once, without allocating,
// following mvdan.cc/sh's reading of quotes, comments, here-documents,
// case patterns and arithmetic, and refuses input beyond them before it is
// parsed (mvdan.cc/sh recurses per nesting level: 400 KB of "((" overflows
// the goroutine stack, which no recover catches, and 30 KB of "$(" took
// seconds). From 1 KB on, the parser runs on its own goroutine behind a
// reader that stops it once its stack is deeper than maxParseFrames,
// whatever the pre-scan thought; the walk counts nesting, fields and bytes
// and walks lists, pipelines and arithmetic chains as loops; tree walks
// stop at maxASTDepth. A limit stops the analysis: LimitExceeded names it,
// the leaves found so far stay (deny rules see them), and the policy
// denies the call with code limit_exceeded in every mode. The soft caps
// (Options.MaxLength, MaxLeaves) only make a command unanalysable.
//
// Wrappers. Transparent (allow rules see the inner command, read-only as
// the inner command): assignments of LANG LC_* TZ NO_COLOR TERM COLUMNS,
// env with only those, command, builtin, exec, nice, nohup, time,
// timeout, stdbuf. Not transparent (allow rules see the wrapper's whole
// argv): other assignments and env uses, sudo, doas, su -c, runuser, xargs,
// find -exec, sh/bash -c, eval, watch, setsid, ionice. xargs and
// find -exec are read-only only where the words they supply are paths
// under static roots (find ROOT -exec CMD {}, find ROOT -print0 | xargs -0
// CMD, find ROOT | xargs CMD when no name find prints below ROOT holds a
// blank, quote or backslash at decision time, and xargs -d '\n' or tr
// '\n' '\0' | xargs -0 when none holds a newline; dataflow.go,
// findpipe.go, findselect.go for which paths a simple find expression and
// its grep filters print, docs/shell.md "Values and where they come
// from"): CMD
// is judged with a marker path for each, whose reads become recursive
// reads of the roots. Otherwise the operands they append are words no one
// can see statically. A command substitution that is a whole word is
// judged by its producer the same way (substvalues.go): $(find ROOT …)
// gives paths under ROOT (checked at decision time for names that split
// or glob when unquoted), $(date +%s) and $(… | wc -l) give numbers. A
// command that may create a name these checks would object to is judged
// again without them (namesnow.go).
// watch, and env with only -i/-u (which take
// variables away), are read-only when the command they run is. sh -c, bash -c and bash -lc with a parsed script
// are read-only when the script is; a shell reading a here-document is
// unanalysable (no rule can name its script) but its commands are listed;
// zsh and ksh scripts are parsed for deny rules only. eval's static string
// is parsed for deny rules; eval is never analysable. A wrapper option the
// analyser does not know makes the command unanalysable and exposes the
// commands starting at each of its first non-option words to deny rules.
// The programs the walker reads itself are one table, wrappers
// (wrappertable.go), held to flagspec.RunsCode and to docs/shell.md.
//
// Redirections. A write by redirection leaves the leaf's ReadOnly (the
// program's verdict) alone: the target is in the leaf's Writes, the command
// is then not read-only, and an allow rule must cover the leaf. Targets that
// are not static, globs, /dev/tcp and fd variables make the leaf itself not
// read-only.
//
// Leaves. Every command that may run is a leaf, including the bodies of
// functions defined in the script (calls of a function or alias defined
// in the script are unanalysable), bare assignments ("FOO=bar", read-only
// only for the allowlist and for names of the shell only,
// flagspec.ShellLocalName), [[ ]], (( )) and let. Leaves keep the argv of
// every wrapper level (Layers) for deny rules.
//
// Shell state. set, shopt, hash, trap, declare, read and export are
// judged by flag specs (flagspec/shell.go): listings and the options that
// stay in this shell are read-only (docs/shell.md, "Shell state"). A shopt
// naming a glob option anywhere in a script (globsChanged, a text test)
// makes every glob word not read-only. alias with no operand or -p lists.
// With Options.ShellPerCall (a host that runs each call in a shell of its
// own), frame.tail marks a statement nothing runs after in its shell (the
// end of the call, of a subshell, a substitution or a pipeline part) and
// frame.blindRest one followed only by blindStmt commands (echo, test, ...
// that start no program): an assignment, export, declare, read or unset of
// an inertAtEnd name is then harmless (endOfShellJudge renames it for the
// flag spec), and at the tail an alias definition (its body not walked),
// a shopt of any bash 5.2 option but expand_aliases, history -r/-n
// (historyJudge names the read) and a cd to a run-time directory too. With
// Options.PositionalEmpty (bash -c COMMAND with no words after it) the
// command's own positional parameters are empty, followed statement by
// statement as a script's are (positional.go).
//
// Loops (dataflow.go). In for NAME in WORDS, when the words are static
// (a glob only when it starts with a literal: ./*.txt, never *.txt, whose
// names may be options) and nothing in the body or the command may assign
// NAME (assignsName; no declare, typeset, local or trap anywhere), a word
// that is only "$NAME" takes each word (unquoted $NAME only literal words
// without blanks or glob characters): the leaf is emitted once per value.
// A glob value stays a glob, judged as one word; < "$NAME" reads each
// word (any glob: a name in a redirection is no option). A glob operand is judged
// as one word and as two (uniq ./*.txt writes its second match).
//
// Paths. Reads and Writes are absolute, in the spellings of
// paths.Spellings: cleaned, and also with their ".." kept when one follows
// a segment (the path built-ins resolve "link/.." on disk), and
// /proc/self/cwd/X also as X in each directory the command may be in
// (docs/reads.md, "One resolution"). A literal ~ left after
// expansion (quoted, or inside an option value a program may expand itself)
// is resolved both against the home directory and the cwd, so that a
// dangerous-path check sees either. /dev/null, /dev/stdout, /dev/stderr,
// /dev/stdin, /dev/tty, /dev/zero, /dev/fd/0-2 and a process substitution
// are no file effect; another /dev/fd/N is reported (an open file the
// built-ins cannot place); /dev/tcp and /dev/udp are network access. A
// write whose target is not static sets Analysis.DynamicWrites and is
// reported as the glob of what it could name, when it has a static part.
//
// Links. The links a leaf makes (ln, link, cp -s/-l/-r/-a/-P, mv; see
// flagspec.Link) are recorded for the rest of the walk, and every later
// path is resolved through them as well as taken as written: after
// "ln -s /etc nl", nl/f is /etc/f and nl/f. A symbolic link's target is in
// the leaf's Writes (writing through the link writes it), and so is the
// target of each symbolic link on disk at or below the source of a copy
// that keeps links, a move, a hard link or rsync (read from the new place;
// copiedLinks, rsyncLinks), since the leaf makes that link again. Loop bodies and
// pipelines see the links made anywhere in them. After a link whose name is
// not static, or a program that makes links no one can place (tar x, unzip,
// rsync, git checkout, ln with an unknown option), no later leaf that names
// a path is read-only or a filesystem command. links.go has the details.
//
// Parse errors. A command that does not parse has no leaves, is not
// read-only and not analysable. Bash accepts some input mvdan.cc/sh
// rejects ("echo $((rm x) )" runs rm), so MatchAny still sees the word
// runs between the operators of such a command (deny and ask rules only);
// an unparsable "$((" is first re-read as "$( (" as bash does.
//
// Uncertainty. A leaf whose program or code the analyser cannot tell gets
// Leaf.RunsUnknown (a command name built at run time, a script that is no
// file, inline interpreter code, a command-valued option or variable only
// known at run time, hash -p, loader variables such as LD_PRELOAD and
// PATH); an unanalysable construct that may hide a command (anything but
// a literal eval or trap string, a literal here-document script or brace
// expansion in a command name, whose commands are all listed) marks the
// whole analysis. Every deny and ask rule may match both: MatchAny says so,
// MatchCertain leaves them out and Uncertain says why, so that the policy
// can ask where a rule only may match (docs/rules.md) (match.go). Command
// lines written out in options, operands and variables (sed's e command,
// tar --to-command, git -c core.pager=..., PAGER=..., ssh HOST CMD) are
// parsed like sh -c's script, and programs that run their operands
// (strace, flock, chroot, busybox) are wrappers: deny rules see the
// commands. A script file on disk (sh x.sh, . ./x.sh, ./x.sh, npm run,
// yarn, pnpm, bun run, make's makefile) is read at decision time and its
// commands walked under a wrapper naming file and line (scripts.go,
// makefile.go, docs/shell.md "Scripts" and "Makefiles"), with a shell
// script's $1..., $@, $# and $0 bound to the call's words (positional.go),
// never read-only;
// one it cannot read, one written earlier in the same command (or a
// makefile, package.json or source file an interpreter may load), and a
// program in another language (python3 x.py) make the leaf RunsUnknown.
//
// Rules. See match.go for the rule-content grammar (literal, flag-aware
// and uncertain matches; what allow rules cover) and suggest.go for the
// suggestions. MatchAny and Covered index slices of 64 or more patterns
// themselves (remembering the last few slices, checked element by element);
// NewPatternSet builds an index explicitly.
