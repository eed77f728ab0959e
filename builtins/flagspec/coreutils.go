package flagspec

import "strings"

// Core utilities that only read files or print facts. Their specs list the
// GNU options (and a few harmless BSD ones); operands are files read unless
// said otherwise.

// ls lists directories. No ls option writes or executes.
var lsSpec = &spec{
	complete: true,
	allow: `-a@a --all@a -A@a --almost-all@a --author -b --escape --block-size= -B --ignore-backups
		-c -C --color? --colour? -d --directory -D --dired -f@a -F --classify? --file-type
		--format= --full-time -g --group-directories-first -G --no-group -h --human-readable
		--si -H --dereference-command-line --dereference-command-line-symlink-to-dir
		--hide= --hyperlink? --indicator-style= -i --inode -I= --ignore= -k --kibibytes
		-l -L@f --dereference@f -m -n --numeric-uid-gid -N --literal -o -p -q --hide-control-chars
		--show-control-chars -Q --quote-name --quoting-style= -r --reverse -R@r --recursive@r
		-s --size -S --sort= --time= --time-style= -t -T= --tabsize= -u -U -v -w= --width=
		-x -X -Z --context --zero -1 -@ -e -O -P -W -%`,
	ops:   opsRead,
	check: checkLs,
}

// cat concatenates files to stdout.
var catSpec = &spec{
	complete: true,
	allow: `-A --show-all -b --number-nonblank -e -E --show-ends -n --number -s --squeeze-blank
		-t -T --show-tabs -u -v --show-nonprinting -l`,
	ops: opsRead,
}

// tac prints files last line first. Input it cannot seek (a pipe) is
// buffered in a scratch file in TMPDIR (mkstemp, removed at once), as
// observed under strace: named as its own scratch space.
var tacSpec = &spec{
	complete: true,
	allow:    `-b --before -r --regex -s= --separator=`,
	ops:      opsRead,
	cache:    []string{"/tmp"},
}

// head prints the first part of files.
var headSpec = &spec{
	complete: true,
	allow:    `-c= --bytes= -n= --lines= -q --quiet --silent -v --verbose -z --zero-terminated`,
	num:      true,
	ops:      opsRead,
}

// tail prints the last part of files; following (-f) only reads.
var tailSpec = &spec{
	complete: true,
	allow: `-c= --bytes= -f --follow? -F -n= --lines= --max-unchanged-stats= --pid= -q --quiet
		--silent --retry -s= --sleep-interval= -v --verbose -z --zero-terminated -r`,
	num: true,
	ops: opsRead,
}

// nl numbers lines.
var nlSpec = &spec{
	complete: true,
	allow: `-b= --body-numbering= -d= --section-delimiter= -f= --footer-numbering=
		-h= --header-numbering= -i= --line-increment= -l= --join-blank-lines= -n= --number-format=
		-p --no-renumber -s= --number-separator= -v= --starting-line-number= -w= --number-width=`,
	ops: opsRead,
}

// wc counts. --files0-from reads the files a list names, paths not known
// statically (a list naming ~/.ssh/id_rsa reads it).
var wcSpec = &spec{
	complete: true,
	allow:    `-c --bytes -m --chars -l --lines -w --words -L --max-line-length --total=`,
	deny:     []denial{{`--files0-from=r`, files0FromWhy}},
	ops:      opsRead,
}

// files0FromWhy: sort, wc, du (--files0-from) and file (-f) read the
// files a list names.
const files0FromWhy = "reads the files a list names, paths not known statically"

// stat prints file metadata.
var statSpec = &spec{
	complete: true,
	allow: `-L --dereference -f --file-system -c= --format= --printf= -t --terse --cached= -x -r -s -n -q
		-F -l`,
	ops: opsRead,
}

// du estimates disk usage.
var duSpec = &spec{
	complete: true,
	allow: `-0 --null -a@a --all@a --apparent-size -B= --block-size= -b --bytes -c --total -D
		--dereference-args -d=@d --max-depth=@d -H --inodes -h --human-readable -k -L@f
		--dereference@f -l --count-links -m -P@p --no-dereference@p -S --separate-dirs --si -s --summarize
		-t= --threshold= --time? --time-style= -X=r --exclude-from=r --exclude= -x --one-file-system -g -A`,
	deny:  []denial{{`--files0-from=r`, files0FromWhy}},
	ops:   opsRead,
	check: checkDu,
}

