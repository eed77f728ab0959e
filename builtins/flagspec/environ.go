package flagspec

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Environment dumps. The environment of an agent's shell holds its secrets
// (API keys, tokens, cloud credentials), so a command that prints it, or
// prints a variable whose name says it is a secret, is a credential read
// for the policy (a setting can relax this; see docs). The commands are
// read-only in every other respect; Verdict.Environment says why they read
// the environment and the verdict is otherwise unchanged.
//
// Covered: printenv (no operand, or a secret-looking name), env with no
// command (unless -i), export/declare/typeset/local/readonly printing
// variables, set with no argument, jq's env and $ENV, awk's ENVIRON, ps's
// BSD "e" (and macOS -E), and inline code of interpreters (-c/-e/-r/--eval)
// that names the environment. Not covered: a variable expanded by the shell
// itself ("echo $GITHUB_TOKEN"), and scripts run from files.

// environmentReaders maps a program to the function that says whether its
// arguments (argv[1:]) make it print environment variables, and why.
var environmentReaders = map[string]func(prog string, args []string) string{
	"printenv": envPrintenv,
	"env":      envEnv,
	"export":   envDeclare,
	"declare":  envDeclare,
	"typeset":  envDeclare,
	"local":    envDeclare,
	"readonly": envDeclare,
	"set":      envSet,
	"jq":       envJq,
	"gojq":     envJq,
	"awk":      envAwk, "gawk": envAwk, "mawk": envAwk, "nawk": envAwk, "busybox": envAwk,
	"ps": envPs,
}

func init() {
	// Every interpreter whose command line carries code (interp.go's
	// inlineCode, from the table of runscode.go).
	for p, ic := range inlineCode {
		if !ic.always && (ic.inline != "" || len(ic.longInline) > 0 || ic.sub["eval"] != "") {
			environmentReaders[p] = envInterp
		}
	}
}

// environmentRead returns why argv prints environment variables, or "".
func environmentRead(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	if f := environmentReaders[argv[0]]; f != nil {
		return f(argv[0], argv[1:])
	}
	return ""
}

// secretWords are name segments (split at "_") that mark a variable as a
// secret: GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD, ANTHROPIC_API_KEY.
var secretWords = map[string]bool{
	"SECRET": true, "SECRETS": true, "TOKEN": true, "TOKENS": true, "PASSWORD": true, "PASSWORDS": true,
	"PASSWD": true, "PASS": true, "PASSPHRASE": true, "PW": true, "PWD": true, "KEY": true, "KEYS": true,
	"APIKEY": true, "CREDENTIAL": true, "CREDENTIALS": true, "CREDS": true, "PRIVATE": true, "AUTH": true,
	"COOKIE": true, "SESSION": true, "SIGNATURE": true, "DSN": true,
}

// secretName reports whether a variable name looks like it holds a secret.
// A name only known at run time may be anything.
func secretName(name string) bool {
	if strings.Contains(name, Dynamic) {
		return true
	}
	n := strings.ToUpper(name)
	switch n {
	case "PWD", "OLDPWD":
		return false
	}
	if strings.HasSuffix(n, "_SOCK") {
		return false // SSH_AUTH_SOCK names a socket
	}
	for _, seg := range strings.Split(n, "_") {
		if secretWords[seg] {
			return true
		}
	}
	return strings.Contains(n, "SECRET") || strings.Contains(n, "TOKEN") || strings.Contains(n, "PASSWORD") ||
		strings.Contains(n, "APIKEY")
}

