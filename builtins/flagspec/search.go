package flagspec

import (
	"strconv"
	"strings"
)

// grep (and egrep, fgrep) search files. The first operand is the pattern
// unless -e or -f gave one; -f and --exclude-from read files. No GNU grep
// option writes or executes.
var grepSpec = &spec{
	complete: true,
	allow: `-E --extended-regexp -F --fixed-strings -G --basic-regexp -P --perl-regexp
		-e=@e --regexp=@e -f=r@e --file=r@e -i -y --ignore-case --no-ignore-case -v --invert-match
		-w --word-regexp -x --line-regexp -c --count --color? --colour? -L --files-without-match
		-l --files-with-matches -m= --max-count= -o --only-matching -q --quiet --silent
		-s --no-messages -b --byte-offset -H --with-filename -h --no-filename --label=
		-n --line-number --line-buffered -T --initial-tab -u --unix-byte-offsets -Z --null
		-z --null-data -A= --after-context= -B= --before-context= -C= --context= --group-separator=
		--no-group-separator -a --text --binary-files= -D= --devices= -d=@d --directories=@d
		--exclude=@y --exclude-from=r --exclude-dir=@x --include=@i -r@r --recursive@r -R@f
		--dereference-recursive@f -I -U --binary -O -S -p`,
	num:   true,
	ops:   opsPatRead,
	check: checkGrep,
}

// rg (ripgrep) searches files. --pre runs a program on every file searched,
// --hostname-bin runs a program, and -z/--search-zip runs decompression
// programs found on PATH.
var rgSpec = &spec{
	noAbbrev: true,
	allow: `-e=@e --regexp=@e -f=r@e --file=r@e -A= --after-context= -B= --before-context=
		-C= --context= -a --text --auto-hybrid-regex --no-auto-hybrid-regex --binary --no-binary
		--block-buffered --no-block-buffered -b --byte-offset --no-byte-offset -s --case-sensitive
		--color= --colors= --column --no-column --context-separator= --no-context-separator
		-c --count --count-matches --crlf --no-crlf --debug --dfa-size-limit= -E= --encoding=
		--no-encoding --engine= --field-context-separator= --field-match-separator= --files@e
		-l --files-with-matches --files-without-match -F --fixed-strings --no-fixed-strings
		-L@f --follow@f --no-follow@p --generate=@q -g=@g --glob=@g --glob-case-insensitive
		--no-glob-case-insensitive --heading --no-heading -.@h --hidden@h --no-hidden --iglob=@g
		-i --ignore-case --ignore-file=r --ignore-file-case-insensitive
		--no-ignore-file-case-insensitive --include-zero --no-include-zero -v --invert-match
		--no-invert-match --json --no-json --line-buffered --no-line-buffered -n --line-number
		-N --no-line-number -x --line-regexp -M= --max-columns= --max-columns-preview
		--no-max-columns-preview -m= --max-count= -d=@d --max-depth=@d --maxdepth=@d --max-filesize=
		--mmap --no-mmap -U --multiline --no-multiline --multiline-dotall --no-multiline-dotall
		--no-config --no-ignore@n --ignore --no-ignore-dot@n --ignore-dot --no-ignore-exclude --ignore-exclude
		--no-ignore-files@n --ignore-files --no-ignore-global --ignore-global --no-ignore-messages
		--ignore-messages --no-ignore-parent --ignore-parent --no-ignore-vcs@n --ignore-vcs
		--no-messages --messages --no-pcre2-unicode --pcre2-unicode --no-require-git --require-git
		--no-unicode --unicode -0 --null --null-data --one-file-system --no-one-file-system
		-o --only-matching --no-only-matching --path-separator= --passthru --passthrough
		-P --pcre2 --no-pcre2 --pcre2-version@q -p --pretty --no-pre -q --quiet --regex-size-limit=
		-r= --replace= --search-zip-no --no-search-zip -S --smart-case --no-smart-case --sort=
		--sortr= --sort-files --no-sort-files --stats --no-stats --stop-on-nonmatch -a --text
		-j= --threads= --trace --trim --no-trim -t= --type= -T= --type-not= --type-add=@t
		--type-clear= --type-list@q -u@u --unrestricted@u -V@q --version@q --vimgrep -H --with-filename
		-I --no-filename -w --word-regexp --no-word-regexp -h@q --help@q --hyperlink-format=
		--no-hyperlink`,
	deny: []denial{
		{`--pre=x --pre-glob=`, "runs a preprocessor program on every file searched"},
		{`-z --search-zip`, "runs decompression programs on compressed files"},
		{`--hostname-bin=x`, "runs a program to find the host name"},
	},
	ops:   opsPatRead,
	check: checkRg,
}