// df reports file system usage; --output selects columns (it is not a file).
var dfSpec = &spec{
	complete: true,
	allow: `-a --all -B= --block-size= -h --human-readable -H --si -i --inodes -k -l --local
		--no-sync --output? -P --portability --sync --total -t= --type= -T --print-type -x= --exclude-type= -g -m`,
	ops: opsRead,
}

// pwd prints the working directory.
var pwdSpec = &spec{allow: `-L -P --logical --physical`, ops: opsNone}

// which and type look programs up in PATH; operands are names, not files.
var whichSpec = &spec{allow: `-a -s --all --skip-alias --skip-functions --read-alias --read-functions
	--show-dot --show-tilde --tty-only -i -n -p`, ops: opsText}

// type is the shell builtin that says what a name is.
var typeSpec = &spec{allow: `-a -f -P -p -t`, ops: opsText, noStd: true}

// file guesses file types. -C compiles a magic file (writes magic.mgc).
var fileSpec = &spec{
	allow: `-b --brief -c --checking-printout -d -E -e= --exclude= --exclude-quiet= --extension
		-F= --separator= -h --no-dereference -i --mime --mime-type --mime-encoding
		-k --keep-going -l --list -L --dereference -m=r --magic-file=r -N --no-pad -n --no-buffer
		-0 --print0 -P= --parameter= -r --raw -s --special-files
		-z --uncompress -Z --uncompress-noreport -I -D --apple`,
	deny: []denial{
		{`-f=r --files-from=r`, files0FromWhy},
		{`-C --compile`, "compiles a magic file and writes it"},
		{`-S --no-sandbox`, "turns off file's sandbox for parsing untrusted input"},
		// Seen by the vocabulary fuzzer: utimensat on each file read.
		{`-p --preserve-date`, "sets the access time of each file back, a write of its times"},
	},
	ops: opsRead,
}

// basename and dirname work on strings, not files.
var basenameSpec = &spec{
	complete: true, allow: `-a --multiple -s= --suffix= -z --zero`, ops: opsText}
var dirnameSpec = &spec{
	complete: true, allow: `-z --zero`, ops: opsText}

// realpath and readlink resolve paths (they read directory entries).
var realpathSpec = &spec{
	complete: true,
	allow: `-e --canonicalize-existing -m --canonicalize-missing -L --logical -P --physical
		-q --quiet --relative-to=r --relative-base=r -s --strip --no-symlinks -z --zero`,
	ops: opsRead,
}
var readlinkSpec = &spec{
	complete: true,
	allow: `-f --canonicalize -e --canonicalize-existing -m --canonicalize-missing -n --no-newline
		-q --quiet -s --silent -v --verbose -z --zero`,
	ops: opsRead,
}

// echo, printf, true, false, test and [ only print or compute a status.
// echo, true, false, test and [ take no options that could matter, so any
// argument is fine. printf -v assigns a shell variable (shell state only).
var echoSpec = &spec{anyArgs: true}

// printf prints its arguments. -v VAR assigns a shell variable instead
// (printf -v PATH /tmp/evil changes what later commands run).
var printfSpec = &spec{
	complete: true,
	deny:     []denial{{`-v=`, "assigns a shell variable"}},
	posix:    true, ops: opsText, noStd: true,
}

// cd changes the shell's directory; the analyser tracks it. The directory is
// reported as read so that read rules on it apply.
var cdSpec = &spec{allow: `-L -P -e -@`, ops: opsRead, maxOps: 1, noStd: true, posix: true}

// diff compares files. -l pipes through pr, a fixed program.
var diffSpec = &spec{
	allow: `--normal -q --brief -s --report-identical-files -c -C= --context? -u -U= --unified?
		-e --ed -n --rcs -y --side-by-side -W= --width= --left-column --suppress-common-lines
		-p --show-c-function -F= --show-function-line= --label= --expand-tabs -t -T --initial-tab
		--tabsize= --suppress-blank-empty -l --paginate -r@r --recursive@r --no-dereference
		-N --new-file --unidirectional-new-file --ignore-file-name-case --no-ignore-file-name-case
		-x= --exclude= -X=r --exclude-from=r -S= --starting-file= --from-file=r@f --to-file=r@f
		-i --ignore-case -E --ignore-tab-expansion -Z --ignore-trailing-space -b --ignore-space-change
		-w --ignore-all-space -B --ignore-blank-lines -I= --ignore-matching-lines= -a --text
		--strip-trailing-cr -D= --ifdef= --GTYPE-group-format= --old-group-format= --new-group-format=
		--changed-group-format= --unchanged-group-format= --line-format= --old-line-format=
		--new-line-format= --unchanged-line-format= -d --minimal --horizon-lines= --speed-large-files
		--color? --palette= --binary`,
	num:   true,
	ops:   opsRead,
	check: checkDiff,
}

