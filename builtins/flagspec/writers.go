package flagspec

import "strings"

// Programs and subcommands that are never read-only but whose options
// still matter:
//
//   - deny and ask rules that name options (Bash(git push --force:*)) match
//     every spelling of them (Parse reads the leaf and the rule with the
//     same spec: synonyms, abbreviations, clusters, implied options);
//   - options whose value is a command line (tar --to-command, ssh -o
//     ProxyCommand) or code (vim -c) are reported in Verdict.Commands and
//     Verdict.RunsUnknown, so that deny rules see the commands they run
//     and allow rules do not cover them with a wildcard;
//   - programs that run another program (strace, flock, chroot, ...) report
//     where that command starts (Verdict.Runs), so the analyser walks it.
//
// An option not listed stops the parse: for a program with options that run
// commands, the rest of the argv then counts as running unknown code.

// git push. A refspec "+src:dst" (or "+ref") forces that update: the
// operand reads as "src:dst" with --force. ":dst" deletes dst (--delete).
// --force-with-lease and --mirror (which force-updates every ref) are force
// pushes too. --receive-pack/--exec name the program run on the remote side.
var gitPushSpec = &spec{
	allow: `--all|--branches --mirror>--force --prune -n|--dry-run --porcelain -d|--delete --tags
		--follow-tags --no-follow-tags --atomic --no-atomic -o|--push-option= --receive-pack|--exec=x
		-f|--force --no-force --force-with-lease?>--force --no-force-with-lease --force-if-includes
		--no-force-if-includes --repo= -u|--set-upstream --thin --no-thin -q|--quiet -v|--verbose
		--progress --no-progress --recurse-submodules= --no-recurse-submodules --verify --no-verify
		-4|--ipv4 -6|--ipv6 --signed? --no-signed`,
	never:   "git push updates a remote",
	operand: gitRefspecOperand,
	check:   checkGitExtRemote,
}

// checkGitExtRemote: a remote given as an ext:: URL (git push/fetch/pull/
// clone/ls-remote 'ext::sh -c cmd') runs its command when
// protocol.ext.allow lets it, a setting outside the command (git's
// default refuses it): code permopa does not read.
func checkGitExtRemote(st *state) {
	for _, o := range st.ops {
		if strings.HasPrefix(o, "ext::") {
			st.runsUnknown(st.spec.name + ": an ext:: URL runs a command")
			return
		}
	}
}

func gitRefspecOperand(op string) (string, []string) {
	switch {
	case len(op) > 1 && op[0] == '+':
		return op[1:], []string{"--force"}
	case len(op) > 1 && op[0] == ':':
		return op[1:], []string{"--delete"}
	}
	return op, nil
}

var gitCommitSpec = &spec{
	allow: `-a|--all -p|--patch -C|--reuse-message= -c|--reedit-message= --fixup= --squash=
		--reset-author --short --branch --porcelain --long -z|--null -F|--file=r --author= --date=
		-m|--message= -t|--template=r -s|--signoff --no-signoff --trailer= -n|--no-verify --verify
		--allow-empty --allow-empty-message --cleanup= -e|--edit --no-edit --amend --no-post-rewrite
		-i|--include -o|--only --pathspec-from-file=r --pathspec-file-nul -u|--untracked-files?
		-v|--verbose -q|--quiet --dry-run --status --no-status -S|--gpg-sign? --no-gpg-sign`,
	never: "git commit writes a commit and runs hooks",
}

var gitResetSpec = &spec{
	allow: `--soft --mixed --hard --merge --keep -q|--quiet --no-quiet --refresh --no-refresh
		-p|--patch -N|--intent-to-add --pathspec-from-file=r --pathspec-file-nul
		--recurse-submodules? --no-recurse-submodules`,
	never: "git reset changes the index or the work tree",
}

var gitCheckoutSpec = &spec{
	allow: `-q|--quiet --progress --no-progress -f|--force --ours --theirs -b= -B= -t|--track?
		--no-track --guess --no-guess -l --detach --orphan= --ignore-skip-worktree-bits -m|--merge
		--conflict= -p|--patch --ignore-other-worktrees --overwrite-ignore --no-overwrite-ignore
		--recurse-submodules? --no-recurse-submodules --overlay --no-overlay
		--pathspec-from-file=r --pathspec-file-nul`,
	never: "git checkout changes the work tree",
}

var gitSwitchSpec = &spec{
	allow: `-c|--create= -C|--force-create= -d|--detach --guess --no-guess -f|--force|--discard-changes
		-m|--merge --conflict= -q|--quiet --progress --no-progress -t|--track? --no-track --orphan=
		--ignore-other-worktrees --recurse-submodules? --no-recurse-submodules`,
	never: "git switch changes the work tree",
}

var gitRestoreSpec = &spec{
	allow: `-s|--source= -p|--patch -W|--worktree -S|--staged -q|--quiet --progress --no-progress
		--ours --theirs -m|--merge --conflict= --ignore-unmerged --ignore-skip-worktree-bits
		--recurse-submodules? --no-recurse-submodules --overlay --no-overlay
		--pathspec-from-file=r --pathspec-file-nul`,
	never: "git restore changes the work tree",
}

