package paths

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"

	"github.com/permopa/permopa/builtins/internal/lru"
)

// Recursive reads. A command that reads a directory tree (grep -r KEY ~,
// tar czf x ~, find ~ -exec cat {} +) reads every credential below its
// root. CheckTree answers whether a tree holds a credential path, in three
// steps, cheapest first:
//
//  1. The root itself is a credential path (grep -r x ~/.ssh).
//  2. The root is an ancestor of a well-known credential location: the
//     home directory's secret stores (~/.ssh, ~/.aws, ~/.netrc, …) and the
//     system's (/etc/shadow, /etc/ssl/private, /proc/PID/environ, …). This
//     is lexical: it holds whether or not permopa can see the files. Only a
//     program that skips hidden entries (rg without --hidden) is taken not
//     to reach a location whose path below the root has one (~/.ssh).
//  3. Credential names that can be anywhere (.env, id_rsa*, a .ssh or .aws
//     directory inside a project): a bounded walk of the tree as the
//     program would walk it (hidden entries only when it reads them, minus
//     the directories it excludes and the names its ignore files list)
//     classifies every entry. The walk reads at most MaxTreeEntries
//     directory entries; a larger tree is Unknown (not read-only, never
//     auto-allowed: see docs/reads.md, "Recursive reads").
//
// A tree that lists names only (ls -R, find, tree, du -a, the Glob tool)
// reads a credential directory it lists the contents of, not a credential
// file whose name it prints: `find . -name '*.go'` in a project with a
// .env stays read-only, `ls -R ~` does not.

// MaxTreeEntries bounds the directory entries one tree walk reads.
const MaxTreeEntries = 20000

// treeBudget is MaxTreeEntries; tests lower it.
var treeBudget = MaxTreeEntries

// Tree is a directory tree a command reads below Root.
type Tree struct {
	Root Resolved
	// Hidden: entries whose names start with "." below the root are read.
	Hidden bool
	// NamesOnly: only names are printed, not the contents of files.
	NamesOnly bool
	// Ignores: names listed in .gitignore (inside a git work tree),
	// .ignore and .rgignore files are skipped, as ripgrep does.
	Ignores bool
	// ExcludeDirs are base-name globs of directories skipped (grep --exclude-dir).
	ExcludeDirs []string
	// Include and Exclude are base-name globs of files read and skipped;
	// with IncludeFirst a file matching neither is skipped (see skipsFile).
	Include, Exclude []string
	IncludeFirst     bool
	// MaxDepth is how many levels below the root are read; 0 is no limit.
	MaxDepth int
	// SkipsLinks: the program does not follow a symbolic link below the
	// root (find without -L, grep -r, rg without --follow, tree without
	// -l): the walk leaves links out. The root itself is always followed.
	// False (follow every link) is what an unknown program is taken to do.
	SkipsLinks bool
}

// reaches reports whether the program reads a location rel levels below
// the root: a file down to MaxDepth, a directory's contents only above it.
func (t *Tree) reaches(levels int, dir bool) bool {
	if t.MaxDepth <= 0 {
		return true
	}
	if dir {
		return levels < t.MaxDepth
	}
	return levels <= t.MaxDepth
}

// skipsFile reports whether the program skips the file name: it matches no
// include glob, and it matches an exclude glob or IncludeFirst is set (the
// last matching option wins in grep, so a name that matches an include is
// taken as read). A glob that cannot be read as path.Match reads it (brace
// alternatives) matches every name as an include and none as an exclude.
func (t *Tree) skipsFile(name string) bool {
	if len(t.Include) == 0 && len(t.Exclude) == 0 {
		return false
	}
	for _, g := range t.Include {
		if strings.ContainsAny(g, "{}") {
			return false
		}
		if ok, err := path.Match(g, name); err != nil || ok {
			return false
		}
	}
	return t.IncludeFirst || excluded(t.Exclude, name)
}

// TreeVerdict is what CheckTree found.
type TreeVerdict struct {
	// Credential: the tree holds a credential path the program reads.
	Credential bool
	// Unknown: the walk was cut short (or the tree could not be read), so
	// it cannot be shown that the tree holds no credential.
	Unknown bool
	// Path is the credential path found (or the root, when Unknown).
	Path string
	// Reason says why Path is a credential path, or why the tree is unknown.
	Reason string
}

