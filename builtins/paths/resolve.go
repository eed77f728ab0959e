package paths

import (
	"os"
	"os/user"
	"path"
	"strings"
	"sync"

	"github.com/permopa/permopa/builtins/internal/lru"
)

// Resolved is one path in its two forms.
type Resolved struct {
	// Abs is the lexical absolute path: ~ and $HOME expanded, joined to the
	// cwd when relative, cleaned ("/proj/../etc" is "/etc").
	Abs string
	// Real is the path the kernel would reach: every existing symlink along
	// the way resolved, ".." applied after resolution, the part that does not
	// exist yet appended. It equals Abs when no symlink is involved.
	Real string
	// Unknown says why the file the kernel reaches cannot be known
	// statically ("" when it can): the path goes through another
	// process's root directory, a process's working directory or open
	// files (see procStep). Real is then a best guess (the cwd for a
	// working directory, "/" for a root), for deny and ask rules; checks
	// that protect something treat the path as a credential path, checks
	// that grant something never grant it.
	Unknown string
	// Tail is, for a path through a working directory or an open file
	// (Unknown), the part of it below that unknown directory ("" when
	// none): the file is Tail in some directory. Deny and ask rules that
	// could match a path ending in Tail hit it (RuleSet.MatchTargets).
	Tail string
}

// maxSymlinks bounds the symlinks followed while resolving one path (Linux uses 40).
const maxSymlinks = 255

var userHome = sync.OnceValue(func() string {
	h, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return h
})

// Abs returns the lexical absolute form of p:
//
//   - "~", "~/x", "$HOME", "$HOME/x", "${HOME}" and "${HOME}/x" start at home
//     ("~user" is not expanded: it is a relative name, as bash leaves it when
//     the user does not exist);
//   - a relative path is joined to cwd;
//   - the result is cleaned lexically.
//
// An empty home falls back to the home directory of the process; an empty or
// relative cwd is taken relative to "/". An empty p is cwd itself.
func Abs(p, cwd, home string) string {
	return path.Clean(joined(p, cwd, home))
}

// joined is Abs before cleaning.
func joined(p, cwd, home string) string {
	if _, rest, ok := homePrefix(p); ok {
		if h := normHome(home); h != "" {
			return h + "/" + rest
		}
	}
	if strings.HasPrefix(p, "/") {
		return p
	}
	return absDir(cwd, home) + "/" + p
}

// normHome returns the cleaned absolute home, or "" when none is known.
func normHome(home string) string {
	if home == "" {
		home = userHome()
	}
	if home == "" {
		return ""
	}
	return path.Clean("/" + home)
}

// absDir turns a cwd into a cleaned absolute directory.
func absDir(cwd, home string) string {
	if cwd == "" {
		return "/"
	}
	if _, rest, ok := homePrefix(cwd); ok {
		if h := normHome(home); h != "" {
			return path.Clean(h + "/" + rest)
		}
	}
	return path.Clean("/" + cwd)
}

// homePrefix splits a path that starts at the home directory into the prefix
// and the rest ("~/a/b" → "~", "a/b").
func homePrefix(p string) (prefix, rest string, ok bool) {
	for _, h := range [...]string{"~", "$HOME", "${HOME}"} {
		if strings.HasPrefix(p, h) && (len(p) == len(h) || p[len(h)] == '/') {
			return h, strings.TrimPrefix(p[len(h):], "/"), true
		}
	}
	return "", "", false
}

// Resolve returns both forms of p (see Resolved). real is abs when no
// symlink is involved, or when the symlinks form a loop.
func Resolve(p, cwd, home string) (abs, real string) {
	r := ResolvePath(p, cwd, home)
	return r.Abs, r.Real
}

// ResolvePath is Resolve returning a Resolved.
func ResolvePath(p, cwd, home string) Resolved {
	// The real path is walked from the joined path before lexical cleaning,
	// so that "link/.." means what the kernel makes of it.
	raw := joined(p, cwd, home)
	abs := path.Clean(raw)
	real, unknown, tail, ok := realPathTail(raw, absDir(cwd, home))
	if !ok {
		real = abs
	}
	r := Resolved{Abs: abs, Real: real, Unknown: unknown}
	if unknown != "" {
		r.Tail = tail
	}
	return r
}