// cmp compares two files byte by byte (operands after the files are skips).
var cmpSpec = &spec{
	allow: `-b --print-bytes -i= --ignore-initial= -l --verbose -n= --bytes= -s --quiet --silent`,
	ops:   opsRead,
}

// comm compares two sorted files.
var commSpec = &spec{
	allow: `-1 -2 -3 --check-order --nocheck-order --output-delimiter= --total -z --zero-terminated`,
	ops:   opsRead,
}

// cut, paste, fold, expand, unexpand, column, rev, fmt, strings: text filters.
var cutSpec = &spec{
	complete: true,
	allow: `-b= --bytes= -c= --characters= -d= --delimiter= -f= --fields= -n --complement
		-s --only-delimited --output-delimiter= -z --zero-terminated -w`,
	ops: opsRead,
}
var pasteSpec = &spec{
	complete: true, allow: `-d= --delimiters= -s --serial -z --zero-terminated`, ops: opsRead}
var foldSpec = &spec{
	complete: true, allow: `-b --bytes -s --spaces -w= --width=`, num: true, ops: opsRead}
var expandSpec = &spec{
	complete: true, allow: `-i --initial -t= --tabs=`, num: true, ops: opsRead}
var unexpandSpec = &spec{
	complete: true, allow: `-a --all --first-only -t= --tabs=`, num: true, ops: opsRead}
var columnSpec = &spec{
	allow: `-t --table -s= --separator= -o= --output-separator= -c= --output-width= -x --fillrows
		-n= --table-name= -e -J --json -N= --table-columns= -R= --table-right= -T= --table-truncate=
		-H= --table-hide= -E= --table-noextreme= -W= --table-wrap= -O= --table-order=
		-l= --table-columns-limit= -d --table-noheadings -r= --tree= -i= --tree-id= -p= --tree-parent=
		-L --keep-empty-lines -C= --table-column= -m --table-maxout -S= --use-spaces=`,
	ops: opsRead,
}
var revSpec = &spec{
	complete: true, allow: `-0 --zero -h -V`, ops: opsRead}
var fmtSpec = &spec{
	allow: `-c --crown-margin -p= --prefix= -s --split-only -t --tagged-paragraph -u --uniform-spacing
		-w= --width= -g= --goal=`,
	num: true,
	ops: opsRead,
}

// strings is not complete: as binutils do, it reads more arguments from
// an @FILE operand, so a glob matching a file named @k reads k.
var stringsSpec = &spec{
	allow: `-a --all -d --data -f --print-file-name -n= --bytes= -t= --radix= -o -e= --encoding=
		-T= --target= -w --include-all-whitespace -s= --output-separator= -U= --unicode=`,
	num: true,
	ops: opsRead,
}

// tr translates stdin; its operands are character sets.
var trSpec = &spec{allow: `-c -C --complement -d --delete -s --squeeze-repeats -t --truncate-set1`, ops: opsText}

// od, hexdump: dump files.
var odSpec = &spec{
	complete: true,
	allow: `-A= --address-radix= --endian= -j= --skip-bytes= -N= --read-bytes= -S? --strings?
		-t= --format= -v --output-duplicates -w? --width? --traditional -a -b -c -d -f -i -l -o -s -x
		-B -D -e -F -h -H -I -L -O -X`,
	ops: opsRead,
}
var hexdumpSpec = &spec{
	allow: `-b -c -C -d -o -x -e= -f=r -n= -s= -v -L? --one-byte-octal --one-byte-char --canonical
		--two-bytes-decimal --two-bytes-octal --two-bytes-hex --format= --format-file=r --length=
		--skip= --no-squeezing --color?`,
	ops: opsRead,
}

