package paths

import (
	"strings"
)

// Readings are what a Claude Code path-rule pattern (the content of
// Read(...), Edit(...), Write(...)) stands for, as patterns for CompileRule
// (absolute "/x", "~/x" at the home, "./x" at the call's cwd): Narrow is
// Claude Code's documented reading only, for allow rules; Wide is every
// reading the documentation leaves open, for deny and ask rules. Notes say
// why the two differ, for `permopa rules lint`. docs/rules.md has the
// table this implements.
type Readings struct {
	Narrow, Wide []string
	Notes        []string
}

// ClaudeReadings reads a Claude Code path-rule pattern the way Claude Code
// documents it (gitignore patterns):
//
//	"//x"        x from the file-system root
//	"~/x", "~"   x from the home directory
//	"/x"         x from the project root: project, the directory holding
//	             the .permopa/ (or .claude/) of the settings file
//	"x", "./x"   x from the current directory
//
// and, as in gitignore, "*" and "?" stay within a segment, "**" crosses
// segments, a trailing "/" names a directory and what is below it, and a
// pattern that names a directory also covers what is below it.
//
// Where a pattern can be read two ways, Wide holds both:
//
//   - "/x" may have been meant as an absolute path: Wide also reads it from
//     the root. When project is "" (not known) the call's cwd stands in for
//     the project; when the rule is not the project's own (own false: user,
//     managed or command-line settings, which apply to any project), Wide
//     also reads it from the call's cwd.
//   - "x" or "./x" without a "/" inside (".env", "*.pem", "build/") matches
//     at any depth below the cwd in gitignore, but the documentation's table
//     reads it at the cwd only: Narrow takes the cwd, Wide any depth.
//   - "**/x" is below the cwd in gitignore and anywhere in permopa's older
//     reading: Wide takes anywhere.
//   - "{a,b}" is literal in gitignore and a choice in doublestar: Narrow
//     takes it literally, Wide both ways.
//   - a pattern naming a directory covers what is below it (gitignore
//     ignores a directory's contents with it): Wide adds "/**"; Narrow
//     only where the pattern ends in "/".
func ClaudeReadings(pattern, project string, own bool) Readings {
	var r Readings
	note := func(s string) { r.Notes = append(r.Notes, s) }
	p := pattern
	var narrowBase string
	var wideBases []string
	anywhere := false // unanchored: any depth below the base in gitignore
	rest := p
	switch {
	case strings.HasPrefix(p, "//"):
		narrowBase, rest = "/", p[2:]
		wideBases = []string{"/"}
	case p == "~" || strings.HasPrefix(p, "~/"):
		narrowBase, rest = "~/", strings.TrimPrefix(strings.TrimPrefix(p, "~"), "/")
		wideBases = []string{"~/"}
	case strings.HasPrefix(p, "/"):
		rest = p[1:]
		if project != "" {
			narrowBase = escapeGlob(strings.TrimSuffix(project, "/")) + "/"
		} else {
			narrowBase = "./"
		}
		wideBases = []string{narrowBase, "/"}
		if project != "" && !own {
			wideBases = append(wideBases, "./")
		}
		note("\"/" + rest + "\" is relative to the project root in Claude Code (" + orCwd(project) + "), not absolute: write \"//" + rest + "\" for an absolute path; deny and ask rules are read both ways, allow rules only from the project")
	case strings.HasPrefix(p, "**/") || p == "**":
		narrowBase, rest = "./", p
		wideBases = []string{"/"}
		note("\"" + p + "\" is below the current directory in Claude Code; deny and ask rules read it anywhere")
	default:
		rest = strings.TrimPrefix(p, "./")
		narrowBase = "./"
		wideBases = []string{"./"}
		inner := strings.TrimSuffix(rest, "/")
		if !strings.Contains(inner, "/") && inner != "" && inner != "." && inner != ".." {
			anywhere = true
			note("\"" + p + "\" has no \"/\" inside: gitignore matches it at any depth below the current directory, the Claude Code documentation at the current directory only; deny and ask rules match at any depth, allow rules at the current directory only")
		}
	}
	dir := strings.HasSuffix(p, "/")
	rest = strings.TrimSuffix(rest, "/")
	braces := hasUnescaped(rest, '{')
	if braces {
		note("\"{\" is literal in gitignore (Claude Code) but a choice of alternatives in permopa's globs; allow rules read it literally, deny and ask rules both ways")
	}
	if strings.HasPrefix(rest, "!") {
		note("a leading \"!\" negates a gitignore pattern; in a rule it is read literally")
	}

	join := func(b, x string) string {
		if x == "" {
			if b == "./" {
				return "."
			}
			if b == "~/" {
				return "~"
			}
			return strings.TrimSuffix(b, "/") + "/"
		}
		return b + x
	}
	variants := func(x string, literal bool) []string {
		if !braces {
			return []string{x}
		}
		lit := escapeBraces(x)
		if literal {
			return []string{lit}
		}
		return []string{x, lit}
	}
	// Narrow: the documented reading.
	n := join(narrowBase, rest)
	if dir {
		n = strings.TrimSuffix(n, "/") + "/**"
	}
	if n == "/" {
		n = "/**"
	}
	r.Narrow = variants(n, true)
	// Wide: every reading, each covering what lies below what it names.
	seen := map[string]bool{}
	for _, b := range wideBases {
		x := rest
		if anywhere {
			x = "**/" + x
		}
		w := join(b, x)
		if w != "/**" && !strings.HasSuffix(w, "/**") {
			w = strings.TrimSuffix(w, "/") + "/**"
		}
		for _, v := range variants(w, false) {
			if !seen[v] {
				seen[v] = true
				r.Wide = append(r.Wide, v)
			}
		}
	}
	return r
}

func orCwd(project string) string {
	if project == "" {
		return "the current directory stands in for it"
	}
	return project
}

func hasUnescaped(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == c {
			return true
		}
	}
	return false
}

func escapeBraces(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			b.WriteByte(s[i])
			b.WriteByte(s[i+1])
			i++
			continue
		}
		if s[i] == '{' || s[i] == '}' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
