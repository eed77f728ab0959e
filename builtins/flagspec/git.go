package flagspec

import "strings"

// git: global options, then a subcommand with its own options. Only
// subcommands (and forms of them) that read the repository are listed; every
// other subcommand is known but not read-only. Git's parse-options accepts
// unambiguous prefixes of long options, which the engine honours, so
// "git branch --del x" is "--delete".
//
// Global options:
//   - -c NAME=VALUE and --config-env set configuration for the call; many keys
//     run programs (core.pager, core.fsmonitor, diff.external, alias.*), so
//     they are never read-only, whatever the value.
//   - --git-dir, --work-tree and --bare point git at another repository or tree whose
//     configuration can run programs (core.fsmonitor runs on "git status"):
//     not read-only. The tsv lists "git --work-tree=. status" as either.
//   - -C DIR runs in DIR; DIR is reported as read so path rules apply.
//   - -p/--paginate forces the pager: not read-only. --exec-path=DIR selects
//     the directory git runs its helpers from: not read-only (bare
//     --exec-path only prints it).
var gitSpec = &spec{
	allow: `-C=r --no-pager@m -P@m --no-replace-objects --no-lazy-fetch --no-optional-locks --no-advice
		--literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs
		--html-path --man-path --info-path --exec-path? -v --namespace= --list-cmds= -h`,
	deny: []denial{
		{`-c=@k --config-env=@e`, "sets configuration, which can make git run programs"},
		{`--git-dir= --work-tree= --bare`, "points git at another repository whose configuration can run programs"},
		{`-p --paginate`, "forces the pager"},
		{`--super-prefix=`, "is internal"},
	},
	check: checkGitGlobal,
	subs:  gitSubs,
	// Any command can page (pager.<command> in a configuration), and
	// "git help" runs man; --no-pager and -P turn it off (@m).
	terminal: terminalPages,
}

func checkGitGlobal(st *state) {
	if v, ok := st.val('x'); ok && v != "" {
		st.fail("git: --exec-path=" + printable(v) + " makes git run helpers from another directory")
		st.codeWord(len(st.argv) - 1)
		st.runsUnknown("git: --exec-path=" + printable(v) + " runs git's helpers from another directory")
	}
	checkGitConfigMarks(st)
	for _, mv := range st.vals {
		if mv.mark == 'e' {
			// --config-env=KEY=ENVVAR: the value comes from the environment.
			key, _, _ := strings.Cut(mv.val, "=")
			gitConfigCode(st, key, Dynamic, mv.idx)
		}
	}
}

// gitDiffOpts are the options of the diff family (git diff, show, log -p).
// --output writes a file and --ext-diff runs the external diff program.
const gitDiffOpts = ` -p -u --patch -s --no-patch -U= --unified= --output-indicator-new=
	--output-indicator-old= --output-indicator-context= --raw --patch-with-raw -t --indent-heuristic
	--no-indent-heuristic --minimal --patience --histogram --anchored= --diff-algorithm= --stat?
	--stat-width= --stat-name-width= --stat-graph-width= --stat-count= --compact-summary --numstat
	--shortstat -X? --dirstat? --cumulative --dirstat-by-file? --summary --patch-with-stat -z
	--name-only --name-status --submodule? --color? --no-color --color-moved? --no-color-moved
	--color-moved-ws= --no-color-moved-ws --word-diff? --word-diff-regex= --color-words?
	--no-renames --renames --rename-empty --no-rename-empty --check --ws-error-highlight=
	--full-index --binary --abbrev? --no-abbrev -B? --break-rewrites? -M? --find-renames? -C?
	--find-copies? --find-copies-harder -D --irreversible-delete -l= --diff-filter= -S= -G=
	--find-object= --pickaxe-all --pickaxe-regex -O=r --skip-to= --rotate-to= -R --relative?
	--no-relative -a --text --ignore-cr-at-eol --ignore-space-at-eol -b --ignore-space-change
	-w --ignore-all-space --ignore-blank-lines -I= --ignore-matching-lines= --inter-hunk-context=
	-W --function-context --no-function-context --exit-code --quiet --no-ext-diff --no-textconv
	--ignore-submodules? --src-prefix= --dst-prefix= --no-prefix --default-prefix
	--line-prefix= --ita-invisible-in-index --ita-visible-in-index -c --cc --combined-all-paths
	-m --diff-merges= --no-diff-merges --remerge-diff --dd --follow --no-follow`

