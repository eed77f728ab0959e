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
// interpreters, shells and privilege or indirection wrappers.
var exactOnly = map[string]bool{
	"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true, "fish": true,
	"python": true, "python2": true, "python3": true, "node": true, "deno": true, "bun": true, "ruby": true,
	"perl": true, "php": true, "lua": true, "eval": true, "env": true, "sudo": true, "doas": true, "su": true,
	"xargs": true, "exec": true, "source": true, ".": true, "find": true, "nohup": true, "command": true,
	"builtin": true, "timeout": true, "nice": true, "stdbuf": true, "time": true, "awk": true, "gawk": true,
	"trap": true, "alias": true, "sed": true, "mawk": true, "nawk": true, "npx": true, "bunx": true, "pnpx": true,
	"uvx": true, "pipx": true, "ssh": true, "watch": true, "parallel": true, "setsid": true, "chroot": true,
	"unshare": true, "nsenter": true, "strace": true, "ltrace": true, "gdb": true, "valgrind": true, "flock": true,
	"script": true, "ionice": true, "taskset": true, "chrt": true, "runuser": true, "pkexec": true, "osascript": true,
	"export": true, "declare": true, "typeset": true, "local": true, "readonly": true, "set": true, "unset": true,
	"shopt": true, "enable": true, "hash": true, "let": true, "((": true, "[[": true, "powershell": true, "pwsh": true, "tclsh": true, "Rscript": true, "julia": true, "java": true, "expect": true,
}

// interpreters read a program from stdin when given no operand.
var interpreters = map[string]bool{"python": true, "python2": true, "python3": true, "node": true, "deno": true,
	"bun": true, "ruby": true, "perl": true, "php": true, "lua": true, "source": true, ".": true, "eval": true}

// Suggest returns at most 5 rule contents that, accepted as allow rules,
// make Covered true for this command; nil when no rule can (unanalysable,
// a redirection without a command, a rule would need an unknown word) or
// when more than 5 would be needed.
//
// A leaf gets "program subcommand:*" when the program has subcommands and
// its second word is one, else "program:*"; a leaf whose allow argv starts
// with an interpreter, shell, privilege or indirection program, a
// path-qualified program or an assignment gets its exact allow argv. No
// rule is suggested (nil) for an interpreter or shell with no operand, which
// runs whatever is piped into it, nor for an exact argv holding a word only
// known at run time.
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
	if len(argv) == 0 {
		return "", false
	}
	prog := argv[0]
	exact := exactOnly[prog] || strings.Contains(prog, "/") || strings.Contains(prog, "=") || prog == "" ||
		strings.ContainsAny(prog, "*")
	if exact {
		return exactRule(argv)
	}
	prefix := argv[:1]
	if flagspec.HasSubcommands(prog) && len(argv) > 1 {
		if strings.HasPrefix(argv[1], "-") || argv[1] == "" || strings.Contains(argv[1], dyn) {
			// Global options before the subcommand ("git -c x=y log"):
			// "git:*" would allow every subcommand, so only the exact argv.
			return exactRule(argv)
		}
		prefix = argv[:2]
	}
	return quoteWords(prefix) + ":*", true
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

// readsProgramFromStdin reports an interpreter or shell given options only.
func readsProgramFromStdin(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	prog := path.Base(argv[0])
	if !shells[prog] && !interpreters[prog] {
		return false
	}
	for _, a := range argv[1:] {
		if a == "-" || a == "--" {
			continue
		}
		if !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}