var gitMergeOpts = ` --commit --no-commit -e|--edit --no-edit --cleanup= --ff --no-ff --ff-only
	--log? --no-log --signoff --no-signoff --stat --no-stat --squash --no-squash --verify
	--no-verify -s|--strategy= -X|--strategy-option= --verify-signatures --no-verify-signatures
	--summary --no-summary -q|--quiet -v|--verbose --progress --no-progress --autostash
	--no-autostash --allow-unrelated-histories -S|--gpg-sign? --no-gpg-sign --rerere-autoupdate
	--no-rerere-autoupdate`

var gitMergeSpec = &spec{
	allow: gitMergeOpts + ` -m= -F|--file=r --into-name= --overwrite-ignore --no-overwrite-ignore
		--abort --quit --continue`,
	never: "git merge changes the work tree",
}

// git rebase: -x/--exec runs a shell command after each commit.
var gitRebaseSpec = &spec{
	allow: `--onto= --keep-base --no-keep-base --apply -m|--merge --empty= -f|--force-rebase|--no-ff
		--fork-point --no-fork-point --abort --continue --skip --edit-todo --show-current-patch
		--quit -i|--interactive -r|--rebase-merges? --no-rebase-merges -x|--exec=x --root
		--autosquash --no-autosquash --autostash --no-autostash --reschedule-failed-exec
		--no-reschedule-failed-exec --update-refs --no-update-refs -q|--quiet -v|--verbose --stat
		-n|--no-stat --signoff -S|--gpg-sign? --no-gpg-sign --committer-date-is-author-date
		--ignore-date|--reset-author-date --ignore-whitespace --whitespace= -C= -s|--strategy=
		-X|--strategy-option= --rerere-autoupdate --no-rerere-autoupdate --no-verify --verify
		--allow-empty-message --keep-empty --no-keep-empty --trailer=`,
	never: "git rebase rewrites history",
}

const gitFetchOpts = ` --all -a|--append --atomic --depth= --deepen= --shallow-since=
	--shallow-exclude= --unshallow --update-shallow --negotiation-tip= --negotiate-only --dry-run
	--porcelain --write-fetch-head --no-write-fetch-head -f|--force -k|--keep --multiple
	--auto-maintenance|--auto-gc --no-auto-maintenance|--no-auto-gc --write-commit-graph
	--no-write-commit-graph --prefetch -p|--prune -P|--prune-tags --refetch --refmap= -t|--tags
	--no-tags --recurse-submodules? --no-recurse-submodules -j|--jobs= --set-upstream
	--submodule-prefix= --recurse-submodules-default= -u|--update-head-ok --upload-pack=x
	-q|--quiet -v|--verbose --progress --no-progress -o|--server-option= --show-forced-updates
	--no-show-forced-updates -4|--ipv4 -6|--ipv6 --stdin --filter=`

// git fetch and pull: --upload-pack names the program run to serve the fetch.
var gitFetchSpec = &spec{
	allow: gitFetchOpts + ` -n>--no-tags`,
	never: "git fetch updates refs from a remote and can run configured commands",
	check: checkGitExtRemote,
}

var gitPullSpec = &spec{
	allow: gitFetchOpts + gitMergeOpts + ` -r|--rebase? --no-rebase`,
	never: "git pull fetches and merges",
	check: checkGitExtRemote,
}

// git clone: -u/--upload-pack runs a program; -c sets configuration of the
// new repository, which can name programs (mark k, see gitConfigCode).
var gitCloneSpec = &spec{
	allow: `-l|--local --no-hardlinks -s|--shared --dissociate -q|--quiet -v|--verbose --progress
		--server-option= -n|--no-checkout --bare@b --mirror@b -o|--origin= -b|--branch=
		-u|--upload-pack=x --reference= --reference-if-able= --depth= --shallow-since=
		--shallow-exclude= --single-branch --no-single-branch --no-tags --tags
		--recurse-submodules? --shallow-submodules --no-shallow-submodules --remote-submodules
		--no-remote-submodules -j|--jobs= --separate-git-dir=@s --template=@t -c|--config=@k --filter=
		--also-filter-submodules --bundle-uri= --sparse --reject-shallow --no-reject-shallow
		--ref-format=`,
	never: "git clone writes a repository",
	check: func(st *state) {
		checkGitConfigMarks(st)
		checkGitExtRemote(st)
		// The repository it makes (gitRepositoryWrites): the directory
		// operand, or the URL's last segment (NAME.git when bare).
		if len(st.ops) == 0 {
			return
		}
		dir := ""
		if len(st.ops) > 1 {
			dir = st.ops[1]
		} else {
			u := strings.TrimSuffix(strings.TrimRight(st.ops[0], "/"), "/.git")
			dir = strings.TrimSuffix(baseName(u), ".git")
			if i := strings.LastIndexAny(dir, ":"); i >= 0 {
				dir = dir[i+1:]
			}
			if st.has('b') {
				dir += ".git"
			}
		}
		if dir != "" {
			gitRepositoryWrites(st, dir, st.has('b'))
		}
	},
}

