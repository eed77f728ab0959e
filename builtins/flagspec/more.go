package flagspec

import (
	"strconv"
	"strings"
)

// More everyday programs found in real-world usage (tldr-pages): text
// utilities, searchers, and the query forms of systemd's control programs
// and of gem, cargo, tldr, yq. Options that write, run programs or reach a
// destination of the command's choosing are denied or left out.

var numfmtSpec = &spec{
	allow: `--debug -d= --delimiter= --field= --format= --from= --from-unit= --grouping --header? --invalid=
		--padding= --round= --suffix= --to= --to-unit= -z --zero-terminated`,
	ops: opsText,
}

var prSpec = &spec{
	allow: `-a --across -c --show-control-chars -d --double-space -D= --date-format= -e? --expand-tabs? -F -f
		--form-feed -h= --header= -i? --output-tabs? -J --join-lines -l= --length= -m --merge -n? --number-lines?
		-N= --first-line-number= -o= --indent= -r --no-file-warnings -s? --separator? -S? --sep-string? -t
		--omit-header -T --omit-pagination -v --show-nonprinting -w= --width= -W= --page-width=`,
	num: true,
	ops: opsHook,
	check: func(st *state) {
		// +FIRST[:LAST] selects pages.
		for _, o := range st.ops {
			if !strings.HasPrefix(o, "+") {
				st.read(o)
			}
		}
	},
}

var factorSpec = &spec{allow: `-h --exponents`, ops: opsText}

// bc computes: its operands are program files it reads, then standard
// input. The language has no statement that writes a file or runs a
// program (no system(), no "!" escape, unlike dc; checked under strace);
// read() takes a number from standard input. -i (interactive, readline)
// is left out; BC_ENV_ARGS, which can name more files, is an environment
// assignment the analyser does not allow.
var bcSpec = &spec{allow: `-h -v -l --mathlib -q --quiet -s --standard -w --warn`, ops: opsRead}
var tsortSpec = &spec{complete: true, ops: opsRead, maxOps: 1}
var pathchkSpec = &spec{allow: `-p -P --portability`, ops: opsText}
var lookSpec = &spec{allow: `-a --alternative -d --alphanum -f --ignore-case -t= --terminate= -h -V`, ops: opsHook,
	check: func(st *state) {
		if len(st.ops) > 1 {
			st.read(st.ops[1])
		}
	}}
var dircolorsSpec = &spec{allow: `-b --sh --bourne-shell -c --csh --c-shell -p --print-database --print-ls-colors`, ops: opsRead}
var yesSpec = &spec{anyArgs: true}

// gettext, ngettext and envsubst translate or substitute text to stdout
// (git's shell scripts run them for their messages).
var gettextSpec = &spec{anyArgs: true}
var syncSpec = &spec{allow: `-d --data -f --file-system`, ops: opsRead}

// sdiff merges interactively into -o FILE (whose commands include running
// an editor); without -o it prints side by side. --diff-program runs a program.
var sdiffSpec = &spec{
	allow: `-i --ignore-case -E --ignore-tab-expansion -Z --ignore-trailing-space -b --ignore-space-change
		-W --ignore-all-space -B --ignore-blank-lines -I= --ignore-matching-lines= --strip-trailing-cr -a --text
		-w= --width= -l --left-column -s --suppress-common-lines -t --expand-tabs --tabsize= -d --minimal
		-H --speed-large-files -v`,
	deny: []denial{{`-o=w --output=w`, "merges interactively into a file"}, {`--diff-program=`, "runs a program"}},
	ops:  opsRead,
}
var diff3Spec = &spec{
	allow: `-A --show-all -e --ed -E --show-overlap -3 --easy-only -x --overlap-only -X -i -m --merge -a --text
		--strip-trailing-cr -T --initial-tab -L= --label= -v`,
	deny: []denial{{`--diff-program=`, "runs a program"}},
	ops:  opsRead,
}

// iconv converts to stdout; -o writes a file.
var iconvSpec = &spec{
	allow: `-f= --from-code= -t= --to-code= -l --list -c -s --silent --verbose --usage -V -?`,
	deny:  []denial{{`-o=w --output=w`, "writes its output to a file"}},
	ops:   opsRead,
}

// locate and plocate search the file-name database; -d names another one.
var locateSpec = &spec{
	allow: `-A --all -b --basename -c --count -d=r --database=r -e --existing -L --follow -i --ignore-case
		-p --ignore-spaces -t --transliterate -l= --limit= -n= -m --mmap -P --nofollow -H --nofollow -0 --null
		-S --statistics -q --quiet -r= --regexp= --regex -s --stdio -w --wholename -V`,
	ops: opsText,
}

// nice with no command prints the niceness (the analyser unwraps the
// command form).
var niceSpec = &spec{allow: `-n= --adjustment=`, ops: opsNone}