// xxd dumps one file; a second operand is the output file, so at most one.
// xxd has its own parser: options end at the first operand (xxd in -v
// writes a file named -v), nothing clusters, and a word is recognised by
// its first letters (-rn is -r). So options are whole words here, matched
// exactly; a value is the next word (glued values such as -c16 are not
// modelled and fail closed).
var xxdSpec = &spec{
	single: true,
	allow: `-a -autoskip -b -bits -C -capitalize -c= -cols= -E -EBCDIC -e -g= -groupsize= -i -include
		-l= -len= -n= -name= -o= -offset= -p -ps -postscript -plain -r -revert -d -s= -seek= -u
		-uppercase -R= -h -help -v -version`,
	maxOps: 1,
	posix:  true,
	ops:    opsRead,
	noStd:  true,
	check: func(st *state) {
		if len(st.ops) > 1 {
			st.write(st.ops[1]) // xxd [-r] IN OUT writes OUT
		}
	},
}

// Checksums read files (-c reads the files named in the list as well:
// the mark l, which no hook reads, keeps the spec from being harmless, so
// that a glob cannot turn into -c).
var sumSpec = &spec{
	complete: true,
	allow: `-b --binary -c@l --check@l --tag --untagged -t --text -z --zero --ignore-missing --quiet
		--status --strict -w --warn -l= --length= -a= --algorithm= --base64 --raw -r -s --sysv`,
	ops: opsRead,
}

// base64 and base32 encode or decode to stdout. -o/--output (BSD base64)
// writes a file.
var base64Spec = &spec{
	allow: `-d --decode -D -i --ignore-garbage -w= --wrap= -b= --break= --input=r`,
	deny:  []denial{{`-o=w --output=w`, "writes its output to a file"}},
	ops:   opsRead,
}

// date prints the date. -s/--set and a MMDDhhmm operand set the clock.
var dateSpec = &spec{
	allow: `-d= --date= --debug -f=r --file=r -I? --iso-8601? --resolution -R --rfc-email --rfc-822
		--rfc-2822 --rfc-3339= -r=r --reference=r -u --utc --universal -j -n -v=`,
	deny:  []denial{{`-s= --set=`, "sets the system clock"}},
	ops:   opsHook,
	check: checkDate,
}

func checkDate(st *state) {
	for _, o := range st.ops {
		if len(o) == 0 || o[0] != '+' {
			st.fail("date: operand " + printable(o) + " sets the system clock")
		}
	}
}

// uname, whoami, id, groups, nproc, uptime, free, arch, tty, logname:
// facts about the machine and user.
var unameSpec = &spec{
	allow: `-a --all -s --kernel-name -n --nodename -r --kernel-release -v --kernel-version
		-m --machine -p --processor -i --hardware-platform -o --operating-system`,
	ops: opsNone,
}
var whoamiSpec = &spec{ops: opsNone}
var idSpec = &spec{
	allow: `-a -Z --context -g --group -G --groups -n --name -r --real -u --user -z --zero -p -P -F`,
	ops:   opsText,
}
var groupsSpec = &spec{complete: true, ops: opsText}

// users FILE and who FILE read FILE as a file of login records and print
// its user and host fields: one operand is a file read. who ARG1 ARG2
// (who am i) reads the default file.
var usersSpec = &spec{complete: true, ops: opsHook, check: checkLoginRecords}

func checkLoginRecords(st *state) {
	if len(st.ops) == 1 {
		st.read(st.ops[0])
	}
}

var nprocSpec = &spec{allow: `--all --ignore=`, ops: opsNone}
var uptimeSpec = &spec{allow: `-p --pretty -s --since -r --raw -c --container -V`, ops: opsNone}
var freeSpec = &spec{
	allow: `-b --bytes -k --kibi -m --mebi -g --gibi --tebi --pebi --kilo --mega --giga --tera --peta
		-h --human --si -l --lohi -L --line -t --total -v --committed -w --wide -s= --seconds= -c= --count=`,
	ops: opsNone,
}
var noArgSpec = &spec{ops: opsNone}

// hostname prints the host name. An operand, -F/--file and -b set it.
var hostnameSpec = &spec{
	allow: `-a --alias -A --all-fqdns -d --domain -f --fqdn --long -i --ip-address
		-I --all-ip-addresses -s --short -y --yp --nis -v --verbose`,
	deny: []denial{{`-F= --file= -b --boot`, "sets the host name"}},
	ops:  opsHook,
	check: func(st *state) {
		if len(st.ops) > 0 {
			st.fail("hostname: operand " + printable(st.ops[0]) + " sets the host name")
		}
	},
}

