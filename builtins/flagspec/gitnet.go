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
		st.fail("git ls-remote: an ext:: URL runs a command")
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

func init() {
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
	// terminal and removes. gitCleanSpec (writers.go) reads its options.
	gitCleanSpec.allow = `-n|--dry-run@n ` + gitCleanSpec.allow
	gitCleanSpec.deny = append([]denial{{`-i|--interactive`, "removes files chosen at the terminal"}}, gitCleanSpec.deny...)
	gitCleanSpec.never = ""
	gitCleanSpec.ops = opsRead
	gitCleanSpec.check = requireMark('n', "git clean without -n/--dry-run deletes files")
}