// mktemp -u only prints a name; without it mktemp creates the file.
var mktempSpec = &spec{
	complete: true,
	allow:    `-u@u --dry-run@u -d --directory -q --quiet --suffix= -p= --tmpdir? -t`,
	ops:      opsText,
	check:    requireMark('u', "mktemp creates a file or directory (only -u/--dry-run prints a name)"),
}

// zgrep, zegrep, zfgrep: grep over gzip -cdfq of each file (scripts that
// run gzip and grep from PATH). zdiff and zcmp compare through gzip -cd.
var zgrepSpec = copySpec(grepSpec)

// zcmp runs "zdiff --__cmp", zdiff's own spelling of comparing with cmp
// (seen by the vocabulary fuzzer).
var zdiffSpec = func() *spec {
	c := copySpec(diffSpec)
	c.allow += " --__cmp"
	return c
}()

// copySpec returns a copy of s to register under other names (it is not
// complete: the copy runs other programs, with options of their own).
func copySpec(s *spec) *spec {
	c := *s
	c.complete = false
	return &c
}

// fd finds files; -x/--exec and -X/--exec-batch run commands on them
// (-l/--list-details runs ls, which only reads). It walks a tree (checkFd).
var fdSpec = &spec{
	noAbbrev: true,
	allow: `-H@h --hidden@h -I@n --no-ignore@n --no-ignore-vcs@n --no-ignore-parent@n --no-global-ignore-file -u@u --unrestricted@u
		-s --case-sensitive -i --ignore-case -g --glob --regex -F --fixed-strings --and= -a --absolute-path
		-l --list-details -L@f --follow@f -p --full-path -0 --print0 --max-results= -1 -q --quiet --show-errors
		--strip-cwd-prefix? --one-file-system --mount --xdev -d=@d --max-depth=@d --min-depth= --exact-depth=@d --prune
		-t= --type= -e= --extension= -S= --size= --changed-within= --changed-before= --newer= --older=
		-o= --owner= --format= -E= --exclude= --ignore-file=r -c= --color= -j= --threads= --base-directory=r@b
		--path-separator= --search-path=r@p --hyperlink? --no-require-git --require-git -h@q -V@q`,
	deny:  []denial{{`-x= --exec= -X= --exec-batch= --batch-size=`, "runs a command on every file found"}},
	ops:   opsPatRead,
	check: checkFd,
}

// fd lists the names below each path (--search-path ones too; the
// working directory, or --base-directory, when none): hidden entries with
// -H or -u, what ignore files exclude skipped unless -I, -u or a
// --no-ignore-* option, links followed with -L. A listing of ~/.ssh is the
// credential read ls -aR ~ is (fd -H . ~ was read-only before). Modelled
// from fd's documentation: fd was not installed where this was written,
// so -L is the only follow and depth counts as rg's.
func checkFd(st *state) {
	if st.has('q') {
		return
	}
	t := Tree{NamesOnly: true, Hidden: st.has('h') || st.has('u'), Ignores: !st.has('n') && !st.has('u'),
		SkipsLinks: !st.has('f'), MaxDepth: depthOf(st, 'd')}
	roots := patOperands(st)
	for _, mv := range st.vals {
		if mv.mark == 'p' {
			roots = append(roots, mv.val)
		}
	}
	if base, ok := st.val('b'); ok {
		if len(roots) == 0 {
			roots = []string{base}
		}
		for i, r := range roots {
			if !strings.HasPrefix(r, "/") && !strings.HasPrefix(r, "~") {
				roots[i] = strings.TrimSuffix(base, "/") + "/" + r
				st.read(roots[i])
			}
		}
	}
	treesOf(st, roots, t)
}

// ag (the silver searcher); --pager runs a pager program. It recurses like
// rg (checkAg).
var agSpec = &spec{
	allow: `--ackmate -A? --after? -B? --before? --break --nobreak -c --count --color --nocolor --color-line-number=
		--color-match= --color-path= --column --filename --nofilename -H --heading --noheading -C? --context?
		--group --nogroup -g=@e --filename-pattern=@e -l --files-with-matches -L --files-without-matches
		--print-all-files --numbers --nonumbers -o --only-matching --print-long-lines --passthrough --passthru
		--silent --stats --stats-only --vimgrep -0 --null --print0 -a --all-types -D --debug --depth=@d -f@f --follow@f
		-F --fixed-strings -G= --file-search-regex= --hidden@h -i --ignore-case --ignore= --ignore-dir= -m= --max-count=
		--one-device -p=r --path-to-ignore=r -Q --literal -s --case-sensitive -S --smart-case --search-binary
		-t --all-text -u@u --unrestricted@u -U@n --skip-vcs-ignores@n -v --invert-match -w --word-regexp -W= --width=
		-z --search-zip --list-file-types@q --workers= -r -R --recurse --norecurse@o -V@q`,
	deny:  []denial{{`--pager=`, "runs a pager program"}},
	ops:   opsPatRead,
	check: checkAg,
}