var gitAddSpec = &spec{
	allow: `-n|--dry-run -v|--verbose -f|--force -i|--interactive -p|--patch -e|--edit -u|--update
		-A|--all|--no-ignore-removal --no-all|--ignore-removal -N|--intent-to-add --refresh
		--ignore-errors --ignore-missing --no-warn-embedded-repo --renormalize --chmod=
		--sparse --pathspec-from-file=r --pathspec-file-nul`,
	never: "git add changes the index",
}

var gitRmSpec = &spec{
	allow: `-f|--force -n|--dry-run -r --cached --ignore-unmatch --sparse -q|--quiet
		--pathspec-from-file=r --pathspec-file-nul`,
	never: "git rm deletes files",
}

// git submodule foreach runs its operands as a shell command in every
// submodule; git bisect run runs a command at every step.
var gitSubmoduleForeachSpec = &spec{
	allow: `--recursive -q|--quiet`,
	posix: true,
	never: "git submodule foreach runs a command in every submodule",
	runs:  1, runsString: true,
}

var gitBisectRunSpec = &spec{never: "git bisect run runs a command at every step", runs: 1, posix: true}

// git difftool -x/--extcmd runs a diff command.
var gitDifftoolSpec = &spec{
	allow: `-d|--dir-diff -y|--no-prompt --prompt --rotate-to= --skip-to= -t|--tool= --tool-help
		--symlinks --no-symlinks -x|--extcmd=x -g|--gui --no-gui --trust-exit-code
		--no-trust-exit-code` + gitDiffOpts,
	never: "git difftool runs a diff program",
}

// git filter-branch runs its filters as shell commands.
var gitFilterBranchSpec = &spec{
	allow: `--setup=x --subdirectory-filter= --env-filter=x --tree-filter=x --index-filter=x
		--parent-filter=x --msg-filter=x --commit-filter=x --tag-name-filter=x --prune-empty
		--original= -d= -f|--force --state-branch=`,
	never: "git filter-branch rewrites history",
}

// gitConfigCode classifies one configuration assignment given on the
// command line (git -c KEY=VALUE, git clone -c, git config KEY VALUE): a key
// whose value is a command has that value parsed as one; a key known to
// hold no program is fine; any other key may make git run something.
func gitConfigCode(st *state, key, value string, idx int) {
	k := strings.ToLower(key)
	label := "git config " + key
	last := k
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		last = k[i+1:]
	}
	first, _, _ := strings.Cut(k, ".")
	switch {
	case strings.Contains(k, Dynamic):
		st.codeWord(idx)
		st.runsUnknown("git: a configuration key is only known at run time")
	case first == "alias":
		// The alias's command line is parsed so that deny rules see it,
		// but what it runs also depends on the arguments of the call that
		// uses it (git -c alias.p=push p -f is git push -f): unknown.
		if rest, ok := strings.CutPrefix(value, "!"); ok {
			st.command(label, rest, idx)
		} else {
			st.command(label, "git "+value, idx)
		}
		st.runsUnknown("git: alias " + key + " runs a command line completed by its caller's arguments")
	case last == "update" && first == "submodule":
		if rest, ok := strings.CutPrefix(value, "!"); ok {
			st.command(label, rest, idx)
		}
	case gitIndirectLast[last] || first == "include" || first == "includeif":
		st.codeWord(idx)
		st.runsUnknown("git: configuration " + key + " makes git load other configuration or run other programs")
	case gitCommandKeys[k] || first == "pager" || gitCommandLast[last] && first != "color" && first != "advice":
		if v, ok := strings.CutPrefix(value, "!"); ok {
			value = v
		}
		switch strings.ToLower(value) {
		case "", "true", "false", "yes", "no", "on", "off", "0", "1":
			// A boolean (pager.log=false, core.fsmonitor=false) runs nothing
			// of its own; core.fsmonitor=true runs git's built-in daemon.
			st.codeWord(idx)
			return
		}
		st.command(label, value, idx)
	case gitSafeSections[first]:
	default:
		st.codeWord(idx)
		st.runsUnknown("git: configuration " + key + " is not known to be free of programs")
	}
}

// gitCommandKeys are configuration keys whose value is a command line or a
// program git runs; gitCommandLast the last key parts with that meaning in
// any section (diff.<driver>.command, filter.<driver>.clean, pager.<cmd>).
var gitCommandKeys = map[string]bool{
	"core.pager": true, "core.editor": true, "core.sshcommand": true, "core.fsmonitor": true,
	"core.askpass": true, "core.gitproxy": true, "diff.external": true, "gpg.program": true,
	"sequence.editor": true, "web.browser": true, "man.viewer": true, "credential.helper": true,
	"interactive.difffilter": true, "uploadpack.packobjectshook": true, "merge.tool": true,
	"diff.tool": true, "sendemail.smtpserver": true,
}

var gitCommandLast = map[string]bool{
	"command": true, "textconv": true, "cmd": true, "driver": true, "clean": true, "smudge": true,
	"process": true, "program": true, "helper": true, "uploadpack": true, "receivepack": true,
	"sshcommand": true, "editor": true, "pager": true,
}

// gitIndirectLast are last key parts that make git load other
// configuration or scripts, or reach transports that run commands
// (include.path, url.<base>.insteadOf to ext::, protocol.ext.allow).
var gitIndirectLast = map[string]bool{
	"path": true, "insteadof": true, "pushinsteadof": true, "allow": true, "hookspath": true,
}

