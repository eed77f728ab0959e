package flagspec

import "strings"

// git subcommands that reach a remote, and the dry-run and hashing forms
// that only read. (git.go holds the rest of git.)

// gitRemoteKind says what a repository operand of ls-remote names: a URL or
// scp-like host:path (network egress: the destination is the command's), a
// local path (read), or a remote's name (the configured URL: a network read).
func gitRemoteKind(repo string) string {
	switch {
	case strings.HasPrefix(repo, "file://"):
		return "local"
	case strings.Contains(repo, "://"), strings.HasPrefix(repo, "ext::"):
		return "url"
	}
	if i := strings.IndexByte(repo, ':'); i > 0 && !strings.Contains(repo[:i], "/") {
		return "url" // [user@]host:path
	}
	if strings.ContainsAny(repo, "/.") || repo == "." || repo == ".." {
		return "local"
	}
	return "remote"
}

// git ls-remote [REPOSITORY [PATTERNS]]: with no repository or a remote's
// name it asks the configured remote (a network read); a URL is egress; a
// local path is read. ext:: URLs run a command.
func checkGitLsRemote(st *state) {
	if len(st.ops) == 0 {
		st.v.Network = NetRead
		return
	}
	repo := st.ops[0]
	if strings.HasPrefix(repo, "ext::") {
		// git runs the URL's command (when protocol.ext.allow lets it, a
		// setting outside the command): code permopa does not read.
		st.runsUnknown("git ls-remote: an ext:: URL runs a command")
		return
	}
	switch gitRemoteKind(repo) {
	case "url":
		st.egress(repo)
	case "local":
		st.read(strings.TrimPrefix(repo, "file://"))
	default:
		st.v.Network = NetRead
	}
}

// git hash-object prints object ids; -w writes the objects and
// --stdin-paths hashes files named at run time. Clean filters configured
// for a path run as they do for git diff and git status.
var gitHashObjectSpec = &spec{
	allow: `-t= --stdin --path= --no-filters --literally`,
	deny: []denial{
		{`-w`, "writes objects into the repository"},
		{`--stdin-paths`, "hashes files named on stdin"},
	},
	ops: opsRead,
}

// gitIndexRefresh: git status and git diff refresh the stat data of the
// index when they can take its lock (.git/index.lock renamed over
// .git/index): git's own cache of file metadata, named as a cache write.
// The repository is the -C directory's when one is given.
func gitIndexRefresh(st *state) {
	dir := ""
	args := st.argv[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" && i+1 < len(args):
			i++
			dir = joinDir(dir, args[i])
		case strings.HasPrefix(a, "-C") && len(a) > 2:
			dir = joinDir(dir, a[2:])
		case !strings.HasPrefix(a, "-"):
			i = len(args)
		}
	}
	st.v.CacheWrites = append(st.v.CacheWrites, joinDir(dir, ".git/index"), joinDir(dir, ".git/index.lock"))
}

// git fsck checks the object store (--lost-found writes the dangling
// objects out); git prune -n lists what it would remove; git stripspace
// filters stdin; git symbolic-ref NAME reads a symbolic ref (a second
// operand, -d or -m changes it); git difftool --tool-help lists the tools;
// git help -a/-g/-c lists commands, guides or config variables (a topic
// opens a viewer); git archive writes the archive to stdout unless -o
// names a file (--remote reaches a server, --exec runs a program there);
// git bisect log prints the bisection log.
var gitFsckSpec = &spec{
	allow: `--unreachable --dangling --no-dangling --root --tags --cache --no-reflogs --full --no-full
		--connectivity-only --strict --verbose -v --name-objects --no-name-objects --progress --no-progress`,
	deny: []denial{{`--lost-found`, "writes dangling objects to .git/lost-found"}},
	ops:  opsGit,
}

func init() {
	gitSubs["fsck"] = gitFsckSpec
	// git fsck runs these to check the commit graph and multi-pack index.
	gitSubs["commit-graph"] = &spec{group: true, subs: map[string]*spec{
		"verify": {allow: `--object-dir=r --shallow --progress --no-progress`, ops: opsNone}}}
	gitSubs["multi-pack-index"] = &spec{allow: `--object-dir=r --progress --no-progress`, group: true, subs: map[string]*spec{
		"verify": {allow: `--object-dir=r --progress --no-progress`, ops: opsNone}}}
	// git difftool --tool-help lists the tools (gitDifftoolSpec, writers.go,
	// reads every option); it runs git mergetool --tool-help=diff.
	gitDifftoolSpec.allow = `--tool-help@t ` + gitDifftoolSpec.allow
	gitDifftoolSpec.never = ""
	gitDifftoolSpec.ops = opsNone
	gitDifftoolSpec.check = requireMark('t', "git difftool runs a diff tool")
	gitSubs["mergetool"] = &spec{allow: `--tool-help?@t`, ops: opsNone, check: requireMark('t', "git mergetool runs a merge tool")}
	gitSubs["prune"] = &spec{allow: `-n@n --dry-run@n -v --verbose --progress --expire=`, ops: opsText,
		check: requireMark('n', "git prune without -n/--dry-run removes objects")}
	gitSubs["stripspace"] = &spec{allow: `-s --strip-comments -c --comment-lines`, ops: opsNone}
	gitSubs["symbolic-ref"] = &spec{allow: `-q --quiet --short --no-recurse --recurse`, ops: opsText, maxOps: 1,
		deny: []denial{{`-d --delete -m=`, "changes a symbolic ref"}}}
	gitSubs["help"] = &spec{allow: `-a@l --all@l -g@l --guides@l -c@l --config@l --user-interfaces@l --developer-interfaces@l
		--no-external-commands --no-aliases --verbose`, ops: opsNone,
		check: requireMark('l', "git help opens a viewer program (only its listing forms print)")}
	gitSubs["archive"] = &spec{allow: `--format= -l --list -v --verbose --prefix= --add-file=r --add-virtual-file=
		--worktree-attributes --mtime= -0 -1 -2 -3 -4 -5 -6 -7 -8 -9`,
		deny: []denial{{`-o=w --output=w`, "writes the archive to a file"}, {`--remote=`, "reaches another repository"}, {`--exec=x`, "runs a program (for a --remote on this machine, here)"}},
		ops:  opsGit}
	gitCherrySpec.allow += ` --verbose`
	gitSubmoduleSpec.noSub = "" // git submodule is git submodule status
	gitDiffTreeSpec.allow += ` --cached`
	gitStatusSpec.check = gitIndexRefresh
	gitDiffSpec.check = func(st *state) {
		gitIndexRefresh(st)
		checkGitDiffNoIndex(st)
	}
	gitLsRemoteSpec.check = checkGitLsRemote
	gitLsRemoteSpec.ops = opsHook
	// git remote show NAME asks the remote unless -n.
	gitRemoteSpec.subs["show"] = &spec{allow: `-n@n`, ops: opsText, check: func(st *state) {
		if !st.has('n') {
			st.v.Network = NetRead
		}
	}}
	gitSubs["hash-object"] = gitHashObjectSpec
	// git clean -n/--dry-run lists what would be removed; -i asks at the
	// terminal and removes: gitCleanSpec (git.go) with its removal targets.
}