// ag recurses into its paths (the working directory when none) unless
// --norecurse, skipping hidden entries unless --hidden or -u, and what
// ignore files exclude unless -u (-U skips only the VCS ones). It follows
// no link below its paths, to a file or a directory, unless -f/--follow
// (ag 2.2 under strace: ag --hidden KEY ~ prints ~/.ssh/id_rsa's line,
// which was read-only before ag's walk was modelled). -g names the files
// whose names match, printing names only.
func checkAg(st *state) {
	if st.has('q') {
		return // --list-file-types, -V search nothing
	}
	t := Tree{Hidden: st.has('h') || st.has('u'), Ignores: !st.has('u') && !st.has('n'), SkipsLinks: !st.has('f'),
		NamesOnly: st.has('e')}
	// --depth N reads N directories below the path (0: its own files);
	// a negative or unreadable value is no limit.
	if v, ok := st.val('d'); ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			t.MaxDepth = n + 1
		}
	}
	if st.has('o') {
		t.MaxDepth = 1
	}
	treesOf(st, patOperands(st), t)
}

// pidstat reports; -e runs a program and monitors it.
var pidstatSpec = &spec{
	allow: `-d -H -h -I -l -R -r -s -t -U? -u -V -v -w -C= -G= -p= -T= --human --dec=`,
	deny:  []denial{{`-e`, "runs a program"}},
	ops:   opsText,
}

// systemd's control programs: their query verbs (over D-Bus to the local
// daemon); -H/--host reaches another machine over ssh, -M a container.
func systemdQuery(verbs, allow string) *spec {
	s := &spec{
		allow:    allow + ` --no-pager@m -a --all --no-legend -l --full -p= --property= -P= --value --json= -q --quiet -h`,
		deny:     []denial{{`-H= --host= -M= --machine=`, "reaches another machine"}},
		subs:     map[string]*spec{},
		inherit:  true,
		terminal: terminalPages,
	}
	for _, v := range strings.Fields(verbs) {
		s.subs[v] = &spec{ops: opsText}
	}
	return s
}

var loginctlSpec = systemdQuery(`list-sessions session-status show-session list-users user-status show-user
	list-seats seat-status show-seat`, ``)
var hostnamectlSpec = systemdQuery(`status hostname`, `--static --transient --pretty`)
var timedatectlSpec = systemdQuery(`status show list-timezones timesync-status show-timesync`, `--adjust-system-clock --monitor`)

// tldr prints a page, fetching its page cache when it is missing or old
// (a network read of the client's configured source, into its cache).
var tldrSpec = &spec{
	allow:   `-p= --platform= -L= --language= -l --list -u --update -q --quiet -v --version -h --help --color= --raw`,
	ops:     opsText,
	noStd:   true,
	network: NetRead,
	cache:   []string{"~/.cache/tldr", "~/.cache/tealdeer", "~/.tldr", "~/.tldrc", "~/.local/share/tldr"},
}

// gem: list, search, info, contents, environment, which, specification,
// help. search (and list/info with -r/--remote) query the gem server.
var gemQuery = `-l --local -r@r --remote@r -b --both -a --all -d --details -e --exact -i --installed -v= --version=
	--prerelease --no-prerelease -q --quiet --verbose --no-verbose --norc --no-details --versions --no-versions`
var gemSpec = &spec{
	allow: `-v --version -h --help`,
	// A remote query caches the index's specifications (seen by the
	// vocabulary fuzzer: gem search makes ~/.local/share/gem).
	cache: []string{"~/.local/share/gem", "~/.gem", "~/.cache/gem"},
	subs: map[string]*spec{
		"list":          {allow: gemQuery, ops: opsText, check: gemRemote},
		"search":        {allow: gemQuery, ops: opsText, network: NetRead},
		"info":          {allow: gemQuery, ops: opsText, check: gemRemote},
		"contents":      {allow: `-l --lib-only --no-prefix --prefix -s= --spec-dir= -v= --version= -a --all`, ops: opsText},
		"environment":   {ops: opsText},
		"which":         {allow: `-a --all -g --gems-first`, ops: opsText},
		"specification": {allow: gemQuery + ` --ruby --yaml --marshal --json`, ops: opsText, check: gemRemote},
		"help":          {ops: opsText},
		"install":       {never: "gem install installs gems and runs their extensions' build code"},
		"uninstall":     {never: "gem uninstall removes gems"},
		"update":        {never: "gem update installs gems"},
	},
}

func gemRemote(st *state) {
	if st.has('r') {
		st.v.Network = NetRead
	}
}