// gitSafeSections hold presentation and identity settings only.
var gitSafeSections = map[string]bool{
	"user": true, "color": true, "advice": true, "i18n": true, "column": true, "init": true,
	"log": true, "format": true, "status": true, "merge": true, "rerere": true, "push": true,
	"pull": true, "fetch": true, "branch": true, "commit": true, "blame": true, "grep": true,
	"help": true, "author": true, "committer": true, "safe": true, "feature": true,
	"gc": true, "pack": true, "index": true, "checkout": true, "rebase": true, "tag": true,
	"versionsort": true, "transfer": true, "diff": true, "core": true,
}

// checkGitConfigMarks applies gitConfigCode to the values of mark k.
func checkGitConfigMarks(st *state) {
	for _, mv := range st.vals {
		if mv.mark == 'k' {
			key, value, _ := strings.Cut(mv.val, "=")
			gitConfigCode(st, key, value, mv.idx)
		}
	}
}

// tar. --to-command, -I/--use-compress-program, -F/--info-script,
// --rmt-command and --rsh-command run commands (verified with GNU tar
// 1.34: --to-command runs through the shell, -I splits its value into a
// program and arguments); --checkpoint-action=exec=CMD runs CMD. The first
// argument may be old-style options without a dash ("tar xzf a.tgz").
var tarSpec = &spec{
	allow: `-A|--catenate|--concatenate -c|--create --delete -d|--diff|--compare -r|--append --test-label
		-t|--list -u|--update -x|--extract|--get --check-device -g|--listed-incremental= -G|--incremental
		--hole-detection= --ignore-failed-read --level= --no-check-device --no-seek -n|--seek --occurrence?
		--sparse-version= -S|--sparse --add-file= -C|--directory= --exclude= --exclude-backups
		--exclude-caches --exclude-caches-all --exclude-caches-under --exclude-ignore=
		--exclude-ignore-recursive= --exclude-tag= --exclude-tag-all= --exclude-tag-under= --exclude-vcs
		--exclude-vcs-ignores --no-null --no-recursion --no-unquote --no-verbatim-files-from --null
		--recursion -T|--files-from= --unquote --verbatim-files-from -X|--exclude-from= --anchored
		--ignore-case --no-anchored --no-ignore-case --no-wildcards --no-wildcards-match-slash --wildcards
		--wildcards-match-slash --keep-directory-symlink --keep-newer-files -k|--keep-old-files
		--no-overwrite-dir --one-top-level? --overwrite --overwrite-dir --recursive-unlink --remove-files
		--skip-old-files -U|--unlink-first -W|--verify --ignore-command-error --no-ignore-command-error
		-O|--to-stdout --to-command=x --atime-preserve? --clamp-mtime --delay-directory-restore --group=
		--group-map= --mode= --mtime= -m|--touch --no-delay-directory-restore --no-same-owner
		--no-same-permissions --numeric-owner --owner= --owner-map= -p|--preserve-permissions|--same-permissions
		--same-owner --sort= -s|--preserve-order|--same-order --acls --no-acls --no-selinux --no-xattrs
		--selinux --xattrs --xattrs-exclude= --xattrs-include= --force-local -f|--file=
		-F|--info-script|--new-volume-script=x -L|--tape-length= -M|--multi-volume --rmt-command=x
		--rsh-command=x --volno-file= -b|--blocking-factor= -B|--read-full-records -i|--ignore-zeros
		--record-size= -H|--format= --old-archive|--portability --pax-option= --posix -V|--label=
		-a|--auto-compress -I|--use-compress-program=x -j|--bzip2 -J|--xz --lzip --lzma --lzop
		--no-auto-compress --zstd -z|--gzip|--gunzip|--ungzip -Z|--compress|--uncompress --backup?
		--hard-dereference -h|--dereference -K|--starting-file= --newer-mtime= -N|--newer|--after-date=
		--one-file-system -P|--absolute-names --suffix= --strip-components= --transform|--xform=
		--checkpoint? --checkpoint-action=@a --full-time --index-file= -l|--check-links --no-quote-chars=
		--quote-chars= --quoting-style= -R|--block-number --show-defaults --show-omitted-dirs
		--show-snapshot-field-ranges --show-transformed-names|--show-stored-names --totals? --utc
		-v|--verbose --warning= -w|--interactive|--confirmation -o --restrict --usage -?`,
	never:    "tar writes archives and extracts files; its options can run programs (--to-command, --checkpoint-action, -I)",
	oldStyle: true,
	hasCmd:   true,
	check: func(st *state) {
		for _, mv := range st.vals {
			if mv.mark != 'a' {
				continue
			}
			if c, ok := strings.CutPrefix(mv.val, "exec="); ok {
				st.command("tar --checkpoint-action=exec", c, mv.idx)
			} else if strings.Contains(mv.val, Dynamic) {
				st.command("tar --checkpoint-action", mv.val, mv.idx)
			}
		}
	},
}