var gitDiffDeny = []denial{
	{`--output=w`, "writes its output to a file"},
	{`--ext-diff`, "runs an external diff program"},
	{`--textconv`, "runs textconv programs named by the configuration"},
}

// gitLogOpts are the revision-walking and formatting options of git log.
const gitLogOpts = ` -n= --max-count= --skip= --since= --after= --since-as-filter= --until=
	--before= --author= --committer= --grep-reflog= --grep= --all-match --invert-grep
	-i --regexp-ignore-case --basic-regexp -E --extended-regexp -F --fixed-strings -P --perl-regexp
	--remove-empty --merges --no-merges --min-parents= --max-parents= --no-min-parents
	--no-max-parents --first-parent --exclude-first-parent-only --not --all --branches? --tags?
	--remotes? --glob= --exclude= --exclude-hidden= --reflog --alternate-refs --single-worktree
	--ignore-missing --bisect --stdin --cherry-mark --cherry-pick --left-only --right-only
	--cherry -g --walk-reflogs --merge --boundary --simplify-by-decoration --show-pulls
	--full-history --dense --sparse --simplify-merges --ancestry-path? --date-order
	--author-date-order --topo-order --reverse --no-walk? --do-walk --pretty? --format=
	--abbrev-commit --no-abbrev-commit --oneline --encoding= --expand-tabs? --no-expand-tabs
	--notes? --no-notes --show-notes? --standard-notes --no-standard-notes --show-signature
	--relative-date --date= --parents --children --left-right --graph --show-linear-break?
	--decorate? --no-decorate --decorate-refs= --decorate-refs-exclude= --clear-decorations
	--source --mailmap --no-mailmap --use-mailmap --no-use-mailmap --full-diff --log-size
	-L= --no-graph --count --max-age= --min-age= -q`

// git log, show, whatchanged, diff and friends only read the repository.
var gitLogSpec = &spec{allow: gitLogOpts + gitDiffOpts, deny: gitDiffDeny, num: true, ops: opsGit}
var gitShowSpec = &spec{allow: gitLogOpts + gitDiffOpts, deny: gitDiffDeny, num: true, ops: opsGit}
var gitDiffSpec = &spec{
	allow: gitDiffOpts + ` --cached --staged --merge-base --no-index@z --base --ours --theirs -0 -1 -2 -3`,
	deny:  gitDiffDeny,
	ops:   opsGit,
}
var gitDiffTreeSpec = &spec{
	allow: gitDiffOpts + gitLogOpts + ` -r --root --merge-base --no-commit-id -v --always`,
	deny:  gitDiffDeny,
	ops:   opsGit,
}
var gitRangeDiffSpec = &spec{
	allow: gitDiffOpts + ` --creation-factor= --no-dual-color --left-only --right-only --no-notes --notes?`,
	deny:  gitDiffDeny,
	ops:   opsGit,
}

// git status reads the work tree (it may refresh the index, as any git
// read does).
var gitStatusSpec = &spec{
	allow: `-s --short -b --branch --show-stash --porcelain? --long -v --verbose -u? --untracked-files?
		--ignore-submodules? --ignored? -z --column? --no-column --ahead-behind --no-ahead-behind
		--renames --no-renames --find-renames? -M?`,
	ops: opsGit,
}