// env with no command prints the environment. A command operand means env
// runs it (the analyser unwraps that form; here it is not read-only).
var envSpec = &spec{
	allow: `-0 --null -i --ignore-environment -u= --unset=`,
	deny:  []denial{{`-S= --split-string= -C= --chdir= --default-signal? --ignore-signal? --block-signal?`, "runs a command"}},
	posix: true,
	ops:   opsHook,
	check: func(st *state) {
		if len(st.ops) > 0 {
			st.fail("env: runs the command " + printable(st.ops[0]))
		}
	},
}

// printenv prints variables; operands are names.
var printenvSpec = &spec{allow: `-0 --null`, ops: opsText}

// ps lists processes. Its many option styles (BSD "aux", UNIX -ef, GNU
// --sort) only select and format what is printed; none writes or executes,
// so every argument is accepted.
var psSpec = &spec{anyArgs: true}

// seq prints numbers; negative numbers look like options.
var seqSpec = &spec{complete: true, allow: `-f= --format= -s= --separator= -w --equal-width -t=`, num: true, ops: opsText}

// sleep waits.
var sleepSpec = &spec{ops: opsText}

// history without options prints the shell history; -d, -a, -w, -r, -n,
// -s change the history or its file (builtins/bash judges -a, -r and -n
// where they write and print nothing: endOfShellJudge). -c clears the
// shell's list: nothing is written, now or at exit (with history on and
// $HISTFILE set, bash appends only the lines added since, and -c leaves
// none; checked under strace, docs/shell.md "Shell state").
var historySpec = &spec{
	allow: `-c`,
	deny:  []denial{{`-d= -a -n -r -w -s -p`, "changes the history or its file"}},
	ops:   opsText,
	noStd: true,
}

// fc -l lists the shell's history (an empty list in a shell that is not
// interactive, checked under strace: no file opened). Without -l fc edits
// history entries with an editor and runs them; -s runs one again.
var fcSpec = &spec{
	allow: `-l@l -n -r`,
	deny:  []denial{{`-e=x`, "runs an editor on history entries, then runs them"}, {`-s`, "runs history entries again"}},
	ops:   opsText,
	num:   true,
	noStd: true,
	check: func(st *state) {
		if !st.has('l') {
			st.fail("fc: without -l it edits history entries and runs them")
		}
	},
}

// man formats manual pages. --html/-H and -X open a browser or viewer,
// -P/--pager runs a pager command, -l formats a local file with troff
// (whose preprocessors can be named by the page), -T/-Z and -p drive troff.
// -C/--config-file loads a man-db configuration, whose DEFINE lines
// redefine the programs man runs (nroff, pager, col): code. A page can
// include any file (.so, .mso), so only the system's manual hierarchies
// are read: -M/--manpath and an operand holding a slash (man opens it as
// a file: man ./x.1, man ~/.ssh/id_rsa) are not read-only. Under strace
// man-db reads nothing from the working directory; ~/.manpath and the
// environment (MANPATH, MANOPT, MANPAGER, ...) are the user's, and an
// assignment in the command is not read-only (docs/shell.md).
var manSpec = &spec{
	allow: `-k@m --apropos@m -f@m --whatis@m -a --all -w@m --where@m --path@m -W@m --where-cat@m --location-cat@m
		-s|--sections=@v -S=@v -e|--extension=@v -L|--locale=@v -E|--encoding=@v --no-hyphenation --nh
		--no-justification --nj -7 --ascii -i --ignore-case -I --match-case --regex --wildcard
		--names-only --no-subpages -d --debug -D --default
		-R|--recode=@v -K --global-apropos --warnings? -Q`,
	deny: []denial{
		{`-H|--html?x -X? --gxditview?`, "opens a browser or viewer program"},
		{`-P|--pager=x`, "runs a pager command"},
		{`-C|--config-file=r`, "loads a man-db configuration, which redefines the programs man runs"},
		{`-M|--manpath=r -m|--systems=`, "reads pages from a chosen directory (-m ../../dir: any), and a page can include any file (.so)"},
		{`-l --local-file -T? --troff-device? -Z --ditroff -p= --preprocessor= -t --troff`, "runs troff on a chosen file or device"},
		{`-u --update -c --catman`, "updates the manual page caches"},
	},
	ops: opsHook,
	check: func(st *state) {
		// man-db joins sections, extensions and locales to the manual
		// hierarchies' paths (-L ../../x searches x): a slash leaves them.
		for _, mv := range st.vals {
			if mv.mark == 'v' && (strings.Contains(mv.val, "/") || strings.Contains(mv.val, Dynamic)) {
				st.fail("man: the value " + printable(mv.val) + " names a directory outside the manual hierarchies")
			}
		}
		for _, o := range st.ops {
			if strings.Contains(o, "/") || strings.Contains(o, Dynamic) {
				st.read(o)
				st.fail("man: " + printable(o) + " is a file man opens, and a page can include any file (.so)")
			}
		}
	},
	// -k, -f and -w print without a pager (@m).
	terminal: terminalPages,
}

