package makefile

import (
	"fmt"
	"path/filepath"
	"strings"
)

// makeOption is one of GNU make's options: whether it takes a value
// (required, optional) and what it changes here.
type makeOption struct {
	long     string
	short    byte
	arg      int // 0 none, 1 required, 2 optional (glued or, for -j/-l, a following number)
	effect   string
	whyNotOK string
}

var makeOptions = []makeOption{
	{"always-make", 'B', 0, "", ""},
	{"directory", 'C', 1, "dir", ""},
	{"debug", 0, 2, "", ""},
	{"", 'd', 0, "", ""},
	{"environment-overrides", 'e', 0, "", "-e lets the environment override the makefile's variables"},
	{"eval", 'E', 1, "", "--eval evaluates makefile code"},
	{"file", 'f', 1, "file", ""},
	{"makefile", 0, 1, "file", ""},
	{"help", 'h', 0, "info", ""},
	{"ignore-errors", 'i', 0, "", ""},
	{"include-dir", 'I', 1, "", "-I adds directories make searches for included makefiles"},
	{"jobs", 'j', 2, "", ""},
	{"jobserver-auth", 0, 1, "", ""},
	{"jobserver-style", 0, 1, "", ""},
	{"keep-going", 'k', 0, "", ""},
	{"load-average", 'l', 2, "", ""},
	{"max-load", 0, 2, "", ""},
	{"check-symlink-times", 'L', 0, "", ""},
	{"just-print", 'n', 0, "", ""},
	{"dry-run", 0, 0, "", ""},
	{"recon", 0, 0, "", ""},
	{"old-file", 'o', 1, "", ""},
	{"assume-old", 0, 1, "", ""},
	{"output-sync", 'O', 2, "", ""},
	{"print-data-base", 'p', 0, "", ""},
	{"question", 'q', 0, "", ""},
	{"no-builtin-rules", 'r', 0, "r", ""},
	{"no-builtin-variables", 'R', 0, "R", ""},
	{"shuffle", 0, 2, "", ""},
	{"silent", 's', 0, "", ""},
	{"quiet", 0, 0, "", ""},
	{"no-silent", 0, 0, "", ""},
	{"no-keep-going", 'S', 0, "", ""},
	{"stop", 0, 0, "", ""},
	{"touch", 't', 0, "", ""},
	{"trace", 0, 0, "", ""},
	{"version", 'v', 0, "info", ""},
	{"print-directory", 'w', 0, "", ""},
	{"no-print-directory", 0, 0, "", ""},
	{"what-if", 'W', 1, "", ""},
	{"new-file", 0, 1, "", ""},
	{"assume-new", 0, 1, "", ""},
	{"warn-undefined-variables", 0, 0, "", ""},
	{"", 'b', 0, "", ""},
	{"", 'm', 0, "", ""},
}

// ParseArgs reads make's argv (argv[0] is the program) run in the
// directory cwd (absolute), as GNU make's getopt_long reads it: clustered
// short options, glued values, `--opt=V`, unambiguous abbreviations of long
// options, options after operands, `--`. Operands are targets and
// VAR=value assignments. Info is set for --help and --version, which run
// nothing.
func ParseArgs(argv []string, cwd string) (inv Invocation, info bool) {
	inv.Dir = cwd
	if len(argv) > 0 {
		inv.Program = argv[0]
	}
	uncertain := func(format string, a ...any) {
		if inv.Uncertain == "" {
			inv.Uncertain = fmt.Sprintf(format, a...)
		}
	}
	apply := func(o makeOption, val string) {
		if o.whyNotOK != "" {
			uncertain("%s", o.whyNotOK)
		}
		switch o.effect {
		case "dir":
			if val == "" {
				uncertain("make -C needs a directory")
			}
			if strings.HasPrefix(val, "~") {
				uncertain("make -C %s: a home directory is not modelled", val)
			}
			if filepath.IsAbs(val) {
				inv.Dir = filepath.Clean(val)
			} else {
				inv.Dir = filepath.Join(inv.Dir, val)
			}
		case "file":
			if val == "-" || val == "" || strings.HasPrefix(val, "/dev/") || strings.HasPrefix(val, "/proc/") {
				uncertain("make -f %s: the makefile is no file permopa can read", printable(val))
			}
			inv.Files = append(inv.Files, val)
		case "r":
			inv.NoBuiltinRules = true
		case "R":
			inv.NoBuiltinVars, inv.NoBuiltinRules = true, true
		case "info":
			info = true
		}
	}
	noMore := false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case noMore || a == "-" || !strings.HasPrefix(a, "-"):
			operand(&inv, a, uncertain)
		case a == "--":
			noMore = true
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			o, ok := longOption(name)
			if !ok {
				uncertain("make does not know the option --%s", name)
				continue
			}
			switch {
			case o.arg == 0 && hasVal:
				uncertain("make's --%s takes no value", o.long)
			case o.arg == 1 && !hasVal:
				if i+1 >= len(argv) {
					uncertain("make's --%s needs a value", o.long)
					continue
				}
				i++
				val = argv[i]
			}
			apply(o, val)
		default:
			for j := 1; j < len(a); j++ {
				o, ok := shortOption(a[j])
				if !ok {
					uncertain("make does not know the option -%c", a[j])
					break
				}
				val := ""
				switch o.arg {
				case 1:
					val = a[j+1:]
					if val == "" {
						if i+1 >= len(argv) {
							uncertain("make's -%c needs a value", o.short)
							break
						}
						i++
						val = argv[i]
					}
					j = len(a)
				case 2:
					val = a[j+1:]
					if val == "" && (o.short == 'j' || o.short == 'l') && i+1 < len(argv) && isNumber(argv[i+1]) {
						i++
						val = argv[i]
					}
					j = len(a)
				}
				apply(o, val)
			}
		}
	}
	return inv, info
}

// operand is a target or a VAR=value assignment.
func operand(inv *Invocation, a string, uncertain func(string, ...any)) {
	if i := strings.IndexByte(a, '='); i > 0 {
		name, op := a[:i], "="
		for _, p := range []string{":::", "::", ":", "+", "?", "!"} {
			if strings.HasSuffix(name, p) {
				name, op = strings.TrimSuffix(name, p), p+"="
				break
			}
		}
		name = trimSpace(name)
		switch {
		case name == "" || strings.ContainsAny(name, " \t$"):
			uncertain("the assignment %s on make's command line is not modelled", printable(a))
		case op != "=" && (op != ":=" && op != "::=" || strings.Contains(a[i+1:], "$")):
			uncertain("the assignment %s on make's command line is not modelled", printable(a))
		default:
			if inv.Vars == nil {
				inv.Vars = map[string]string{}
			}
			inv.Vars[name] = a[i+1:]
		}
		return
	}
	inv.Targets = append(inv.Targets, a)
}

func longOption(name string) (makeOption, bool) {
	var found []makeOption
	for _, o := range makeOptions {
		if o.long == "" {
			continue
		}
		if o.long == name {
			return o, true
		}
		if strings.HasPrefix(o.long, name) && name != "" {
			found = append(found, o)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return makeOption{}, false
}

func shortOption(c byte) (makeOption, bool) {
	for _, o := range makeOptions {
		if o.short == c {
			return o, true
		}
	}
	return makeOption{}, false
}

// isNumber reports whether s is the number -j or -l takes as the next
// argument (-l takes a fraction too).
func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789.") == "" && strings.Count(s, ".") <= 1 && s != "."
}