// git branch only in its listing forms. -d/-D/--delete, -m/-M/--move,
// -c/-C/--copy, -f/--force, -u/--set-upstream-to, --unset-upstream,
// --edit-description, --track and a branch-name operand change branches.
// Operands are allowed only as patterns after -l/--list.
var gitBranchSpec = &spec{
	allow: `-l@l --list@l -a --all -r --remotes -v -vv --verbose --show-current --contains+@l
		--no-contains+@l --merged+@l --no-merged+@l --points-at=@l --sort= --format= --color? --no-color
		--column? --no-column --abbrev? --no-abbrev -i --ignore-case --omit-empty -q --quiet`,
	deny: []denial{
		{`-d|--delete -D>--delete>--force`, "deletes branches"},
		{`-m|--move -M>--move>--force`, "renames branches"},
		{`-c|--copy -C>--copy>--force`, "copies branches"},
		{`-f|--force`, "forces a branch change"},
		{`-u= --set-upstream-to= --unset-upstream --set-upstream`, "changes upstream configuration"},
		{`--edit-description`, "opens an editor"},
		{`-t? --track? --no-track --create-reflog --recurse-submodules`, "creates branches"},
	},
	ops:   opsHook,
	check: checkListOperands("git branch", "creates a branch"),
}

// git tag only in its listing forms; -a/-s/-u/-f/-d/-m/-F/-e and a tag name
// operand create, sign or delete tags; -v runs gpg.
var gitTagSpec = &spec{
	allow: `-l@l --list@l -n?@l --sort= --contains+@l --no-contains+@l --merged+@l --no-merged+@l --points-at+@l
		--format= --column? --no-column --color? -i --ignore-case --omit-empty`,
	deny: []denial{
		{`-a|--annotate -s|--sign -u|--local-user= -f|--force -d|--delete -m|--message= -F|--file=
			-e|--edit --cleanup= --create-reflog --trailer=`, "creates or deletes tags"},
		{`-v --verify`, "runs gpg"},
	},
	ops:   opsHook,
	check: checkListOperands("git tag", "creates a tag"),
}

func checkListOperands(name, what string) func(*state) {
	return func(st *state) {
		if len(st.ops) > 0 && !st.has('l') {
			st.fail(name + ": operand " + printable(st.ops[0]) + " " + what)
		}
	}
}

// git blame reads a file's history. -S and --ignore-revs-file and
// --contents read files.
var gitBlameSpec = &spec{
	allow: `-b --root --show-stats -L= -l -t -S=r --reverse --first-parent -p --porcelain
		--line-porcelain --incremental --encoding= --contents=r --date= --progress --no-progress
		-M? -C? --ignore-rev= --ignore-revs-file=r --color-lines --color-by-age --minimal -s -e
		--show-email -f --show-name -n --show-number -w --abbrev? -c --score-debug --no-textconv`,
	deny: []denial{{`--textconv`, "runs textconv programs named by the configuration"}},
	ops:  opsGit,
}

// git grep searches tracked files. -O/--open-files-in-pager runs a pager
// program on the matching files.
var gitGrepSpec = &spec{
	allow: `--cached --no-index@n --untracked@u --no-exclude-standard@x --exclude-standard@s
		--recurse-submodules -a --text --no-textconv -i --ignore-case -I --max-depth=
		-r --recursive --no-recursive -w --word-regexp -v --invert-match -h -H --full-name
		-E --extended-regexp -G --basic-regexp -P --perl-regexp -F --fixed-strings -n --line-number
		--column -l --files-with-matches --name-only -L --files-without-match -z --null
		-o --only-matching -c --count --color? --no-color --break --heading -p --show-function
		-A= --after-context= -B= --before-context= -C= --context= -W --function-context
		--threads= -f=r@e -e=@e --and --or --not --all-match -q --quiet -m= --max-count=`,
	deny: []denial{
		{`-O?x --open-files-in-pager?x`, "runs a pager program on the matching files"},
		{`--textconv`, "runs textconv programs named by the configuration"},
	},
	num:   true,
	ops:   opsPatRead,
	check: checkGitGrep,
}

// git reflog: listing (with or without "show") and "exists". expire and
// delete rewrite the reflog.
var gitReflogSpec = &spec{
	allow: gitLogOpts + gitDiffOpts,
	deny:  gitDiffDeny,
	num:   true,
	ops:   opsGit,
	// "git reflog HEAD" is "git reflog show HEAD".
	subFallback: true,
	subs: map[string]*spec{
		"show":   {allow: gitLogOpts + gitDiffOpts, deny: gitDiffDeny, num: true, ops: opsGit},
		"exists": {ops: opsText},
		"list":   {ops: opsNone},
		"expire": {never: "git reflog expire rewrites the reflog"},
		"delete": {never: "git reflog delete rewrites the reflog"},
		"drop":   {never: "git reflog drop deletes a reflog"},
	},
}