// tailBelow returns what rest, the part of a path below a working
// directory or an open file of /proc, names below it: its ".." applied
// (one above the unknown directory is dropped: it stays unknown), "" when
// it names nothing below it.
func tailBelow(rest string) string {
	var tail []string
	for _, s := range strings.Split(rest, "/") {
		switch s {
		case "", ".":
		case "..":
			if len(tail) > 0 {
				tail = tail[:len(tail)-1]
			}
		default:
			tail = append(tail, s)
		}
	}
	return strings.Join(tail, "/")
}

// afterFirstSegment drops the first segment of rest that is not empty or
// "." (the number after /proc/PID/fd).
func afterFirstSegment(rest string) string {
	for rest != "" {
		var seg string
		seg, rest, _ = strings.Cut(rest, "/")
		if seg != "" && seg != "." {
			return rest
		}
	}
	return ""
}

// RealPath resolves every existing symlink of the absolute path p, like
// filepath.EvalSymlinks, but a path that does not exist (yet) is not an
// error: resolution stops being able to follow links at the first missing
// component, and the remaining components are applied lexically, as mkdir -p
// would create them. ok is false on a symlink loop.
//
// Paths below /proc (and /dev/fd, /dev/stdin, /dev/stdout, /dev/stderr,
// its other names) are resolved by procStep, never through the magic
// links of permopa's own process; a process's working directory is not
// known here and stays as written.
func RealPath(p string) (real string, ok bool) {
	real, _, ok = realPath(p, "")
	return real, ok
}

// realPath is RealPath taking a process's working directory to be cwd
// ("" when unknown), and saying why the result is not certain (see
// Resolved.Unknown).
func realPath(p, cwd string) (real, unknown string, ok bool) {
	real, unknown, _, ok = realPathTail(p, cwd)
	return real, unknown, ok
}

// realPathTail is realPath also returning, for a path through a working
// directory or an open file of /proc (unknown), what it names below the
// last such link (Resolved.Tail).
func realPathTail(p, cwd string) (real, unknown, tail string, ok bool) {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if procLike(p) {
		// /proc is resolved lexically (see procStep), never through the
		// magic links of this process.
		r := resolver{cwd: cwd}
		real, ok = r.walk("/", p, 0)
		return real, r.unknown, r.tail, ok
	}
	// Fast paths for a clean path: the kernel may confirm in one call that
	// no symlink is involved; else the path is walked prefix by prefix
	// without building strings, up to the first symlink.
	if p == path.Clean(p) {
		if symlinkFree(p) {
			return p, "", "", true
		}
		for i := 1; i <= len(p); i++ {
			if i < len(p) && p[i] != '/' {
				continue
			}
			fi, err := os.Lstat(p[:i])
			if err != nil {
				// Nothing below a missing component exists: no symlink further on.
				return p, "", "", true
			}
			if fi.Mode()&os.ModeSymlink != 0 {
				target, err := os.Readlink(p[:i])
				if err != nil {
					return p, "", "", true
				}
				dest := path.Dir(p[:i])
				if strings.HasPrefix(target, "/") {
					dest = "/"
				}
				r := resolver{cwd: cwd}
				real, ok = r.walk(dest, target+p[i:], 1)
				return real, r.unknown, r.tail, ok
			}
		}
		return p, "", "", true
	}
	r := resolver{cwd: cwd}
	real, ok = r.walk("/", p, 0)
	return real, r.unknown, r.tail, ok
}