// sshOpts checks ssh -o values: ProxyCommand, LocalCommand,
// KnownHostsCommand and RemoteCommand are command lines (key names are
// case-insensitive, "Key=Value" or "Key Value").
func sshOpts(st *state) {
	for _, mv := range st.vals {
		if mv.mark != 'o' {
			continue
		}
		v := strings.TrimSpace(mv.val)
		k := strings.IndexAny(v, "= \t")
		if k < 0 {
			continue
		}
		key, val := strings.ToLower(v[:k]), strings.TrimLeft(v[k:], "= \t")
		switch key {
		case "proxycommand", "localcommand", "knownhostscommand", "remotecommand":
			if strings.ToLower(val) != "none" {
				st.command("ssh -o "+v[:k], val, mv.idx)
			}
		case "include", "match":
			st.codeWord(mv.idx)
			st.runsUnknown("ssh -o " + v[:k] + " can run commands")
		}
	}
}

// ssh runs the words after the destination as a command line on the remote
// host: a deny rule still sees it (it says what the agent runs, wherever).
// ssh reads options before and right after the destination.
var sshSpec = &spec{
	allow: `-4 -6 -A -a -C -f -G -g -K -k -M -N -n -q -s -T -t -V -v -X -x -Y -y -B= -b= -c= -D= -E=
		-e= -F= -I= -i= -J= -L= -l= -m= -O= -o=@o -p= -Q= -R= -S= -W= -w=`,
	never:      "ssh runs commands on another host",
	noStd:      true,
	runs:       2,
	runsString: true,
	check:      sshOpts,
}

var scpSpec = &spec{
	allow: `-3 -4 -6 -A -B -C -O -p -q -R -r -s -T -v -c= -D=x -F= -i= -J= -l= -o=@o -P= -S=x -X=`,
	never: "scp copies files over the network",
	noStd: true,
	check: sshOpts,
}

var sftpSpec = &spec{
	allow: `-4 -6 -A -a -C -f -N -p -q -r -v -B= -b= -c= -D=x -F= -i= -J= -l= -o=@o -P= -R= -S=x -s= -X=`,
	never: "sftp copies files over the network",
	noStd: true,
	check: sshOpts,
}

// make runs the recipes of a makefile, which builtins/scriptfile/makefile
// reads where the working directory is known (the analyser then walks the
// recipe lines instead, docs/shell.md "Makefiles"). Without the makefile,
// what the command line hands make is judged here: --eval text is makefile
// code, and a VAR=VALUE operand overrides a variable that recipes may run
// as a command (CC=..., SHELL=...).
var makeSpec = &spec{
	allow: `-b -m -B|--always-make -C|--directory= -d --debug? -e|--environment-overrides -E|--eval=c
		-f|--file|--makefile=@f -h|--help -i|--ignore-errors -I|--include-dir= -j|--jobs? -k|--keep-going
		-l|--load-average|--max-load? -L|--check-symlink-times -n|--just-print|--dry-run|--recon
		-o|--old-file|--assume-old= -O|--output-sync? -p|--print-data-base -q|--question
		-r|--no-builtin-rules -R|--no-builtin-variables -s|--silent|--quiet --no-silent
		-S|--no-keep-going|--stop -t|--touch --trace -v|--version -w|--print-directory
		--no-print-directory -W|--what-if|--new-file|--assume-new= --warn-undefined-variables
		--shuffle? --jobserver-style= --jobserver-auth=`,
	never: "make runs the commands of a makefile",
	noStd: true,
	check: func(st *state) {
		for _, mv := range st.vals {
			if mv.mark == 'f' && unseenFile(mv.val) {
				st.codeWord(mv.idx)
				st.runsUnknown("make -f " + printable(mv.val) + ": the makefile is not a file permopa can name")
			}
		}
		for _, o := range st.ops {
			name, val, ok := strings.Cut(o, "=")
			name = strings.TrimRight(name, ":+?!")
			if !ok || name == "" || strings.ContainsAny(name, " \t") {
				continue
			}
			st.command("make "+name+"=", val, indexOf(st.argv, o))
		}
	},
}

func indexOf(argv []string, w string) int {
	for i := len(argv) - 1; i >= 0; i-- {
		if argv[i] == w {
			return i
		}
	}
	return len(argv) - 1
}