// cargo search queries crates.io; cargo install --list lists installed
// crates. (cargo tree and metadata may write Cargo.lock.)
func init() {
	cargoSpec.subs["search"] = &spec{allow: `--limit= --index= --registry= -q --quiet -v --verbose --color=`, ops: opsText, network: NetRead,
		cache: []string{"~/.cargo/registry"}}
	cargoSpec.subs["install"] = &spec{allow: `--list@l --root=r -q --quiet -v --verbose --color=`, ops: opsNone,
		check: requireMark('l', "cargo install builds and installs a crate (only --list is read-only)")}
}

// yq: Python yq (a jq wrapper for YAML) and Go yq (eval/e, eval-all/ea;
// version 3's read, merge, compare, validate). -i/--in-place and Go yq's
// --split-exp write files, --from-file/-f read the expression from a file,
// -L adds a module path. Expressions that load files (load, import,
// include) or read the environment (env, $ENV, strenv) are not read-only.
var yqSubs = map[string]bool{"eval": true, "e": true, "eval-all": true, "ea": true, "read": true, "r": true,
	"merge": true, "m": true, "compare": true, "x": true, "validate": true, "v": true}

var yqSpec = &spec{
	noAbbrev: true,
	allow: `-y --yaml-output --yml-output -Y --yaml-roundtrip --yml-roundtrip --yaml-output-grammar-version=
		--yml-out-ver= -w= --width= --indentless-lists --indentless -r --raw-output -c --compact-output -e
		--exit-status --slurp -n --null-input -j --join-output -a --ascii-output -S --sort-keys -C
		--color-output --colors -M --monochrome-output --no-colors --tab --indent= --arg== --argjson==
		--slurpfile==r --rawfile==r --args --jsonargs -P --prettyPrint -o= --output-format= -p= --input-format=
		-I= -N --no-doc -v --verbose -V --version -x --xml-output -t --tsv-output --unwrapScalar? -0 --nul-output
		--front-matter= --header-preprocess? --expression= --tojson -h`,
	deny: []denial{
		{`-i|--in-place|--inplace@i -s= --split-exp=`, "writes files (in place, or one per document)"},
		{`-f= --from-file= -L=`, "reads its expression or modules from files"},
	},
	ops: opsHook,
	check: func(st *state) {
		ops := st.ops
		if len(ops) > 0 && yqSubs[ops[0]] {
			ops = ops[1:]
		}
		for i, o := range ops {
			if i == 0 && strings.Contains(o, Dynamic) {
				// A filter only known at run time (a path find or xargs
				// supplies, named by the project) may read the environment.
				st.fail("yq: the expression is only known at run time and may read files or the environment")
				return
			}
			low := strings.ToLower(o)
			for _, w := range []string{"load", "import", "include", "env", "input_filename", "$__loc__"} {
				if strings.Contains(low, w) {
					st.fail("yq: " + printable(o) + " may read files or the environment (" + w + ")")
					return
				}
			}
			if i > 0 {
				st.read(o)
				if st.has('i') {
					// yq -i rewrites its file operands.
					st.write(o)
				}
			}
		}
	},
}

func init() {
	// sort spills large inputs into scratch files in TMPDIR (-T, a chosen
	// directory, stays denied).
	sortSpec.cache = []string{"/tmp"}
	// man-db keeps formatted pages (catN/NAME.N.gz) in its cache, when it
	// can write there.
	manSpec.cache = []string{"/var/cache/man"}
	register(numfmtSpec, "numfmt")
	register(prSpec, "pr")
	register(factorSpec, "factor")
	register(bcSpec, "bc")
	register(tsortSpec, "tsort")
	register(pathchkSpec, "pathchk")
	register(lookSpec, "look")
	register(dircolorsSpec, "dircolors")
	register(yesSpec, "yes")
	register(gettextSpec, "gettext", "ngettext", "envsubst")
	register(syncSpec, "sync")
	register(sdiffSpec, "sdiff")
	register(diff3Spec, "diff3")
	register(iconvSpec, "iconv")
	register(locateSpec, "locate", "plocate", "mlocate")
	register(niceSpec, "nice")
	register(mktempSpec, "mktemp")
	register(zgrepSpec, "zgrep", "zegrep", "zfgrep")
	register(zdiffSpec, "zdiff", "zcmp")
	register(fdSpec, "fd", "fdfind")
	register(agSpec, "ag")
	register(pidstatSpec, "pidstat")
	register(loginctlSpec, "loginctl")
	register(hostnamectlSpec, "hostnamectl")
	register(timedatectlSpec, "timedatectl")
	register(tldrSpec, "tldr", "tealdeer")
	register(gemSpec, "gem")
	register(yqSpec, "yq")
	delete(knownWriters, "gem")
}
