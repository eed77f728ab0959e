package bash

import (
	"path"
	"strings"

	"github.com/permopa/permopa/builtins/flagspec"
)

// maxSuggestions caps the rules suggested for one command. When more
// leaves need a rule, Suggest returns nil and the caller asks without
// suggestions: a long list of rules is not something a human reviews.
const maxSuggestions = 5

// exactOnly are programs for which a prefix rule would allow anything:
// every program that runs code (flagspec.RunsCode: interpreters, shells,
// wrappers, package runners, awk, sed, find) and the shell builtins that
// change what later commands run or evaluate code (declare -n, let's
// array subscripts).
var exactOnly = map[string]bool{
	"alias": true, "export": true, "declare": true, "typeset": true, "local": true, "readonly": true, "set": true,
	"unset": true, "shopt": true, "enable": true, "hash": true, "let": true, "((": true, "[[": true,
}

// interpreters run a program they read from a file by name, or from stdin
// when given no operand: flagspec's interpreters and the shell builtins
// that run shell code (source, eval).
var interpreters = map[string]bool{}

// shells are the programs whose -c operand is a shell script: flagspec's
// sh-family shells.
var shells = map[string]bool{}

func init() {
	for _, p := range flagspec.CodeRunners() {
		exactOnly[p] = true
		switch kind, _ := flagspec.RunsCode(p); kind {
		case flagspec.Interpreter, flagspec.ShellCode:
			interpreters[p] = true
		case flagspec.Shell:
			shells[p] = true
		}
	}
}

// RunsCode says why a prefix rule for program allows any code or command
// ("runs code", "runs any command after it"), "" when program runs no
// code beyond its argv; a path names its last element. The one table is
// flagspec's (builtins/flagspec/runscode.go); settings' rules lint and
// replay read it here.
func RunsCode(program string) string {
	if program == "" {
		return ""
	}
	_, why := flagspec.RunsCode(path.Base(program))
	return why
}

// Suggest returns at most 5 rule contents that, accepted as allow rules,
// make Covered true for this command; nil when no rule can (unanalysable,
// a redirection without a command, a rule would need an unknown word) or
// when more than 5 would be needed.
//
// A suggestion must be safe to accept: it never covers the same program in
// a more destructive form than the leaf asked about (docs/usage.md "Rules"). So a
// leaf gets its exact allow argv ("rm -rf build", not "rm:*") unless its
// program has subcommands and the leaf names one that is not destructive in
// any form (see destructiveSubcommands): then "program subcommand:*" ("npm
// install:*", "gh pr create:*"). A bare program prefix ("rm:*", "make:*")
// is never suggested: it would cover every form of the program, its most
// destructive ones included. No rule is suggested (nil) for an interpreter
// or shell with no operand, which runs whatever is piped into it, nor for
// an exact argv holding a word only known at run time.
func (a *Analysis) Suggest() []string {
	if a == nil || !a.Analysable || a.Truncated || a.uncoverable {
		return nil
	}
	var out []string
	for i := range a.Leaves {
		lf := &a.Leaves[i]
		if !lf.needsRule() {
			continue
		}
		if readsProgramFromStdin(lf.Argv) || lf.RedirectWrites {
			// An interpreter or shell with no script runs whatever is piped
			// into it: no rule should allow that. A write by redirection is
			// for path rules and the mode: no Bash rule covers it.
			return nil
		}
		rule, ok := suggestFor(lf.AllowArgv)
		if lf.Script != "" {
			// A leaf inside a script: the rule is for the command that runs
			// the script, exactly (npm run build, not npm run:*, which would
			// allow every other script of the file and any words appended
			// to it, none of which the person saw; docs/rules.md).
			rule, ok = exactRule(lf.AllowArgv)
		}
		if ok && lf.CodeWords > 0 {
			// A wildcard never stands for code: the rule spells out the
			// words that carry it (the whole argv).
			if p, err := CompilePattern(rule); err != nil || !p.covers(lf.AllowArgv, lf.CodeWords) {
				rule, ok = exactRule(lf.AllowArgv)
			}
		}
		if !ok {
			return nil
		}
		if !contains(out, rule) {
			out = append(out, rule)
		}
		if len(out) > maxSuggestions {
			return nil
		}
	}
	return out
}

func suggestFor(argv []string) (string, bool) {
	if len(argv) < 2 {
		return exactRule(argv)
	}
	prog := argv[0]
	if exactOnly[prog] || !flagspec.HasSubcommands(prog) {
		// Interpreters, wrappers, paths, assignments, unknown programs and
		// every program without subcommands: a prefix would cover forms
		// more destructive than this one (rm -rf /, make any-target).
		return exactRule(argv)
	}
	inv, ok := flagspec.Parse(argv)
	sub := strings.Fields(inv.Subcommand)
	if !ok || inv.Unmodelled || inv.SubcommandOpen || len(sub) == 0 || len(argv) <= len(sub) || destructive(prog, sub) {
		// A subcommand whose options permopa does not model: a wildcard
		// would stand for options it cannot read, code-running ones
		// included (terraform plan, cargo build, docker compose up).
		return exactRule(argv)
	}
	for i, w := range sub {
		// The subcommand must be the words right after the program: global
		// options before it ("git -c x=y log", "git -C d push") would be
		// left out of the rule and a prefix would allow any of them.
		if argv[1+i] != w {
			return exactRule(argv)
		}
	}
	return quoteWords(argv[:1+len(sub)]) + ":*", true
}

