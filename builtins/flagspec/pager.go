package flagspec

import "strings"

// Pagers. When its output is not a terminal (an agent's tool call reads
// the output through a pipe), less and more copy their files to stdout like
// cat; on a terminal they wait for keys from the person at that terminal,
// whose commands (!cmd, v, |) are that person's. What the command line
// itself can make them do is modelled here: initial commands (+cmd, -p) are
// limited to moving and searching, and options that write (log files,
// marks), read key bindings (lesskey, which can also set LESSOPEN) or run a
// tags program are denied. LESSOPEN and LESS in the user's environment are
// trusted like ~/.gitconfig (see README "Choices"): the command cannot set
// them without an assignment the analyser sees.

// lessSafeInitial reports whether an initial command (after "+", or a -p
// pattern when search is set) only moves or searches: G, g, F, a line
// number, or /pattern and ?pattern of printable characters (a control
// character or newline could end the search and start another command).
func lessSafeInitial(cmd string, search bool) bool {
	if search {
		cmd = "/" + cmd
	}
	switch {
	case cmd == "G" || cmd == "g" || cmd == "F" || cmd == "":
		return true
	case strings.Trim(cmd, "0123456789") == "" || strings.Trim(cmd[:len(cmd)-1], "0123456789") == "" && strings.ContainsAny(cmd[len(cmd)-1:], "gG%p"):
		return true
	case cmd[0] == '/' || cmd[0] == '?':
		for _, c := range []byte(cmd[1:]) {
			if c < 0x20 || c == 0x7f {
				return false
			}
		}
		// A search starting with ! (non-matching lines), * or @ is still a search.
		return true
	}
	return false
}

// Terminal uses (spec.terminal): what a program's terminal keys can do.
const (
	terminalPager = "is a pager: on a terminal its keys are commands, and !cmd runs a shell command"
	terminalPages = "runs a pager on a terminal, whose keys are commands (less: !cmd runs a shell command)"
)

func checkPagerOps(st *state) {
	// What deny rules see of an initial command that can run a shell
	// command (writers.go).
	pagerSpec.check(st)
	if v, ok := st.val('p'); ok && !lessSafeInitial(v, true) {
		st.fail(st.spec.name + ": the -p pattern " + printable(v) + " holds control characters")
	}
	for _, o := range st.ops {
		if strings.HasPrefix(o, "+") {
			if !lessSafeInitial(o[1:], false) {
				st.fail(st.spec.name + ": the initial command " + printable(o) + " is not a move or a search")
			}
			continue
		}
		st.read(o)
	}
}

var lessSpec = &spec{
	allow: `-? -a --search-skip-screen -A --SEARCH-SKIP-SCREEN -b= --buffers= -B --auto-buffers -c --clear-screen
		-d --dumb -D= --color= -e --quit-at-eof -E --QUIT-AT-EOF -f --force -F --quit-if-one-screen -g --hilite-search
		-G --HILITE-SEARCH -h= --max-back-scroll= -i --ignore-case -I --IGNORE-CASE -j= --jump-target= -J --status-column
		-K --quit-on-intr -L --no-lessopen -m --long-prompt -M --LONG-PROMPT -n --line-numbers -N --LINE-NUMBERS
		-p=@p --pattern=@p -P= --prompt= -q --quiet --silent -Q --QUIET --SILENT -r --raw-control-chars
		-R --RAW-CONTROL-CHARS -s --squeeze-blank-lines -S --chop-long-lines -u --underline-special
		-U --UNDERLINE-SPECIAL -V -w --hilite-unread -W --HILITE-UNREAD -x= --tabs= -X --no-init -y= --max-forw-scroll=
		-z= --window= -~ --tilde -#= --shift= --file-size --follow-name --incsearch --line-num-width= --mouse
		--no-keypad --no-histdups --rscroll= --status-col-width= --use-backslash --use-color --wheel-lines=
		--header= --no-number-headers --no-search-headers --redraw-on-quit --search-options= --exit-follow-on-close
		--no-vbell --intr= --wordwrap --form-feed --match-shift= --show-preproc-errors
		-o=w@o --log-file=w@o -O=w@o --LOG-FILE=w@o`,
	deny: []denial{
		{`-k= --lesskey-file= --lesskey-src= --lesskey-content=`, "reads key bindings, which can also set environment variables such as LESSOPEN"},
		{`-t= --tag= -T= --tag-file=`, "looks tags up (with a tags program)"},
		{`--save-marks`, "writes its marks to the history file"},
	},
	ops: opsHook,
	check: func(st *state) {
		// The log file is named as a write (a dangerous or protected path
		// is then a safety ASK even under a less allow rule).
		if st.has('o') {
			st.fail(st.spec.name + " copies its input to a log file")
		}
		checkPagerOps(st)
	},
	// Interactive sessions keep their search history here.
	cache:    []string{"~/.lesshst", "~/.local/state/lesshst"},
	terminal: terminalPager,
}