// Programs that run another program given as their operands.
var (
	flockSpec = &spec{
		allow: `-s|--shared -x|--exclusive -u|--unlock -n|--nonblock -w|--timeout= -E|--conflict-exit-code=
			-o|--close -c|--command=x -F|--no-fork --verbose -h|--help -V|--version`,
		posix: true, never: "flock creates a lock file and runs a command", runs: 2, runsFlag: "-c --command",
	}
	scriptSpec = &spec{
		allow: `-I|--log-in=w -O|--log-out=w -B|--log-io=w -T|--log-timing=w -t|--timing?w
			-m|--logging-format= -a|--append -c|--command=x -e|--return -f|--flush --force -E|--echo=
			-o|--output-limit= -q|--quiet -h|--help -V|--version`,
		never: "script records a terminal session and runs a shell",
		check: func(st *state) {
			if len(st.v.Commands) == 0 && st.v.RunsUnknown == "" {
				// Without -c, script runs an interactive shell reading stdin.
				st.runsUnknown("script without -c runs a shell reading its commands from the terminal")
				st.codeWord(0)
			}
		},
	}
	straceSpec = &spec{
		allow: `-A -a= -b= -c -C -d -D -e= -E= -f -ff -F -h -i -I= -k -n -o=w -O= -p= -P= -q -qq -r -s= -S=
			-t -tt -ttt -T -u= -U= -v -V -w -x -xx -X= -y -yy -z -Z --seccomp-bpf --output=w --trace=
			--signal= --status= --attach= --follow-forks --output-separately --summary-only --summary
			--user= --env= --timestamps? --syscall-times? --decode-fds? --string-limit= --quiet?
			--absolute-timestamps? --relative-timestamps? --instruction-pointer --stack-traces --kill-on-exit`,
		posix: true, never: "strace runs and traces a command", runs: 1,
	}
	ltraceSpec = &spec{
		allow: `-a= -A= -b -c -C -D= -e= -f -F= -h -i -l= -L -n= -o=w -p= -r -s= -S -t -tt -ttt -T -u= -V -w= -x=
			--align= --demangle --debug= --config= --library= --output=w --help --version`,
		posix: true, never: "ltrace runs and traces a command", runs: 1,
	}
	chrootSpec = &spec{
		allow: `--groups= --userspec= --skip-chdir`,
		posix: true, never: "chroot runs a command with another root directory", runs: 2,
	}
	unshareSpec = &spec{
		allow: `-m|--mount? -u|--uts? -i|--ipc? -n|--net? -p|--pid? -U|--user? -C|--cgroup? -T|--time?
			-f|--fork --kill-child? --mount-proc? --map-user= --map-users= --map-group= --map-groups=
			-r|--map-root-user -c|--map-current-user --map-auto --propagation= --setgroups= -R|--root=
			-w|--wd= -S|--setuid= -G|--setgid= --monotonic= --boottime= --keep-caps --load-interp=`,
		posix: true, never: "unshare runs a command in new namespaces", runs: 1,
	}
	nsenterSpec = &spec{
		allow: `-a|--all -t|--target= -m|--mount? -u|--uts? -i|--ipc? -n|--net? -p|--pid? -C|--cgroup?
			-U|--user? -T|--time? -S|--setuid= -G|--setgid= --preserve-credentials -r|--root? -w|--wd?
			-W|--wdns= -e|--env -F|--no-fork -Z|--follow-context`,
		posix: true, never: "nsenter runs a command in other namespaces", runs: 1,
	}
	tasksetSpec = &spec{
		allow: `-a|--all-tasks -c|--cpu-list`,
		posix: true, never: "taskset runs a command on chosen CPUs", runs: 2,
		check: func(st *state) {
			// taskset -p MASK PID changes a running process instead.
		},
	}
	chrtSpec = &spec{
		allow: `-b|--batch -d|--deadline -f|--fifo -i|--idle -o|--other -r|--rr -R|--reset-on-fork
			-a|--all-tasks -m|--max -p|--pid -T|--sched-runtime= -P|--sched-period= -D|--sched-deadline=
			-v|--verbose`,
		posix: true, never: "chrt runs a command with a scheduling policy", runs: 2,
	}
	setprivSpec = &spec{
		allow: `-d|--dump --clear-groups --groups= --inh-caps= --ambient-caps= --bounding-set=
			--keep-groups --init-groups --no-new-privs --regid= --reuid= --rgid= --ruid= --securebits=
			--pdeathsig= --selinux-label= --apparmor-profile= --landlock-access= --landlock-rule=
			--reset-env --egid= --euid=`,
		posix: true, never: "setpriv runs a command with other privileges", runs: 1,
	}
	plainRunner = func(never string) *spec {
		return &spec{posix: true, never: never, runs: 1, noStd: true}
	}
	valgrindSpec = &spec{anyArgs: true, never: "valgrind runs a command", check: func(st *state) {
		// valgrind's options are --name=value words before the program.
		for i := 1; i < len(st.argv); i++ {
			if !strings.HasPrefix(st.argv[i], "-") {
				st.v.Runs = i
				return
			}
		}
	}}
	// parallel builds command lines from its input (or ::: lists) and runs
	// them through a shell: what runs is not in argv.
	parallelSpec = &spec{anyArgs: true, never: "parallel runs commands built from its input", check: func(st *state) {
		st.runsUnknown("parallel runs command lines built from its input")
		st.codeWord(len(st.argv) - 1)
	}}
	// sg GROUP [-c] COMMAND runs COMMAND with /bin/sh -c.
	sgSpec = &spec{anyArgs: true, never: "sg runs a command as another group", check: func(st *state) {
		args := st.argv[1:]
		if len(args) > 0 && args[0] == "-" {
			args = args[1:]
		}
		if len(args) < 2 {
			return
		}
		rest := args[1:]
		if rest[0] == "-c" {
			rest = rest[1:]
		}
		if len(rest) > 0 {
			st.command("sg", strings.Join(rest, " "), len(st.argv)-1)
		}
	}}
)