// git config reads configuration with --list/-l, --get, --get-all,
// --get-regexp, --get-urlmatch, --get-color(bool), or one NAME operand (the
// old form), or the "list"/"get" subcommands. Two operands set a value;
// --add, --unset, --replace-all, --rename-section, --remove-section and
// --edit change configuration.
var gitConfigSpec = &spec{
	allow: `-l@g --list@g --get@g --get-all@g --get-regexp@g --get-urlmatch@g --get-color@g
		--get-colorbool@g --global@o --system@y --local --worktree -f=r@f --file=r@f --blob= --show-origin
		--show-scope -z --null --name-only --includes --no-includes --type= --bool --int
		--bool-or-int --path --expiry-date --no-type --default= --fixed-value`,
	deny: []denial{
		{`--add --unset --unset-all --replace-all --rename-section --remove-section -e --edit`,
			"changes configuration"},
	},
	ops: opsHook,
	check: func(st *state) {
		checkGitConfig(st)
		checkGitConfigSet(st)
	},
	hasCmd: true, // a value it sets may be a command
}

var gitConfigSubs = map[string]bool{"list": true, "get": true}

// gitConfigWrites names the file a git config that changes configuration
// writes, so the path checks see it: keys such as core.fsmonitor and
// core.hooksPath make git run programs. The repository's own file is
// reported as .git/config, whatever its real place (a dangerous name).
func gitConfigWrites(st *state) {
	if st.v.Reason == "" {
		return
	}
	switch {
	case st.has('f'):
		f, _ := st.val('f')
		st.write(f)
	case st.has('o'):
		st.write("~/.gitconfig")
	case st.has('y'):
		st.write("/etc/gitconfig")
	default:
		st.write(".git/config")
	}
}

func checkGitConfig(st *state) {
	ops := st.ops
	if st.has('g') {
		return
	}
	defer gitConfigWrites(st)
	if len(ops) > 0 {
		switch ops[0] {
		case "list":
			if len(ops) == 1 {
				return
			}
		case "get":
			if len(ops) <= 2 {
				return
			}
		case "set", "unset", "rename-section", "remove-section", "edit":
			st.fail("git config " + ops[0] + " changes configuration")
			return
		}
	}
	switch len(ops) {
	case 0:
		st.fail("git config: no action")
	case 1:
		// "git config NAME" prints the value
	default:
		st.fail("git config: " + printable(ops[0]) + " " + printable(ops[1]) + " sets a value")
	}
}

// checkGitConfigSet classifies the value a git config call sets (git
// config KEY VALUE, git config set KEY VALUE, --add, --replace-all): a
// command stored now runs in later git calls, in this command line too.
func checkGitConfigSet(st *state) {
	ops := st.ops
	if len(ops) > 0 && ops[0] == "set" {
		ops = ops[1:]
	}
	// A key has a section: "get", "list", "unset" are subcommands.
	if len(ops) >= 2 && !st.has('g') && strings.Contains(ops[0], ".") {
		gitConfigCode(st, ops[0], ops[1], indexOf(st.argv, ops[1]))
	}
}

// git remote: listing, get-url and show -n (show without -n contacts the
// remote). add, remove, rename, set-url, prune, update change remotes.
var gitRemoteSpec = &spec{
	allow: `-v --verbose`,
	ops:   opsNone,
	subs: map[string]*spec{
		"get-url": {allow: `--push --all`, ops: opsText},
		"show":    {allow: `-n@n`, ops: opsText, check: requireMark('n', "git remote show without -n contacts the remote")},
	},
}

func requireMark(m byte, why string) func(*state) {
	return func(st *state) {
		if !st.has(m) {
			st.fail(why)
		}
	}
}