// Entry is one path found below a tree's root.
type Entry struct {
	// Rel is the path below the root ("a/b").
	Rel string
	// Dir is true for a directory (a symlink to one included).
	Dir bool
	// Target is the resolved target of a symlink, "" otherwise.
	Target string
	// Unknown says why a symlink's target cannot be known statically (a
	// link to /proc/self/cwd/.. or /dev/fd/3): it may be anything.
	Unknown string
	// Special: a FIFO, socket or device (or a link to one), which a
	// program opening it by name may block on or read from a device.
	Special bool
}

// Listing is what a bounded walk of a tree found.
type Listing struct {
	Entries []Entry
	// Complete is false when the walk was cut short: more than
	// MaxTreeEntries entries, or a directory that could not be read.
	Complete bool
	// Why says why the walk is incomplete.
	Why string
	// Read is how many directory entries the walk read.
	Read int
}

// fixedLocation is a well-known credential location (step 2).
type fixedLocation struct {
	path string
	dir  bool
}

// System credential locations, as samples of their entries in secrets.go
// (a process id stands for every process); filtered by the classifier, so
// that a name removed in the settings stops counting.
// TestSystemLocationsAreTheSecretsList holds each sample to the lists and
// each system secret to a sample.
var systemLocations = []fixedLocation{
	{"/etc/shadow", false}, {"/etc/shadow-", false}, {"/etc/gshadow", false}, {"/etc/gshadow-", false},
	{"/etc/master.passwd", false}, {"/etc/security/opasswd", false}, {"/etc/ssl/private", true},
	{"/etc/ssh/ssh_host_ed25519_key", false}, {"/etc/krb5.keytab", false},
	{"/proc/1/environ", false}, {"/proc/1/mem", false}, {"/proc/1/cwd", true}, {"/proc/1/fd", true},
	{"/proc/1/map_files", true}, {"/proc/kcore", false}, {"/dev/mem", false}, {"/dev/kmem", false},
	{"/dev/port", false}, {"/dev/mapper", true}, {"/dev/disk", true}, {"/dev/block", true}, {"/dev/zvol", true},
	{"/root/.ssh", true}, {"/root/.aws", true}, {"/root/.gnupg", true},
	{"/run/secrets", true}, {"/var/run/secrets", true},
}

type homeKey struct {
	c    *Classifier
	home string
}

// homeLocs caches homeLocations per classifier and home.
var homeLocs = lru.New[homeKey, []fixedLocation](64)

// homeLocations returns the credential locations below home, sorted: every
// credential name of the classifier that is a literal path.
func (c *Classifier) homeLocations(home string) []fixedLocation {
	k := homeKey{c, home}
	if l, ok := homeLocs.Get(k); ok {
		return l
	}
	var out []fixedLocation
	add := func(set nameSet, dir bool) {
		for _, e := range set.single {
			if e.credential {
				out = append(out, fixedLocation{home + "/" + e.name, dir})
			}
		}
		for _, e := range set.multi {
			literal := e.credential && strings.HasPrefix(e.name, ".")
			for _, p := range e.parts {
				literal = literal && !p.glob
			}
			if literal {
				out = append(out, fixedLocation{home + "/" + e.name, dir})
			}
		}
	}
	add(c.files, false)
	add(c.dirs, true)
	slices.SortFunc(out, func(a, b fixedLocation) int { return strings.Compare(a.path, b.path) })
	homeLocs.Put(k, out)
	return out
}

// CheckTree says whether reading t reaches a credential path; home is the
// user's home directory (for step 2). list, when not nil, returns the walk
// of the tree (so that a caller can share it between checks); nil walks.
func (c *Classifier) CheckTree(t Tree, home string, list func() Listing) TreeVerdict {
	if c == nil {
		c = defaultClassifier()
	}
	// 1. The root itself; a root the kernel reaches through a link that
	// cannot be known statically fails closed.
	if t.Root.Unknown != "" {
		return TreeVerdict{Credential: true, Path: t.Root.Abs, Reason: t.Root.Unknown}
	}
	for _, p := range rootForms(t.Root) {
		if _, cred, why := c.Classify(p); cred {
			return TreeVerdict{Credential: true, Path: p, Reason: why}
		}
	}
	// 2. Well-known locations below the root.
	locs := systemLocations
	if h := normHome(home); h != "" && h != "/" {
		locs = slices.Concat(c.homeLocations(h), systemLocations)
	}
	if v, ok := c.fixedBelow(t, locs, rootForms(t.Root), 0); ok {
		return v
	}
	// 3. Credential names anywhere below the root.
	var l Listing
	if list != nil {
		l = list()
	} else {
		l = ListTree(t)
	}
	real := t.Root.Real
	for _, e := range l.Entries {
		p := real + "/" + e.Rel
		if real == "/" {
			p = "/" + e.Rel
		}
		if e.Unknown != "" && t.reaches(strings.Count(e.Rel, "/")+1, true) {
			return TreeVerdict{Credential: true, Path: p,
				Reason: "a symlink whose target cannot be known statically (" + e.Unknown + ")"}
		}
		if e.Target != "" && e.Dir {
			// A link to a directory that holds a well-known location
			// (a link to ~ inside the project).
			if v, ok := c.fixedBelow(t, locs, []string{e.Target}, strings.Count(e.Rel, "/")+1); ok {
				v.Reason += " (through the symlink " + p + ")"
				return v
			}
		}
		_, cred, why := c.Classify(p)
		if !cred && e.Target != "" {
			_, cred, why = c.Classify(e.Target)
			why += " (symlink target " + e.Target + ")"
		}
		if cred && (!t.NamesOnly || e.Dir) && t.reaches(strings.Count(e.Rel, "/")+1, e.Dir) {
			return TreeVerdict{Credential: true, Path: p, Reason: why}
		}
	}
	if !l.Complete {
		return TreeVerdict{Unknown: true, Path: real, Reason: l.Why}
	}
	return TreeVerdict{}
}