// Schedulers run commands read from their input (or a file) later, and
// systemd-run runs one in a unit with options of its own: what runs is
// not something permopa reads.
var (
	atSpec = &spec{anyArgs: true, never: "at schedules commands", check: func(st *state) {
		for _, a := range st.argv[1:] {
			switch a {
			case "-l", "-r", "-d", "-c":
				return // list, remove, print jobs
			}
		}
		st.codeWord(len(st.argv) - 1)
		st.runsUnknown(st.argv[0] + " runs commands read from its input later")
	}}
	crontabSpec = &spec{anyArgs: true, never: "crontab changes scheduled jobs", check: func(st *state) {
		for _, a := range st.argv[1:] {
			if a == "-l" || a == "-r" || a == "-e" {
				continue
			}
			if strings.HasPrefix(a, "-") && a != "-" {
				continue
			}
			st.codeWord(len(st.argv) - 1)
			st.runsUnknown("crontab installs commands that run later")
			return
		}
	}}
	systemdRunSpec = &spec{anyArgs: true, never: "systemd-run runs a command in a transient unit", check: func(st *state) {
		st.codeWord(len(st.argv) - 1)
		st.runsUnknown("systemd-run runs a command with options permopa does not model")
	}}
)

// Package runners fetch a package (or use an installed one) and run its
// program: what runs is not in argv.
var packageRunner = &spec{anyArgs: true, never: "downloads and runs packages", check: checkPackageRunner}

func checkPackageRunner(st *state) {
	idx := len(st.argv) - 1
	words := strings.Fields(st.v.Subcommand)
	for i := 1; i < len(st.argv); i++ {
		a := st.argv[i]
		if len(words) > 0 && a == words[0] {
			words = words[1:]
			continue
		}
		if !strings.HasPrefix(a, "-") {
			idx = i
			break
		}
	}
	st.codeWord(idx)
	name := st.argv[0]
	if st.v.Subcommand != "" {
		name += " " + st.v.Subcommand
	}
	st.runsUnknown(name + " runs a package's program")
}

// rsync: -e/--rsh is the remote shell command, --rsync-path the command
// run on the remote side. rsync has too many options to list here; the
// argv is scanned for these (clustered -e, abbreviated long forms).
var rsyncSpec = &spec{anyArgs: true, never: "rsync copies and deletes files", check: func(st *state) {
	scanValues(st, "rsync", "e", []string{"--rsh", "--rsync-path"}, 4)
}}

// zip -TT/--unzip-command runs a command to test the archive.
var zipSpec = &spec{anyArgs: true, never: "zip writes archives", check: func(st *state) {
	scanValues(st, "zip", "", []string{"--unzip-command", "-TT"}, 0)
}}

// scanValues finds, in an argv whose options are not all modelled, the
// options whose value is a command line: the short letters in clusters
// (the value is the rest of the cluster or the next word) and long names
// (exact, or abbreviated to at least minAbbrev characters when minAbbrev is
// not 0). It reads every word up to "--".
func scanValues(st *state, prog, letters string, longs []string, minAbbrev int) {
	args := st.argv
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return
		}
		if strings.HasPrefix(a, Dynamic) {
			st.codeWord(i)
			st.runsUnknown(prog + ": the word " + printable(a) + " is only known at run time and may be an option that runs a command")
			return
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, val, hasEq := strings.Cut(a, "=")
		for _, l := range longs {
			if name == l || minAbbrev > 0 && strings.HasPrefix(l, name) && len(name) >= minAbbrev {
				switch {
				case hasEq:
					st.command(prog+" "+l, val, i)
				case i+1 < len(args):
					st.command(prog+" "+l, args[i+1], i+1)
					i++
				}
				goto next
			}
		}
		if a[1] != '-' && letters != "" {
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(letters, a[j]) < 0 {
					continue
				}
				switch {
				case j+1 < len(a):
					st.command(prog+" -"+string(a[j]), a[j+1:], i)
				case i+1 < len(args):
					st.command(prog+" -"+string(a[j]), args[i+1], i+1)
					i++
				}
				break
			}
		}
	next:
	}
}

// less and more run their "+" initial commands and their interactive
// commands ("!" starts a shell command, "|" pipes to one). A "+" word with
// either runs something permopa does not parse.
var pagerSpec = &spec{anyArgs: true, never: "is an interactive pager that can run commands and write files", check: func(st *state) {
	for i, a := range st.argv[1:] {
		if a == "--" {
			return
		}
		if strings.HasPrefix(a, Dynamic) || strings.HasPrefix(a, "+") && strings.ContainsAny(a, "!|"+Dynamic) {
			st.codeWord(i + 1)
			st.runsUnknown(st.argv[0] + ": the initial command " + printable(a) + " can run a shell command")
		}
	}
}}