// more (util-linux): +NUM and +/STRING start positions; no option writes.
// (BSD's more is less: its less-only options are not listed here.)
var moreSpec = &spec{
	allow: `-d --silent -f --logical -l --no-pause -c --print-over -p --clean-print -e --exit-on-eof
		-s --squeeze -u --plain -n= --lines=`,
	num:      true,
	ops:      opsHook,
	check:    checkPagerOps,
	terminal: terminalPager,
}

// bat prints files with highlighting; it pages through the user's pager on
// a terminal. --pager names a pager command, --lessopen runs LESSOPEN
// preprocessors; "bat cache" writes its cache.
var batSpec = &spec{
	noAbbrev: true,
	allow: `-A --show-all -p --plain -pp@m -l= --language= -H= --highlight-line= --file-name= -d --diff
		--diff-context= --tabs= --wrap= -S --chop-long-lines --terminal-width= -n --number --color= --italic-text=
		--decorations= -f --force-colorization --paging= -P@m --no-paging@m -m= --map-syntax= --ignored-suffix= --theme=
		--theme-dark= --theme-light= --list-themes -L --list-languages --style= -r= --line-range= -u --unbuffered
		--no-config --no-custom-assets --no-lessopen --diagnostic --acknowledgements --config-file --config-dir
		--cache-dir --strip-ansi= --nonprintable-notation= --binary= -s --squeeze-blank --squeeze-limit= -h -V
		--set-terminal-title`,
	deny: []denial{
		{`--pager=`, "runs a pager command"},
		{`--lessopen`, "runs LESSOPEN preprocessors"},
	},
	ops: opsHook,
	check: func(st *state) {
		if len(st.ops) > 0 && st.ops[0] == "cache" {
			st.fail("bat cache writes bat's cache")
			return
		}
		for _, o := range st.ops {
			st.read(o)
		}
	},
	terminal: terminalPages,
}

// info prints manual nodes (to stdout when it is not a terminal). An Info
// file's Indirect table names the files that hold its nodes, which may be
// any file (like man's .so), so only the system's Info directories are
// read-only: -f/--file, -d/--directory and an operand holding a slash (a
// file name) are not (issue 23). When its first operand names no Info
// node, info (texinfo 6.8, traced) prints a manual page instead: it runs
// man -a with that operand, the man PATH finds, so man-db's page cache is
// a cache write here too, and an operand starting with "-" is refused
// (man would take it for an option; -C loads a configuration that
// redefines the programs man runs).
var infoSpec = &spec{
	allow: `-a --all -k= --apropos= -n= --node= -w --where --location
		--index-search= --show-options --usage -O --vi-keys --raw-escapes -R --no-raw-escapes
		--strict-node-location -v= --variable=`,
	deny: []denial{
		{`-o=w --output=w --dribble=w --restore=r`, "writes or replays a file"},
		{`--init-file=`, "reads key bindings"},
		{`-f|--file=r -d|--directory=r`, "reads an Info file whose Indirect table can name any file"},
	},
	ops: opsHook,
	check: func(st *state) {
		for _, o := range st.ops {
			if strings.Contains(o, "/") || strings.Contains(o, Dynamic) {
				st.read(o)
				st.fail("info: " + printable(o) + " is a file info opens, and an Info file can name any file")
			}
			if strings.HasPrefix(o, "-") {
				st.fail("info: " + printable(o) + " reaches man as an option when no Info node has that name")
			}
		}
	},
	cache: []string{"/var/cache/man"},
	// Its keys can open any file and print a node through a command.
	terminal: "is an Info browser on a terminal, whose keys are commands (open any file, print through a command)",
}

func init() {
	register(lessSpec, "less")
	register(moreSpec, "more")
	register(batSpec, "bat", "batcat")
	register(infoSpec, "info")
	// zless and zmore run less and more with a gzip -cdfq preprocessor.
	register(copySpec(lessSpec), "zless")
	register(copySpec(moreSpec), "zmore")
	delete(knownWriters, "less")
	delete(knownWriters, "more")
}