// fixedBelow finds a well-known credential location below one of roots
// that t reads; levels is how deep the roots lie below the tree's root.
func (c *Classifier) fixedBelow(t Tree, locs []fixedLocation, roots []string, levels int) (TreeVerdict, bool) {
	for _, l := range locs {
		if t.NamesOnly && !l.dir {
			continue
		}
		for _, p := range roots {
			below := Within(l.path, p) && l.path != p && (t.Hidden || !hiddenBelow(l.path, p)) &&
				t.reaches(levels+levelsBelow(l.path, p), l.dir)
			if !below && HasGlob(p) {
				below = globAncestor(p, l.path, t.Hidden)
			}
			if !below {
				continue
			}
			if _, cred, why := c.Classify(l.path); cred {
				return TreeVerdict{Credential: true, Path: l.path, Reason: why}, true
			}
		}
	}
	return TreeVerdict{}, false
}

// globAncestor reports whether the shell glob root can name a proper
// ancestor of loc (so that a tree read below "/home/*" reaches
// /home/u/.ssh), with no hidden segment between unless hidden.
func globAncestor(root, loc string, hidden bool) bool {
	for a := path.Dir(loc); ; a = path.Dir(a) {
		if ok, err := path.Match(root, a); err != nil || ok {
			if err != nil || hidden || !hiddenBelow(loc, a) {
				return true
			}
		}
		if a == "/" {
			return false
		}
	}
}

// levelsBelow returns how many segments p has below root.
func levelsBelow(p, root string) int {
	rel := strings.Trim(strings.TrimPrefix(p, root), "/")
	if rel == "" {
		return 0
	}
	return strings.Count(rel, "/") + 1
}

// hiddenBelow reports whether a segment of p below root starts with ".".
func hiddenBelow(p, root string) bool {
	rel := strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
	return strings.HasPrefix(rel, ".") || strings.Contains(rel, "/.")
}

func rootForms(r Resolved) []string {
	if r.Real == r.Abs || r.Real == "" {
		return []string{r.Abs}
	}
	return []string{r.Abs, r.Real}
}

// ListTree walks t below its real root the way the program would: hidden
// entries only when t.Hidden, minus the directories t.ExcludeDirs names
// and, with t.Ignores, the plain names listed in ignore files (see
// ignoreNames). A program that follows links (t.SkipsLinks false) reads
// what they point to: every symlink's target is reported and a symlink to
// a directory is walked as a tree of its own (each directory once); a
// link that loops is left out (the kernel refuses to open it: ELOOP). A
// program that skips links opens none below the root, and the walk leaves
// them out. At most MaxTreeEntries entries are read.
func ListTree(t Tree) Listing { return ListTreeWithin(t, treeBudget) }