// procLike reports whether p lies below /proc, or is one of the names
// /dev gives to a process's open files.
func procLike(p string) bool {
	for _, d := range [...]string{"/proc", "/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr"} {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// resolver is one resolution: the working directory a process's cwd link
// is taken to be, and why the result is not certain.
type resolver struct {
	cwd     string
	unknown string
	tail    string // Resolved.Tail
}

// walk resolves rest below dest, a resolved directory, component by
// component; links symlinks were already followed.
func (r *resolver) walk(dest, rest string, links int) (string, bool) {
	expanded := links > 0
	for rest != "" {
		if expanded {
			// A symlink was just followed: the kernel may confirm in one call
			// that the rest has none (a symlinked home or workdir, say).
			expanded = false
			if !strings.Contains(rest, "..") {
				if cand := path.Clean(dest + "/" + rest); !procLike(cand) && symlinkFree(cand) {
					return cand, true
				}
			}
		}
		var comp string
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			comp, rest = rest[:i], rest[i+1:]
		} else {
			comp, rest = rest, ""
		}
		switch comp {
		case "", ".":
			continue
		case "..":
			dest = procParent(dest)
			continue
		}
		next := dest + "/" + comp
		if dest == "/" {
			next = "/" + comp
		}
		if d, ok := devFdStep(dest, comp); ok {
			// /dev/fd is /proc/self/fd, /dev/stdin /proc/self/fd/0, ...
			// also where /dev does not have them.
			dest = "/"
			if rest == "" {
				rest = d
			} else {
				rest = d + "/" + rest
			}
			continue
		}
		if d, follow, why, ok := procStep(dest, comp, r.cwd); ok {
			if why != "" && r.unknown == "" {
				r.unknown = why
			}
			// The file is Tail below the last working directory or open
			// file the path goes through (a shorter tail is matched by more
			// rules).
			switch {
			case why != "" && comp == "cwd":
				r.tail = tailBelow(rest)
			case why != "" && comp == "fd":
				r.tail = tailBelow(afterFirstSegment(rest))
			}
			if follow == "" {
				dest = d
				continue
			}
			// A working directory: resolved as a symlink to it, so that
			// ".." after it goes to its parent, as the kernel goes.
			links++
			if links > maxSymlinks {
				return "", false
			}
			dest = "/"
			if rest == "" {
				rest = follow
			} else {
				rest = follow + "/" + rest
			}
			expanded = true
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			dest = next
			continue
		}
		links++
		if links > maxSymlinks {
			return "", false
		}
		target, err := os.Readlink(next)
		if err != nil {
			dest = next
			continue
		}
		if strings.HasPrefix(target, "/") {
			dest = "/"
		}
		if rest == "" {
			rest = target
		} else {
			rest = target + "/" + rest
		}
		expanded = true
	}
	return dest, true
}

// Within reports whether p is dir or below it. Both must be clean and absolute.
// "/proj-evil" is not within "/proj".
func Within(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir) && (len(p) == len(dir) || p[len(dir)] == '/')
}

// Inside reports whether p lies inside one of dirs. Both sides are resolved
// (see Resolved) against cwd and home, and the rule is:
//
//	real(p) is within real(d) for some dir d.
//
// What the kernel reaches must be inside a working directory: a symlink
// inside a working directory that points out is not inside, a path whose
// ".." reads differently lexically and physically is judged physically, a
// working directory that is itself a symlink contains what it points to,
// and a path spelled through a symlink to a working directory (/L/x with
// /L → /R, as /tmp is /private/tmp on macOS) is inside /R: both sides are
// compared after resolution. An empty p, or no dirs, is not inside.
func Inside(p string, dirs []string, cwd, home string) bool {
	if p == "" || len(dirs) == 0 {
		return false
	}
	r := ResolvePath(p, cwd, home)
	ds := make([]Resolved, 0, 4)
	for _, d := range dirs {
		if d == "" {
			continue
		}
		ds = append(ds, ResolvePath(d, cwd, home))
	}
	return InsideResolved(r, ds)
}

// InsideResolved is Inside on resolved paths.
func InsideResolved(p Resolved, dirs []Resolved) bool {
	if p.Unknown != "" {
		return false // what the kernel reaches is not known
	}
	for _, d := range dirs {
		if Within(p.Real, d.Real) {
			return true
		}
	}
	return false
}