// git stash: list and show only; every other stash subcommand changes the
// stash or the work tree.
var gitStashSpec = &spec{
	noSub: "git stash without a subcommand stashes changes",
	subs: map[string]*spec{
		"list": {allow: gitLogOpts + gitDiffOpts, deny: gitDiffDeny, num: true, ops: opsGit},
		"show": {allow: gitDiffOpts + ` --include-untracked --only-untracked`, deny: gitDiffDeny, num: true, ops: opsGit},
	},
}

// git worktree list, git notes list/show, git submodule status.
var gitWorktreeSpec = &spec{
	noSub: "git worktree without a subcommand is not read-only",
	subs:  map[string]*spec{"list": {allow: `--porcelain -v --verbose -z --expire=`, ops: opsNone}},
}
var gitNotesSpec = &spec{
	allow: `--ref=`,
	subs: map[string]*spec{
		"list": {ops: opsGit},
		"show": {ops: opsGit},
	},
	ops: opsNone,
}
var gitSubmoduleSpec = &spec{
	allow: `-q --quiet`,
	noSub: "git submodule without a subcommand is not modelled",
	subs: map[string]*spec{
		"status":  {allow: `--cached --recursive -q --quiet`, ops: opsRead},
		"summary": {allow: `--cached --files -n= --summary-limit=`, ops: opsGit},
	},
}

// Plumbing and small porcelain that only read.
var gitLsFilesSpec = &spec{
	allow: `-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -u --unmerged
		-k --killed --directory --no-empty-directory --eol --error-unmatch -x= --exclude= -X=r
		--exclude-from=r --exclude-per-directory= --exclude-standard --full-name --recurse-submodules
		--abbrev? --debug --deduplicate --sparse --format= --with-tree= -z -t -v -f --resolve-undo`,
	ops: opsRead,
}
var gitLsTreeSpec = &spec{
	allow: `-d -r -t -l --long -z --name-only --name-status --object-only --full-name --full-tree
		--abbrev? --format=`,
	ops: opsGit,
}
var gitRevParseSpec = &spec{
	allow: `--parseopt --sq-quote --keep-dashdash --stop-at-non-option --stuck-long --revs-only
		--no-revs --flags --no-flags --default= --prefix= --verify -q --quiet --sq --short? --not
		--abbrev-ref? --symbolic --symbolic-full-name --all --branches? --tags? --remotes? --glob=
		--exclude= --exclude-hidden= --disambiguate= --local-env-vars --path-format= --git-dir
		--git-common-dir --resolve-git-dir= --git-path= --show-toplevel --show-superproject-working-tree
		--shared-index-path --absolute-git-dir --is-inside-git-dir --is-inside-work-tree
		--is-bare-repository --is-shallow-repository --show-cdup --show-prefix --show-object-format?
		--show-ref-format --since= --after= --until= --before= --end-of-options`,
	ops: opsText,
}
var gitDescribeSpec = &spec{
	allow: `--all --tags --contains --abbrev? --candidates= --exact-match --debug --long --match=
		--exclude= --always --first-parent --dirty? --broken?`,
	ops: opsText,
}
var gitShortlogSpec = &spec{
	allow: ` -n --numbered -s --summary -e --email -c --committer --group= -w?` + gitLogOpts,
	num:   true,
	ops:   opsGit,
}
var gitCatFileSpec = &spec{
	allow: `-t -s -e -p --batch? --batch-check? --batch-command? --batch-all-objects
		--buffer --unordered --follow-symlinks --mailmap --no-mailmap --use-mailmap --no-use-mailmap
		--path= --allow-unknown-type -Z`,
	deny: []denial{{`--textconv --filters`, "runs textconv or filter programs named by the configuration"}},
	ops:  opsGit,
}
var gitShowRefSpec = &spec{
	allow: `--head --heads --tags --branches -d --dereference -s? --hash? --verify --exists --abbrev?
		-q --quiet --exclude-existing?`,
	ops: opsText,
}
var gitMergeBaseSpec = &spec{
	allow: `-a --all --octopus --independent --is-ancestor --fork-point`,
	ops:   opsText,
}
var gitForEachRefSpec = &spec{
	allow: `--count= --shell --perl --python --tcl --sort= --format= --color? --points-at=
		--merged+ --no-merged+ --contains+ --no-contains+ --ignore-case --omit-empty --exclude= --stdin`,
	ops: opsText,
}
var gitNameRevSpec = &spec{
	allow: `--tags --refs= --exclude= --all --annotate-stdin --stdin --name-only --no-undefined --always`,
	ops:   opsText,
}
var gitCountObjectsSpec = &spec{allow: `-v --verbose -H --human-readable`, ops: opsNone}
var gitCheckIgnoreSpec = &spec{
	allow: `-q --quiet -v --verbose -n --non-matching -z --stdin --no-index`,
	ops:   opsRead,
}
var gitCheckAttrSpec = &spec{allow: `-a --all --cached --stdin -z --source=`, ops: opsText}
var gitVersionSpec = &spec{allow: `--build-options`, ops: opsNone}
var gitVarSpec = &spec{allow: `-l`, ops: opsText}
var gitCherrySpec = &spec{allow: `-v --abbrev?`, ops: opsText}
var gitShowBranchSpec = &spec{
	allow: `-a --all -r --remotes --topo-order --date-order --current --color? --no-color --sparse
		--more? --list --merge-base --independent --no-name --sha1-name --topics -g? --reflog?`,
	ops: opsText,
}
var gitCheckRefFormatSpec = &spec{allow: `--normalize --allow-onelevel --no-allow-onelevel --refspec-pattern --branch`, ops: opsText}