// destructiveSubcommands are subcommands (or, with "", whole programs) that
// have a more destructive form than some of their invocations: forcing,
// deleting, discarding work, rewriting history, escaping a sandbox, changing
// what runs on a system or a cluster. A wildcard after them would cover
// those forms (git push:* covers git push --force), so their leaves get the
// exact rule. A subcommand path is looked up whole and by its first word
// ("stash drop", then "stash").
var destructiveSubcommands = map[string]map[string]bool{
	"git": subSet("push", "fetch", "pull", "clean", "reset", "checkout", "restore", "switch", "rm", "mv", "branch", "tag",
		"stash drop", "stash clear", "reflog", "gc", "prune", "update-ref", "symbolic-ref", "filter-branch",
		"filter-repo", "replace", "worktree", "remote", "rebase", "am", "apply", "submodule", "config",
		"notes", "lfs", "sparse-checkout", "maintenance", "hook", "bisect", "init", "clone", "daemon",
		"credential", "send-email"),
	"docker":  subSet("run", "exec", "rm", "rmi", "kill", "system", "volume", "container", "image", "network", "builder", "buildx", "compose down", "compose rm", "compose run", "compose exec", "swarm", "service", "stack", "secret", "config", "plugin", "context", "login", "push", "cp", "update", "prune"),
	"podman":  subSet(""),
	"kubectl": subSet(""),
	"helm":    subSet(""),
	"gh":      subSet("api", "repo", "release", "secret", "variable", "ssh-key", "gpg-key", "auth", "extension", "codespace", "workflow", "run", "pr merge", "pr close", "issue close", "issue delete", "issue transfer", "label", "ruleset", "cache", "alias", "config", "gist"),
	"npm":     subSet("uninstall", "remove", "rm", "r", "un", "unlink", "publish", "unpublish", "deprecate", "dist-tag", "owner", "access", "token", "team", "org", "hook", "cache", "prune", "dedupe", "exec", "x", "login", "logout", "adduser", "config", "set", "star", "unstar"),
	"pnpm":    subSet("remove", "rm", "uninstall", "un", "unlink", "publish", "dlx", "exec", "store", "prune", "config", "setup", "env"),
	"yarn":    subSet("remove", "unlink", "publish", "npm", "dlx", "exec", "cache", "config", "set", "policies", "global", "plugin"),
	"pip":     subSet("uninstall", "cache", "config", "download"),
	"pip3":    subSet("uninstall", "cache", "config", "download"),
	// go and cargo take toolchain options that run programs permopa does
	// not read (go build -toolexec, go test -exec, cargo --config
	// build.rustc-wrapper=...): a wildcard after any subcommand covers them.
	"cargo":     subSet(""),
	"go":        subSet(""),
	"brew":      subSet("uninstall", "remove", "rm", "cleanup", "untap", "tap", "link", "unlink", "services", "autoremove"),
	"apt":       subSet(""),
	"apt-get":   subSet(""),
	"dnf":       subSet(""),
	"yum":       subSet(""),
	"systemctl": subSet(""),
	"terraform": subSet("apply", "destroy", "import", "state", "taint", "untaint", "workspace", "force-unlock", "console"),
	"tofu":      subSet("apply", "destroy", "import", "state", "taint", "untaint", "workspace", "force-unlock", "console"),
}

func subSet(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// destructive reports a subcommand of destructiveSubcommands (the program's
// "" entry: all of them).
func destructive(prog string, sub []string) bool {
	subs := destructiveSubcommands[prog]
	return subs[""] || subs[strings.Join(sub, " ")] || subs[sub[0]]
}

// quoteWords writes words so that tokenize gives them back unchanged.
func quoteWords(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteWord(w))
	}
	return b.String()
}

func quoteWord(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("-_./=,@%+^", c) >= 0 || (c == ':' && i < len(s)-1)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// exactRule is the rule matching exactly argv; none when a word is only known at run time.
func exactRule(argv []string) (string, bool) {
	for _, s := range argv {
		if strings.Contains(s, dyn) {
			return "", false
		}
	}
	return quoteWords(argv), true
}

// readsProgramFromStdin reports an interpreter or shell given options
// only, or a shell given -s (whose operands are its $1...).
func readsProgramFromStdin(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	prog := path.Base(argv[0])
	if !shells[prog] && !interpreters[prog] {
		return false
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "-" || a == "--" {
			continue
		}
		if !strings.HasPrefix(a, "-") && !(shells[prog] && strings.HasPrefix(a, "+")) {
			return false
		}
		if !shells[prog] || strings.HasPrefix(a, "--") {
			continue
		}
		if strings.ContainsAny(a[1:], "c") {
			return false // sh -c: the script is an operand
		}
		if strings.ContainsRune(a[1:], 's') {
			// sh -s ARGS: the script is stdin, the operands its $1...
			return true
		}
		if strings.ContainsAny(a[1:], "oO") {
			i++ // sh -o NAME
		}
	}
	return true
}