// tree lists directories. -o writes the listing to a file, and -R (with
// -H) reruns tree writing 00Tree.html into every directory. -H alone only
// formats HTML to stdout and is allowed.
var treeSpec = &spec{
	noAbbrev: true,
	allow: `-a@a -d -l@k -f -x -L=@l -P= -I= --gitignore --gitfile=r --ignore-case --matchdirs --metafirst
		--prune --info --infofile=r --noreport --charset= --filelimit= --dirsfirst --filesfirst
		-i -q -N -Q -p -u -g -s -h --si --du -D --timefmt= -F --inodes --device -v -t -c -U -r
		--sort= -n -C -X -J -S --fromfile@f --fromtabfile --nolinks -H= -T= --hintro=r --houtro=r
		--hyperlink --scheme= --authority= --opt-toggle -A`,
	check: checkTree,
	deny: []denial{
		{`-o=w`, "writes the listing to a file"},
		{`-R`, "writes 00Tree.html into every directory"},
	},
	ops: opsRead,
}

func init() {
	register(grepSpec, "grep", "egrep", "fgrep")
	register(rgSpec, "rg")
	register(treeSpec, "tree")
	register(findSpec, "find")
}

// find walks directory trees. Its expression is parsed here word by word:
// tests and the printing actions are allowed; -delete removes files,
// -exec/-execdir/-ok/-okdir run commands, and -fprint/-fprint0/-fprintf/-fls
// write files. Starting points (and -newer references) are reported as read.
var findSpec = &spec{anyArgs: true, check: checkFind}

// findArity gives the number of values each allowed find primary takes; -1
// marks the value as a path read.
var findArity = map[string]int{
	// tests
	"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1,
	"-regex": 1, "-iregex": 1, "-lname": 1, "-ilname": 1, "-type": 1, "-xtype": 1,
	"-size": 1, "-mtime": 1, "-mmin": 1, "-atime": 1, "-amin": 1, "-ctime": 1, "-cmin": 1,
	"-Btime": 1, "-Bmin": 1, "-used": 1, "-newer": -1, "-anewer": -1, "-cnewer": -1,
	"-perm": 1, "-user": 1, "-group": 1, "-uid": 1, "-gid": 1, "-links": 1, "-inum": 1,
	"-samefile": -1, "-fstype": 1, "-context": 1, "-nouser": 0, "-nogroup": 0, "-empty": 0,
	"-readable": 0, "-writable": 0, "-executable": 0, "-true": 0, "-false": 0,
	// options
	"-maxdepth": 1, "-mindepth": 1, "-depth": 0, "-d": 0, "-mount": 0, "-xdev": 0,
	"-noleaf": 0, "-ignore_readdir_race": 0, "-noignore_readdir_race": 0, "-daystart": 0,
	"-follow": 0, "-regextype": 1, "-warn": 0, "-nowarn": 0, "-files0-from": -1,
	"-help": 0, "--help": 0, "-version": 0, "--version": 0,
	// actions that print to stdout
	"-print": 0, "-print0": 0, "-printf": 1, "-ls": 0, "-prune": 0, "-quit": 0,
	// operators
	"!": 0, "-not": 0, "(": 0, ")": 0, ",": 0, "-a": 0, "-and": 0, "-o": 0, "-or": 0,
}

// findDenied are the find primaries that change things, with the reason.
var findDenied = map[string]string{
	"-delete":  "deletes files",
	"-exec":    "runs a command",
	"-execdir": "runs a command",
	"-ok":      "runs a command",
	"-okdir":   "runs a command",
	"-fprint":  "writes a file",
	"-fprint0": "writes a file",
	"-fprintf": "writes a file",
	"-fls":     "writes a file",
	// The starting points come from a file (or stdin): any directory,
	// ~/.ssh included (printf '/root/.ssh\0' | find -files0-from -).
	"-files0-from": "takes its starting points from a file, paths not known statically",
}