// git ls-remote asks a remote for its refs (a network read).
// --upload-pack runs a program on the remote side (or locally for a
// local path or ext:: URL).
var gitLsRemoteSpec = &spec{
	allow: `-h --heads -b --branches -t --tags --refs -q --quiet --exit-code --get-url --sort=
		--symref -o= --server-option=`,
	deny: []denial{{`-u|--upload-pack=x`, "runs a program to list the refs"}},
	ops:  opsText,
	check: func(st *state) {
		for _, o := range st.ops {
			if len(o) > 5 && o[:5] == "ext::" {
				st.fail("git ls-remote: an ext:: URL runs a command")
			}
		}
	},
}

// git clean -n lists what it would delete; otherwise it deletes untracked
// (with -x also ignored) files under its pathspecs, or the whole work tree:
// those are its write targets (a local settings file is often untracked).
var gitCleanSpec = &spec{
	allow: `-d -f|--force -i|--interactive@i -n|--dry-run@n -q|--quiet -e|--exclude= -x -X`,
	ops:   opsHook,
	check: func(st *state) {
		switch {
		case st.has('i'):
			st.fail("git clean -i deletes files chosen at the terminal")
		case st.has('n'):
			return
		default:
			st.fail("git clean deletes files")
		}
		if len(st.ops) == 0 {
			st.write(".")
		}
		for _, o := range st.ops {
			st.write(o)
		}
	},
}

// git init makes a repository. A bare one (--bare) or one kept apart from
// its work tree (--separate-git-dir) is a repository that is not a .git
// directory: its HEAD, objects and refs are named as writes, so the
// analysis sees a repository being made (docs/protected-paths.md, git
// repositories) and later git commands there are not trusted. A template
// (--template) copies its hooks into the new .git directory.
var gitInitSpec = &spec{
	allow: `-q|--quiet --bare@b --template=@t --separate-git-dir=@s -b|--initial-branch= --object-format=
		--ref-format= --shared?`,
	never: "git init writes a repository",
	ops:   opsHook,
	check: func(st *state) {
		dir := "."
		if len(st.ops) > 0 {
			dir = st.ops[0]
		}
		gitRepositoryWrites(st, dir, st.has('b'))
	},
}

// gitRepositoryWrites names what making a repository for directory dir
// writes: a bare repository's own layout, a separate git directory's, and a
// template's hooks in dir/.git.
func gitRepositoryWrites(st *state, dir string, bare bool) {
	dir = strings.TrimRight(dir, "/")
	if dir == "" {
		dir = "/"
	}
	repo := dir + "/.git"
	if bare {
		repo = dir
	}
	if s, ok := st.val('s'); ok && s != "" {
		repo, bare = strings.TrimRight(s, "/"), true
	}
	if bare {
		for _, n := range []string{"HEAD", "objects", "refs", "config"} {
			st.write(repo + "/" + n)
		}
	}
	if _, ok := st.val('t'); ok {
		st.write(repo + "/hooks")
	}
}