func envPrintenv(_ string, args []string) string {
	names := 0
	for i, a := range args {
		if a == "--" {
			for _, n := range args[i+1:] {
				names++
				if secretName(n) {
					return "printenv prints " + printable(n) + ", which looks like a secret"
				}
			}
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		names++
		if secretName(a) {
			return "printenv prints " + printable(a) + ", which looks like a secret"
		}
	}
	if names == 0 {
		return "printenv prints the whole environment"
	}
	return ""
}

// envEnv: env with no command prints the environment, except after -i
// (or "-"), which empties it first.
func envEnv(_ string, args []string) string {
	cleared := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-" || a == "-i" || a == "--ignore-environment" || strings.HasPrefix(a, "--ignore-env"):
			cleared = true
		case a == "-u" || a == "--unset" || a == "-C" || a == "--chdir" || a == "-S" || a == "--split-string":
			i++
		case a == "--":
			if i+1 < len(args) && !isAssignment(args[i+1]) {
				return "" // runs a command
			}
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// A cluster: -0i, -iu NAME, -uNAME.
			for j := 1; j < len(a); j++ {
				c := a[j]
				if c == 'i' {
					cleared = true
				}
				if c == 'u' || c == 'C' || c == 'S' {
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
		case isAssignment(a):
		default:
			return "" // runs a command
		}
	}
	if cleared {
		return ""
	}
	return "env prints the whole environment"
}

func isAssignment(a string) bool {
	n, _, ok := strings.Cut(a, "=")
	return ok && isIdent(n)
}

// envDeclare: export, declare, typeset, local and readonly print variables
// (with their values) when given no name, or with -p; -f and -F alone
// print functions.
func envDeclare(prog string, args []string) string {
	printFlag, functionsOnly, names := false, false, 0
	otherFlags := false
	var secret string
	for _, a := range args {
		if (strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+")) && len(a) > 1 && a != "--" {
			for _, c := range a[1:] {
				switch c {
				case 'p':
					printFlag = true
				case 'f', 'F':
					functionsOnly = true
				default:
					otherFlags = true
				}
			}
			continue
		}
		if a == "--" {
			continue
		}
		names++
		if n, _, _ := strings.Cut(a, "="); secret == "" && !strings.Contains(a, "=") && secretName(n) {
			secret = n
		}
	}
	if functionsOnly && !otherFlags {
		return ""
	}
	if names == 0 {
		if prog == "local" && !printFlag {
			// local with no name prints the function's locals only.
			return "local prints variables"
		}
		return prog + " prints every variable with its value"
	}
	if printFlag && secret != "" {
		return prog + " -p prints " + printable(secret) + ", which looks like a secret"
	}
	return ""
}

// envSet: set with no argument prints every shell variable.
func envSet(_ string, args []string) string {
	if len(args) == 0 {
		return "set prints every variable with its value"
	}
	return ""
}

// jq's env builtin and $ENV hold the environment. ".env" is a field.
var jqEnvRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$ENV\b|(^|[^.$\w])env\b`) })

func envJq(prog string, args []string) string {
	filter, ok := jqFilter(args)
	if !ok {
		return ""
	}
	if strings.Contains(filter, Dynamic) || jqEnvRE().MatchString(filter) {
		return prog + " reads the environment ($ENV, env)"
	}
	return ""
}

// jqFilter finds jq's filter: the first operand, after options and their
// values. ok is false when the filter comes from a file (-f).
func jqFilter(args []string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--arg" || a == "--argjson" || a == "--slurpfile" || a == "--rawfile":
			i += 2
		case a == "--indent" || a == "-L":
			i++
		case a == "-f" || a == "--from-file" || strings.HasPrefix(a, "--from-file="):
			return "", false
		case a == "--args" || a == "--jsonargs" || a == "--":
		case strings.HasPrefix(a, "-") && len(a) > 1:
		default:
			return a, true
		}
	}
	return "", false
}

func envAwk(prog string, args []string) string {
	if prog == "busybox" && (len(args) == 0 || args[0] != "awk") {
		return ""
	}
	for _, a := range args {
		if strings.Contains(a, "ENVIRON") || strings.Contains(a, Dynamic) && !strings.HasPrefix(a, "-") {
			return prog + " reads the environment (ENVIRON)"
		}
	}
	return ""
}

// ps: the BSD option "e" (ps e, ps auxe, ps eww) prints each process's
// environment, and so does macOS's -E. Options that take a value (o, O, p,
// q, t, U, k and their UNIX and GNU forms) have it skipped.
func envPs(_ string, args []string) string {
	const why = "ps e prints the environment of processes"
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.Contains(a, Dynamic) {
			return why
		}
		switch {
		case strings.HasPrefix(a, "--"):
			if !strings.Contains(a, "=") && psLongValue[strings.TrimPrefix(a, "--")] {
				i++
			}
		case strings.HasPrefix(a, "-"):
			for j := 1; j < len(a); j++ {
				if a[j] == 'E' {
					return why
				}
				if strings.IndexByte("CGgpqstUuoOkD", a[j]) >= 0 {
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
		default:
			for j := 0; j < len(a); j++ {
				if a[j] == 'e' {
					return why
				}
				if strings.IndexByte("oOpqtUk", a[j]) >= 0 {
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
		}
	}
	return ""
}

var psLongValue = map[string]bool{
	"format": true, "sort": true, "pid": true, "ppid": true, "quick-pid": true, "sid": true, "tty": true,
	"user": true, "User": true, "group": true, "Group": true, "cols": true, "columns": true, "rows": true,
	"lines": true, "width": true, "context": false,
}

// Interpreters: the code given inline names the environment.
var interpEnvRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`environ|getenv|get_env|getEnv|ENV|\benv\b|printenv|\$_SERVER`)
})

func envInterp(prog string, args []string) string {
	why := prog + " runs inline code that reads the environment"
	ic := inlineCode[prog]
	flags := ic.inline
	long := append([]string{"--eval", "--print"}, ic.longInline...)
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, glued := strings.Cut(a, "=")
		var code string
		switch {
		case slices.Contains(long, a):
			if i+1 < len(args) {
				code = args[i+1]
			}
		case glued && slices.Contains(long, name):
			code = value
		case ic.sub["eval"] != "" && a == "eval":
			code = strings.Join(args[i+1:], " ")
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--"):
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(flags, a[j]) >= 0 {
					code = a[j+1:]
					if code == "" && i+1 < len(args) {
						code = args[i+1]
					}
					break
				}
			}
		}
		if code != "" && (strings.Contains(code, Dynamic) || interpEnvRE().MatchString(code)) {
			return why
		}
	}
	return ""
}