// procStep resolves one component below /proc without the file system
// (docs/rules.md, "Paths that reach the same file by another road"). The
// links there are magic: /proc/self is whichever process opens the path
// (the agent's command or host, not permopa), /proc/PID/root is the root
// directory of process PID and /proc/PID/cwd its working directory.
//
//   - "root" after a process directory (or a task directory) resolves to
//     "/": /proc/self/root/etc/shadow is /etc/shadow. For another process
//     (a number, or a glob standing for one) that holds only within one
//     mount namespace, so the result is also unknown.
//   - "cwd" is followed to cwd (follow), and is unknown: which directory a
//     process works in when it opens the path is not known statically (the
//     bash analyser resolves /proc/self/cwd of a command itself, from the
//     directory the command runs in). Without a cwd it stays as written.
//   - "fd" (open files) stays as written and is unknown.
//
// Every other component stays as written (no link of permopa's own process
// is followed); what it can reach (environ, mem, map_files) is classified
// by the credential list (secrets.go). ok is false outside /proc.
func procStep(dest, comp, cwd string) (next, follow, unknown string, ok bool) {
	if dest != "/proc" && !strings.HasPrefix(dest, "/proc/") {
		return "", "", "", false
	}
	if !procProcessDir(dest) {
		return dest + "/" + comp, "", "", true
	}
	self := procSelf(dest)
	switch comp {
	case "root":
		if self {
			return "/", "", "", true
		}
		return "/", "", "reaches through " + dest + "/root, the root directory of another process (not known statically)", true
	case "cwd":
		why := "reaches through " + dest + "/cwd, the working directory of the process that opens it (not known statically)"
		if !self {
			why = "reaches through " + dest + "/cwd, the working directory of another process (not known statically)"
		}
		if cwd == "" {
			return dest + "/" + comp, "", why, true
		}
		return "", cwd, why, true
	case "fd":
		return dest + "/" + comp, "", "reaches through " + dest + "/fd, the open files of a process (not known statically)", true
	}
	return dest + "/" + comp, "", "", true
}

// procParent is the parent of the resolved directory dest as the kernel
// finds it. /proc's own links are not followed through permopa's process
// (procStep), so the two whose target is deeper than one level are
// followed here by name: /proc/thread-self is PID/task/TID, so its ".." is
// /proc/self/task, and /proc/net is self/net, so its ".." is /proc/self
// (/proc/thread-self/../../cwd is the opening process's cwd;
// docs/reads.md, "One resolution").
func procParent(dest string) string {
	switch dest {
	case "/proc/thread-self":
		return "/proc/self/task"
	case "/proc/net":
		return "/proc/self"
	}
	return path.Dir(dest)
}

// procSelf reports whether the process directory d is the opening process
// itself (/proc/self, /proc/thread-self, or a task of /proc/self).
func procSelf(d string) bool {
	segs := strings.Split(strings.TrimPrefix(d, "/proc/"), "/")
	return segs[0] == "self" || segs[0] == "thread-self"
}

// devFdStep gives the /proc name of /dev/fd, /dev/stdin, /dev/stdout and
// /dev/stderr (ok false for every other component).
func devFdStep(dest, comp string) (string, bool) {
	if dest != "/dev" {
		return "", false
	}
	switch comp {
	case "fd":
		return "/proc/self/fd", true
	case "stdin":
		return "/proc/self/fd/0", true
	case "stdout":
		return "/proc/self/fd/1", true
	case "stderr":
		return "/proc/self/fd/2", true
	}
	return "", false
}

// procProcessDir reports whether d is /proc/X or /proc/X/task/Y.
func procProcessDir(d string) bool {
	rest, ok := strings.CutPrefix(d, "/proc/")
	if !ok || rest == "" {
		return false
	}
	segs := strings.Split(rest, "/")
	return len(segs) == 1 || len(segs) == 3 && segs[1] == "task"
}

// OtherRoads returns the other forms under which the kernel reaches the
// file p names, beyond the lexical and symlink-resolved ones of
// ResolvePath (whose Real form already reads /proc/<pid>/root as "/", see
// procStep): "~name/x" is x in the home of user name, as bash expands it
// when the user exists. Each form is resolved as ResolvePath does. Checks
// that protect something (deny and ask rules) hit when any form does;
// checks that grant something need every form to pass.
func OtherRoads(p, cwd, home string, r Resolved) []Resolved {
	name, rest, ok := tildeUser(p)
	if !ok {
		return nil
	}
	h := LookupHome(name)
	if h == "" {
		return nil
	}
	x := path.Clean(h + "/" + rest)
	if x == r.Abs || x == r.Real {
		return nil
	}
	real, unknown, ok := realPath(x, absDir(cwd, home))
	if !ok {
		real = x
	}
	return []Resolved{{Abs: x, Real: real, Unknown: unknown}}
}