// ListTreeWithin is ListTree reading at most limit entries (at most
// MaxTreeEntries): the callers of one decision share a budget.
func ListTreeWithin(t Tree, limit int) Listing {
	limit = min(limit, treeBudget)
	root := t.Root.Real
	if root == "" {
		root = t.Root.Abs
	}
	fi, err := os.Stat(root)
	if err != nil {
		// Nothing to read there (what the shell sees is what permopa sees:
		// docs/reads.md, "Recursive reads").
		if errors.Is(err, fs.ErrNotExist) {
			return Listing{Complete: true}
		}
		return Listing{Why: "its root cannot be read (" + err.Error() + ")"}
	}
	if !fi.IsDir() {
		return Listing{Complete: true}
	}
	inRepo := t.Ignores && inGitWorkTree(root)
	type dirItem struct {
		abs, rel string
		ignored  []string // inherited plain names to skip
		// whitelisted: an ignore file here or above has a "!" line,
		// which includes again what any ignore file or the hidden
		// filter skips (rg and ag: rg -l x read .env through an .ignore
		// holding !.env): nothing is skipped below.
		whitelisted bool
	}
	queue := []dirItem{{abs: root, whitelisted: t.Ignores && whitelistAbove(root)}}
	visited := map[string]bool{root: true}
	var out Listing
	read := 0
	for len(queue) > 0 {
		d := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		entries, err := readDirUnsorted(d.abs)
		if pe, ok := err.(*fs.PathError); ok && pe.Op == "open" && errors.Is(err, fs.ErrNotExist) {
			// Gone since its parent was read.
			continue
		}
		if err != nil {
			out.Why = "a directory cannot be read (" + err.Error() + ")"
			return out
		}
		read += len(entries)
		out.Read = read
		if read > limit {
			out.Why = "more than " + itoa(limit) + " entries"
			if limit < treeBudget {
				out.Why = "the walks of this call read more than their share of entries"
			}
			return out
		}
		ignored, anchored := d.ignored, []string(nil)
		if t.Ignores && d.rel != "" && slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == ".git" }) {
			// A nested repository: the enclosing one's ignore files stop here.
			ignored = nil
		}
		whitelisted := d.whitelisted || t.Ignores && hasIgnoreFile(entries, inRepo) && ignoreWhitelists(d.abs, inRepo)
		if t.Ignores && hasIgnoreFile(entries, inRepo) {
			var here []string
			here, anchored = ignoreNames(d.abs, inRepo)
			if len(here) > 0 {
				ignored = append(append([]string(nil), ignored...), here...)
			}
		}
		for _, e := range entries {
			name := e.Name()
			if !t.Hidden && !whitelisted && strings.HasPrefix(name, ".") {
				continue
			}
			isDir := e.IsDir()
			if t.Ignores && !whitelisted && (matchesName(ignored, name, isDir) || matchesName(anchored, name, isDir)) {
				continue
			}
			if isDir && excluded(t.ExcludeDirs, name) {
				continue
			}
			if !isDir && e.Type()&fs.ModeSymlink == 0 && t.skipsFile(name) {
				continue
			}
			rel := name
			if d.rel != "" {
				rel = d.rel + "/" + name
			}
			full := d.abs + "/" + name
			if d.abs == "/" {
				full = "/" + name
			}
			ent := Entry{Rel: rel, Dir: isDir, Special: e.Type()&special != 0}
			if e.Type()&fs.ModeSymlink != 0 {
				if t.SkipsLinks {
					continue
				}
				target, unknown, ok := realPath(full, "")
				if !ok {
					// A loop: more links than the kernel follows.
					continue
				}
				ent.Target, ent.Unknown = target, unknown
				if unknown != "" {
					// What the program reaches depends on its own process
					// (its working directory, its open files).
					ent.Dir = true
					out.Entries = append(out.Entries, ent)
					continue
				}
				ti, err := os.Stat(target)
				if err == nil && ti.Mode()&special != 0 {
					ent.Special = true
				}
				if err == nil && ti.IsDir() {
					ent.Dir = true
					if !visited[target] && (t.MaxDepth <= 0 || strings.Count(rel, "/")+1 < t.MaxDepth) {
						visited[target] = true
						queue = append(queue, dirItem{abs: target, rel: rel, ignored: ignored, whitelisted: whitelisted})
					}
				}
			} else if isDir && (t.MaxDepth <= 0 || strings.Count(rel, "/")+1 < t.MaxDepth) {
				queue = append(queue, dirItem{abs: full, rel: rel, ignored: ignored, whitelisted: whitelisted})
			}
			out.Entries = append(out.Entries, ent)
		}
	}
	out.Complete = true
	return out
}

// special are the file types a read by name may block on (a FIFO with no
// writer, a socket) or that read a device.
const special = fs.ModeNamedPipe | fs.ModeSocket | fs.ModeDevice | fs.ModeCharDevice | fs.ModeIrregular

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

func excluded(globs []string, name string) bool {
	for _, g := range globs {
		if strings.ContainsAny(g, "{}") {
			continue
		}
		if ok, err := path.Match(g, name); err == nil && ok {
			return true
		}
	}
	return false
}