func checkFind(st *state) {
	args := st.argv[1:]
	i := 0
	// leading options -H -L -P -D debugopts -Olevel; of -H, -L and -P the
	// last wins: only -L (or the -follow primary) follows links below the
	// starting points, -H follows the starting points only.
	follows := false
	for i < len(args) {
		a := args[i]
		if a == "-H" || a == "-L" || a == "-P" || strings.HasPrefix(a, "-O") && len(a) > 2 {
			if a == "-L" || a == "-H" || a == "-P" {
				follows = a == "-L"
			}
			i++
			continue
		}
		if a == "-D" && i+1 < len(args) {
			i += 2
			continue
		}
		break
	}
	// starting points: up to the first word that starts an expression
	var starts []string
	for i < len(args) {
		a := args[i]
		if strings.HasPrefix(a, Dynamic) {
			st.fail("find: the word " + printable(a) + " is only known at run time and may be a primary")
			return
		}
		if a != "" && (a[0] == '-' || a == "!" || a == "(") {
			break
		}
		if a == "--" {
			i++
			continue
		}
		st.read(a)
		starts = append(starts, a)
		i++
	}
	// find prints the name of everything below its starting points (the
	// working directory when none is given), hidden entries included, down
	// to -maxdepth (the largest given; the trees are completed below).
	first := len(st.v.RecursiveReads)
	treesOf(st, starts, Tree{NamesOnly: true, Hidden: true})
	maxDepth, badDepth := -1, false
	defer func() {
		for k := first; k < len(st.v.RecursiveReads); k++ {
			st.v.RecursiveReads[k].SkipsLinks = !follows
		}
		if badDepth || maxDepth < 0 {
			return // no limit known
		}
		trees := st.v.RecursiveReads[:first]
		for _, t := range st.v.RecursiveReads[first:] {
			if maxDepth > 0 { // -maxdepth 0: the starting points only
				t.MaxDepth = maxDepth
				trees = append(trees, t)
			}
		}
		st.v.RecursiveReads = trees
	}()
	for ; i < len(args); i++ {
		a := args[i]
		if why, ok := findDenied[a]; ok {
			st.fail("find: " + a + " " + why)
			if a == "-fprint" || a == "-fprint0" || a == "-fls" || a == "-fprintf" {
				if i+1 < len(args) {
					st.write(args[i+1])
					// An allow rule spells the files out: the whole
					// command, since the scan stops here.
					st.codeWord(len(st.argv) - 1)
				}
			}
			return
		}
		n, ok := findArity[a]
		if !ok && strings.HasPrefix(a, "-newer") && len(a) == 8 {
			n, ok = 1, true
			if a[7] != 't' {
				n = -1
			}
		}
		if !ok {
			st.fail("find: primary " + printable(a) + " is not in the read-only vocabulary")
			return
		}
		if a == "-follow" {
			follows = true
		}
		if a == "-maxdepth" && i+1 < len(args) {
			if d, err := strconv.Atoi(args[i+1]); err != nil || d < 0 {
				badDepth = true
			} else {
				maxDepth = max(maxDepth, d)
			}
		}
		switch {
		case n == -1:
			if i+1 < len(args) {
				i++
				st.read(args[i])
			}
		case n > 0:
			i += n
		}
	}
}

// FindPrimary is one primary, operator or action of a find expression.
type FindPrimary struct {
	// Name is the word as written ("-name", "-exec", "!", "(").
	Name string
	// Index is its position in argv.
	Index int
	// Values are the words it takes: a pattern, a number, a file, or for
	// -exec/-execdir/-ok/-okdir the command up to its terminator (";" or
	// "{} +"), terminator excluded.
	Values []string
	// Terminated is false for an -exec-like primary whose command has no
	// terminator.
	Terminated bool
}

// FindExpr is find's command line split the way find reads it.
type FindExpr struct {
	// Roots are the starting points ("." when none is given).
	Roots []string
	// Primaries are the expression's words, each with the values it takes,
	// so that a pattern such as -name '-delete' is a value, not an action.
	Primaries []FindPrimary
}

// findValues gives the number of values of the find primaries that take
// any besides those of findArity (the denied ones).
var findValues = map[string]int{"-fprint": 1, "-fprint0": 1, "-fls": 1, "-fprintf": 2}

// ParseFind splits a find command line (argv[0] is find) into its starting
// points and its expression. Every primary's values are taken with it;
// an unknown primary takes none (Judge refuses it anyway).
func ParseFind(argv []string) FindExpr {
	var e FindExpr
	i := 1
	for i < len(argv) {
		a := argv[i]
		if a == "-H" || a == "-L" || a == "-P" || strings.HasPrefix(a, "-O") && len(a) > 2 {
			i++
			continue
		}
		if a == "-D" && i+1 < len(argv) {
			i += 2
			continue
		}
		break
	}
	for ; i < len(argv); i++ {
		a := argv[i]
		if a != "" && (a[0] == '-' || a == "!" || a == "(") {
			break
		}
		if a == "--" {
			continue
		}
		e.Roots = append(e.Roots, a)
	}
	if len(e.Roots) == 0 {
		e.Roots = []string{"."}
	}
	for ; i < len(argv); i++ {
		a := argv[i]
		p := FindPrimary{Name: a, Index: i, Terminated: true}
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for ; j < len(argv); j++ {
				if argv[j] == ";" || argv[j] == "+" && j > i+1 && argv[j-1] == "{}" {
					break
				}
			}
			p.Values = argv[i+1 : min(j, len(argv))]
			p.Terminated = j < len(argv)
			e.Primaries = append(e.Primaries, p)
			i = j
			continue
		}
		n, ok := findArity[a]
		if !ok {
			n = findValues[a]
			if strings.HasPrefix(a, "-newer") && len(a) == 8 {
				n = 1
			}
		}
		if n < 0 {
			n = 1
		}
		end := min(i+1+n, len(argv))
		p.Values = argv[i+1 : end]
		e.Primaries = append(e.Primaries, p)
		i = end - 1
	}
	return e
}

// Has reports whether the expression uses primary name (as a primary, not as a value).
func (e FindExpr) Has(name string) bool {
	for _, p := range e.Primaries {
		if p.Name == name {
			return true
		}
	}
	return false
}