// UserHome is the home of user name as bash expands "~name" ("" when name
// is not a user name or there is no such user).
func UserHome(name string) string {
	if _, _, ok := tildeUser("~" + name); !ok || strings.Contains(name, "/") {
		return ""
	}
	return LookupHome(name)
}

// tildeUser splits "~name/rest" (name a user name as bash reads it).
func tildeUser(p string) (name, rest string, ok bool) {
	if !strings.HasPrefix(p, "~") {
		return "", "", false
	}
	name, rest, _ = strings.Cut(p[1:], "/")
	if name == "" || name == "+" || name == "-" {
		return "", "", false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c == '-' || c == '.' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "", "", false
		}
	}
	return name, rest, true
}

// LookupHome is the home directory of user name, as bash expands "~name",
// "" when there is no such user. Answers are kept: the user database rarely
// changes while permopa runs.
func LookupHome(name string) string {
	if h, ok := homes.Get(name); ok {
		return h
	}
	h := ""
	if u, err := user.Lookup(name); err == nil && strings.HasPrefix(u.HomeDir, "/") {
		h = u.HomeDir
	}
	homes.Put(name, h)
	return h
}

var homes = lru.New[string, string](1024) // user name → home ("" when unknown)

// Spellings returns the spellings of the absolute, joined but not cleaned
// path p that the path built-ins must be given to resolve p as the kernel
// does (docs/reads.md, "One resolution"), for a caller that reports paths
// without reading the file system (the bash analyser, whose analyses are
// cached across calls):
//
//   - p cleaned lexically;
//   - p with its ".." segments kept (only empty and "." segments dropped)
//     when a ".." follows another segment: "link/.." is the parent of the
//     link's target, which ResolvePath finds on disk;
//   - for a path through the opening process's own working directory
//     (/proc/self/cwd, /proc/thread-self/cwd, /proc/self/task/T/cwd), the
//     rest of it in each of dirs, the directories the process may work in
//     (none when not known), in both forms. The spelling through /proc
//     stays too: ResolvePath flags it as not known statically.
func Spellings(p string, dirs []string) []string {
	out := appendSpellings(nil, p)
	if rest, ok := procSelfCwd(p); ok {
		for _, d := range dirs {
			out = appendSpellings(out, d+"/"+rest)
		}
	}
	return out
}

func appendSpellings(out []string, p string) []string {
	add := func(s string) {
		for _, x := range out {
			if x == s {
				return
			}
		}
		out = append(out, s)
	}
	add(path.Clean(p))
	if phys, ok := physicalSpelling(p); ok {
		add(phys)
	}
	return out
}

// physicalSpelling drops the empty and "." segments of the absolute path p
// and keeps its ".." segments; ok is false when no ".." follows another
// segment (lexical cleaning then means what the kernel does).
func physicalSpelling(p string) (string, bool) {
	segs := make([]string, 0, 8)
	popped := false
	for _, s := range strings.Split(p, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			popped = popped || len(segs) > 0 && segs[len(segs)-1] != ".."
		}
		segs = append(segs, s)
	}
	if !popped {
		return "", false
	}
	return "/" + strings.Join(segs, "/"), true
}

// procSelfCwd returns the rest of p below the opening process's own
// working directory link, if p goes through one.
func procSelfCwd(p string) (string, bool) {
	segs := strings.Split(p, "/")
	var clean []string
	for _, s := range segs {
		if s != "" && s != "." {
			clean = append(clean, s)
		}
	}
	if len(clean) < 3 || clean[0] != "proc" {
		return "", false
	}
	n := 0
	switch {
	case (clean[1] == "self" || clean[1] == "thread-self") && clean[2] == "cwd":
		n = 3
	case clean[1] == "self" && len(clean) >= 5 && clean[2] == "task" && clean[4] == "cwd":
		n = 5
	default:
		return "", false
	}
	for _, s := range clean[:n] {
		if s == ".." {
			return "", false
		}
	}
	return strings.Join(clean[n:], "/"), true
}