// Editors run their -c/--cmd/+ commands at start (vim's ":!cmd", ":py",
// ":call system()"): code permopa does not read. "+N" (a line number) and
// "+/pattern" only move the cursor.
var editorSpec = &spec{anyArgs: true, never: "is an interactive editor", check: func(st *state) {
	args := st.argv
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return
		}
		code, at := false, i
		switch {
		case a == "-c" || a == "--cmd":
			code, at = true, min(i+1, len(args)-1)
		case strings.HasPrefix(a, "+"):
			rest := a[1:]
			code = !(rest == "" || isDigits(rest) || strings.HasPrefix(rest, "/") && !strings.ContainsAny(rest, "|"))
		}
		if code || strings.HasPrefix(a, Dynamic) {
			st.codeWord(at)
			st.runsUnknown(st.argv[0] + ": the startup command " + printable(a) + " is editor code that can run shell commands")
			return
		}
	}
}}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// gdb runs commands given with -ex/-x and the program of --args.
var gdbSpec = &spec{anyArgs: true, never: "gdb runs and debugs programs", check: func(st *state) {
	for i, a := range st.argv[1:] {
		switch strings.TrimLeft(a, "-") {
		case "ex", "eval-command", "iex", "init-eval-command", "x", "command", "ix", "init-command", "args", "batch", "p", "pid":
			st.codeWord(len(st.argv) - 1)
			st.runsUnknown("gdb " + a + " runs debugger commands or a program")
			return
		}
		if strings.HasPrefix(a, Dynamic) {
			st.codeWord(i + 1)
			st.runsUnknown("gdb: a word is only known at run time")
			return
		}
	}
}}

func init() {
	gitSubs["push"] = gitPushSpec
	gitSubs["commit"] = gitCommitSpec
	gitSubs["reset"] = gitResetSpec
	gitSubs["clean"] = gitCleanSpec
	gitSubs["checkout"] = gitCheckoutSpec
	gitSubs["switch"] = gitSwitchSpec
	gitSubs["restore"] = gitRestoreSpec
	gitSubs["merge"] = gitMergeSpec
	gitSubs["rebase"] = gitRebaseSpec
	gitSubs["fetch"] = gitFetchSpec
	gitSubs["pull"] = gitPullSpec
	gitSubs["clone"] = gitCloneSpec
	gitSubs["add"] = gitAddSpec
	gitSubs["rm"] = gitRmSpec
	gitSubs["difftool"] = gitDifftoolSpec
	gitSubs["filter-branch"] = gitFilterBranchSpec
	gitSubs["bisect"] = &spec{
		never: "git bisect changes the work tree",
		// log and help only print (gitnet.go).
		subs: map[string]*spec{"run": gitBisectRunSpec, "log": {ops: opsNone}, "help": {ops: opsNone}},
		// Other bisect words (start, good, bad, reset, ...) are operands.
		subFallback: true,
	}
	gitSubmoduleSpec.subs["foreach"] = gitSubmoduleForeachSpec

	register(tarSpec, "tar")
	register(sshSpec, "ssh")
	register(scpSpec, "scp")
	register(sftpSpec, "sftp")
	register(makeSpec, "make", "gmake")
	register(flockSpec, "flock")
	register(scriptSpec, "script")
	register(straceSpec, "strace")
	register(ltraceSpec, "ltrace")
	register(chrootSpec, "chroot")
	register(unshareSpec, "unshare")
	register(nsenterSpec, "nsenter")
	register(tasksetSpec, "taskset")
	register(chrtSpec, "chrt")
	register(setprivSpec, "setpriv")
	register(valgrindSpec, "valgrind")
	register(parallelSpec, "parallel")
	register(sgSpec, "sg")
	register(rsyncSpec, "rsync")
	register(zipSpec, "zip")
	register(pagerSpec, "most") // less and more: pager.go
	register(editorSpec, "vi", "vim", "nvim", "view", "vimdiff", "ex", "gvim")
	register(gdbSpec, "gdb")
	register(atSpec, "at", "batch")
	register(crontabSpec, "crontab")
	register(systemdRunSpec, "systemd-run")
	register(packageRunner, "npx", "pnpx", "bunx", "uvx")
	npmSpec.subs["exec"] = packageRunner
	npmSpec.subs["x"] = packageRunner
	pnpmSpec.subs["dlx"] = packageRunner
	pnpmSpec.subs["exec"] = packageRunner
	yarnSpec.subs["dlx"] = packageRunner
	yarnSpec.subs["exec"] = packageRunner
	// --script-shell names the shell npm runs package scripts with (a
	// program, not a command line: code permopa does not read). Installs
	// run the packages' lifecycle scripts with it too.
	npmSpec.allow += ` --script-shell=c --node-options=c`
	for _, sub := range []string{"run", "run-script", "test", "start", "restart", "stop", "install", "i", "ci"} {
		sp := npmSpec.subs[sub]
		if sp == nil {
			sp = &spec{never: "npm " + sub + " runs a package script"}
			npmSpec.subs[sub] = sp
		}
		if sp.allow == "" {
			sp.allow = npmCommon
		}
		sp.allow += ` --script-shell=c --node-options=c --if-present --ignore-scripts --foreground-scripts`
	}
	for _, p := range []struct{ name, never string }{
		{"pkexec", "pkexec runs a command as another user"},
		{"fakeroot", "fakeroot runs a command"},
		{"xvfb-run", "xvfb-run runs a command"},
		{"dbus-run-session", "dbus-run-session runs a command"},
		{"catchsegv", "catchsegv runs a command"},
		{"torsocks", "torsocks runs a command"},
		{"proxychains", "proxychains runs a command"},
		{"proxychains4", "proxychains runs a command"},
		{"unbuffer", "unbuffer runs a command"},
		{"rlwrap", "rlwrap runs a command"},
		{"busybox", "busybox runs one of its applets"},
	} {
		register(plainRunner(p.never), p.name)
	}
}