// gitSubs are git's read-only subcommands, and the writing ones with the
// reason they are not read-only (every other word is not read-only too).
var gitSubs = map[string]*spec{
	"status":           gitStatusSpec,
	"log":              gitLogSpec,
	"whatchanged":      gitLogSpec,
	"show":             gitShowSpec,
	"diff":             gitDiffSpec,
	"diff-tree":        gitDiffTreeSpec,
	"diff-index":       gitDiffTreeSpec,
	"diff-files":       gitDiffTreeSpec,
	"range-diff":       gitRangeDiffSpec,
	"rev-list":         gitLogSpec,
	"branch":           gitBranchSpec,
	"tag":              gitTagSpec,
	"blame":            gitBlameSpec,
	"annotate":         gitBlameSpec,
	"grep":             gitGrepSpec,
	"reflog":           gitReflogSpec,
	"config":           gitConfigSpec,
	"remote":           gitRemoteSpec,
	"stash":            gitStashSpec,
	"worktree":         gitWorktreeSpec,
	"notes":            gitNotesSpec,
	"submodule":        gitSubmoduleSpec,
	"ls-files":         gitLsFilesSpec,
	"ls-tree":          gitLsTreeSpec,
	"rev-parse":        gitRevParseSpec,
	"describe":         gitDescribeSpec,
	"shortlog":         gitShortlogSpec,
	"cat-file":         gitCatFileSpec,
	"show-ref":         gitShowRefSpec,
	"merge-base":       gitMergeBaseSpec,
	"for-each-ref":     gitForEachRefSpec,
	"name-rev":         gitNameRevSpec,
	"count-objects":    gitCountObjectsSpec,
	"check-ignore":     gitCheckIgnoreSpec,
	"check-attr":       gitCheckAttrSpec,
	"version":          gitVersionSpec,
	"var":              gitVarSpec,
	"cherry":           gitCherrySpec,
	"show-branch":      gitShowBranchSpec,
	"check-ref-format": gitCheckRefFormatSpec,
	"ls-remote":        gitLsRemoteSpec,

	"fetch":         {never: "git fetch updates refs from a remote and can run configured commands"},
	"pull":          {never: "git pull fetches and merges"},
	"push":          {never: "git push updates a remote"},
	"commit":        {never: "git commit writes a commit and runs hooks"},
	"add":           {never: "git add changes the index"},
	"reset":         {never: "git reset changes the index or the work tree"},
	"checkout":      {never: "git checkout changes the work tree"},
	"switch":        {never: "git switch changes the work tree"},
	"restore":       {never: "git restore changes the work tree"},
	"clean":         gitCleanSpec,
	"rm":            {never: "git rm deletes files"},
	"mv":            {never: "git mv moves files"},
	"merge":         {never: "git merge changes the work tree"},
	"rebase":        {never: "git rebase rewrites history"},
	"cherry-pick":   {never: "git cherry-pick changes the work tree"},
	"revert":        {never: "git revert changes the work tree"},
	"format-patch":  {never: "git format-patch writes patch files"},
	"archive":       {never: "git archive writes archives"},
	"gc":            {never: "git gc rewrites the object store"},
	"clone":         {never: "git clone writes a repository"},
	"init":          gitInitSpec,
	"apply":         {never: "git apply changes files"},
	"am":            {never: "git am changes files and history"},
	"bisect":        {never: "git bisect changes the work tree"},
	"update-ref":    {never: "git update-ref changes refs"},
	"filter-branch": {never: "git filter-branch rewrites history"},
	"help":          {never: "git help opens a viewer program"},
	"daemon":        {never: "git daemon serves repositories"},
}

func init() {
	// --exec-path=DIR is caught by the global check through mark x.
	gitSpec.allow = `--exec-path?@x ` + gitSpec.allow
	register(gitSpec, "git")
}