// hasIgnoreFile reports whether a directory's entries hold an ignore file.
func hasIgnoreFile(entries []fs.DirEntry, inRepo bool) bool {
	for _, e := range entries {
		switch e.Name() {
		case ".ignore", ".rgignore":
			return true
		case ".gitignore":
			if inRepo {
				return true
			}
		}
	}
	return false
}

// inGitWorkTree reports whether dir is inside a git work tree (a .git
// entry in it or an ancestor): ripgrep honours .gitignore files only there.
func inGitWorkTree(dir string) bool {
	for d := dir; ; d = path.Dir(d) {
		if _, err := os.Lstat(d + "/.git"); err == nil {
			return true
		}
		if d == "/" || d == "." || d == "" {
			return false
		}
	}
}

// ignoreNames reads the ignore files of dir (.ignore and .rgignore, and
// .gitignore inside a git work tree) and returns the plain names they
// list: unanchored ones (which apply at every depth below dir) and
// anchored ones ("/name": dir's own entries). Only the simplest lines are
// taken: a name without glob characters, escapes or an inner slash, with
// an optional leading "/", "**/" or trailing "/" (directories only, kept
// as "name/"). A file with any negation ("!") line contributes nothing:
// what it excludes may be included again. Skipping less than the program
// does only makes the walk read more.
func ignoreNames(dir string, inRepo bool) (unanchored, anchored []string) {
	files := []string{".ignore", ".rgignore"}
	if inRepo {
		files = append(files, ".gitignore")
	}
	for _, name := range files {
		data, err := os.ReadFile(dir + "/" + name)
		if err != nil || len(data) > 1<<20 {
			continue
		}
		var un, an []string
		negated := false
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimRight(line, " \r\t")
			if line == "" || line[0] == '#' {
				continue
			}
			if line[0] == '!' {
				negated = true
				break
			}
			if strings.ContainsAny(line, "*?[]\\") {
				continue
			}
			anchor := false
			if strings.HasPrefix(line, "**/") {
				line = line[3:]
			} else if strings.HasPrefix(line, "/") {
				anchor, line = true, line[1:]
			}
			dirOnly := strings.HasSuffix(line, "/")
			line = strings.TrimSuffix(line, "/")
			if line == "" || line == "." || line == ".." || strings.Contains(line, "/") {
				continue
			}
			if dirOnly {
				line += "/"
			}
			if anchor {
				an = append(an, line)
			} else {
				un = append(un, line)
			}
		}
		if !negated {
			unanchored = append(unanchored, un...)
			anchored = append(anchored, an...)
		}
	}
	return unanchored, anchored
}

// ignoreWhitelists reports whether an ignore file of dir (.ignore,
// .rgignore, and .gitignore inside a git work tree) has a "!" line, or
// cannot be read: a whitelist match overrides every ignore file and the
// hidden filter of rg and ag.
func ignoreWhitelists(dir string, inRepo bool) bool {
	files := []string{".ignore", ".rgignore"}
	if inRepo {
		files = append(files, ".gitignore")
	}
	for _, name := range files {
		if whitelistIn(dir + "/" + name) {
			return true
		}
	}
	return false
}

// whitelistIn reports whether the ignore file p has a "!" line, or
// exists and cannot be read in full.
func whitelistIn(p string) bool {
	data, err := readRegular(p, 1<<20+1)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR)
	}
	if len(data) > 1<<20 {
		return true
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "!") {
			return true
		}
	}
	return false
}

// whitelistAbove reports whether an ignore file the program reads above
// root (rg and ag read the parents' .ignore and .rgignore, and .gitignore
// up to the work tree's top, and the repository's info/exclude) has a "!"
// line.
func whitelistAbove(root string) bool {
	if root == "/" {
		return false
	}
	for d := path.Dir(root); ; d = path.Dir(d) {
		if ignoreWhitelists(d, inGitWorkTree(d)) {
			return true
		}
		if d == "/" || d == "." || d == "" {
			break
		}
	}
	for d := root; ; d = path.Dir(d) {
		if fi, err := os.Lstat(d + "/.git"); err == nil {
			return fi.IsDir() && whitelistIn(d+"/.git/info/exclude")
		}
		if d == "/" || d == "." || d == "" {
			return false
		}
	}
}

// matchesName reports whether name (a directory when isDir) is listed.
func matchesName(names []string, name string, isDir bool) bool {
	for _, n := range names {
		if n == name || isDir && n == name+"/" {
			return true
		}
	}
	return false
}