// tee copies stdin to files: read-only only when every operand is /dev/null.
var teeSpec = &spec{
	allow: `-a --append -i --ignore-interrupts -p --output-error?`,
	ops:   opsHook,
	check: func(st *state) {
		for _, o := range st.ops {
			switch o {
			case "/dev/null", "/dev/tty", "/dev/stdout", "/dev/stderr", "/dev/fd/63":
				// No file: the terminal or the command's own output;
				// /dev/fd/63 is what a process substitution >(cmd)
				// expands to, a pipe to cmd, which builtins/bash judges
				// as its own leaf (as it does > /dev/fd/63).
			default:
				st.write(o)
				st.fail("tee: writes to " + printable(o))
			}
		}
	},
}

// locale, getconf, tty, logname, users, who, arch print facts.
var whoSpec = &spec{
	allow: `-a --all -b --boot -d --dead -H --heading -l --login --lookup -m -q --count -r --runlevel
		-s --short -t --time -T -w --mesg --message --writable -u --users -p --process --ips`,
	ops:   opsHook,
	check: checkLoginRecords,
}

func init() {
	register(lsSpec, "ls")
	register(catSpec, "cat")
	register(tacSpec, "tac")
	register(headSpec, "head")
	register(tailSpec, "tail")
	register(nlSpec, "nl")
	register(wcSpec, "wc")
	register(statSpec, "stat")
	register(duSpec, "du")
	register(dfSpec, "df")
	register(pwdSpec, "pwd")
	register(whichSpec, "which")
	register(typeSpec, "type")
	register(fileSpec, "file")
	register(basenameSpec, "basename")
	register(dirnameSpec, "dirname")
	register(realpathSpec, "realpath")
	register(readlinkSpec, "readlink")
	register(echoSpec, "echo", "true", "false", "test", "[", ":")
	register(printfSpec, "printf")
	register(cdSpec, "cd")
	register(diffSpec, "diff")
	register(cmpSpec, "cmp")
	register(commSpec, "comm")
	register(cutSpec, "cut")
	register(pasteSpec, "paste")
	register(foldSpec, "fold")
	register(expandSpec, "expand")
	register(unexpandSpec, "unexpand")
	register(columnSpec, "column")
	register(revSpec, "rev")
	register(fmtSpec, "fmt")
	register(stringsSpec, "strings")
	register(trSpec, "tr")
	register(odSpec, "od")
	register(hexdumpSpec, "hexdump")
	register(xxdSpec, "xxd")
	register(sumSpec, "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum",
		"b2sum", "cksum", "sum", "shasum", "md5")
	register(base64Spec, "base64", "base32")
	register(dateSpec, "date")
	register(unameSpec, "uname")
	register(whoamiSpec, "whoami", "logname", "tty", "arch")
	register(idSpec, "id")
	register(groupsSpec, "groups")
	register(usersSpec, "users")
	register(nprocSpec, "nproc")
	register(uptimeSpec, "uptime")
	register(freeSpec, "free")
	register(hostnameSpec, "hostname")
	register(envSpec, "env")
	register(printenvSpec, "printenv")
	register(psSpec, "ps")
	register(seqSpec, "seq")
	register(sleepSpec, "sleep")
	register(historySpec, "history")
	register(fcSpec, "fc")
	register(manSpec, "man")
	register(teeSpec, "tee")
	register(whoSpec, "who")
}
