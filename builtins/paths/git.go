package paths

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"strings"
)

// Git repositories on disk. git runs programs named in a repository's
// configuration (core.fsmonitor runs on "git status"), and it finds the
// repository by walking up from its directory: at each level, a .git entry
// first, then the directory itself when it is shaped like a repository (a
// bare one). A bare repository needs no .git segment, so the dangerous-path
// names cannot see one; git's own answer is safe.bareRepository=explicit,
// which only discovers repositories named .git. The functions below give
// the policy the same view of the file system.

// GitShape says which of HEAD, objects/ and refs/ exist in a directory; a
// directory with all three is what git takes for a repository.
type GitShape uint8

// The parts of a GitShape.
const (
	GitHead GitShape = 1 << iota
	GitObjects
	GitRefs
	GitRepository = GitHead | GitObjects | GitRefs
)

// ShapeOf looks at dir on disk. HEAD may be a file or a symbolic link;
// objects and refs must be directories (links to directories count, as for
// git). A directory without HEAD costs one lstat unless full is set.
func ShapeOf(dir string, full bool) GitShape {
	var s GitShape
	if _, err := os.Lstat(dir + "/HEAD"); err == nil {
		s |= GitHead
	} else if !full {
		return 0
	}
	if fi, err := os.Stat(dir + "/objects"); err == nil && fi.IsDir() {
		s |= GitObjects
	}
	if fi, err := os.Stat(dir + "/refs"); err == nil && fi.IsDir() {
		s |= GitRefs
	}
	return s
}

// DirProbe asks the file system what a walk up to a git repository needs,
// once per question: a directory's GitShape and what its .git entry is.
// One decision's built-ins share one (UnsafeRepository, GitWrite and the
// git configuration reader walk up from the same directories), so each
// directory is looked at once per decision. A nil *DirProbe asks every
// time. Not safe for concurrent use.
type DirProbe struct {
	shapes  map[shapeKey]GitShape
	dotGits map[string]dotGit
	asked   int // file-system questions asked, for tests
}

type shapeKey struct {
	dir  string
	full bool
}

// dotGit is what DIR/.git is: a directory, a regular file (target is the
// path its "gitdir: " line names, "" when it is not a gitfile), or
// neither.
type dotGit struct {
	dir, file bool
	target    string
}

// NewDirProbe returns an empty probe (its memos are made on first use).
func NewDirProbe() *DirProbe { return &DirProbe{} }

// Shape is ShapeOf(dir, full), asked once per probe.
func (p *DirProbe) Shape(dir string, full bool) GitShape {
	if p == nil {
		return ShapeOf(dir, full)
	}
	if s, ok := p.shapes[shapeKey{dir, full}]; ok {
		return s
	}
	p.asked++
	s := ShapeOf(dir, full)
	if p.shapes == nil {
		p.shapes = map[shapeKey]GitShape{}
	}
	p.shapes[shapeKey{dir, full}] = s
	if s&GitHead == 0 {
		// Without HEAD the short look is the whole answer.
		p.shapes[shapeKey{dir, false}] = 0
	}
	return s
}

// dotGit looks at x/.git (following links, as git does), once per probe.
func (p *DirProbe) dotGit(x string) dotGit {
	if p != nil {
		if e, ok := p.dotGits[x]; ok {
			return e
		}
		p.asked++
	}
	var e dotGit
	g := path.Join(x, ".git")
	if fi, err := os.Stat(g); err == nil {
		switch {
		case fi.Mode().IsRegular():
			e.file = true
			e.target, _ = readGitfile(g)
		case fi.IsDir():
			e.dir = true
		}
	}
	if p != nil {
		if p.dotGits == nil {
			p.dotGits = map[string]dotGit{}
		}
		p.dotGits[x] = e
	}
	return e
}

// UnsafeRepository walks up from the clean absolute directory dir the way
// git discovers its repository (ignoring ceilings and file-system
// boundaries, so it may look further than git) and reports the first
// repository it finds when that is not a .git directory: a bare repository
// (reason "bare repository"), or a .git file pointing to a directory
// outside every .git directory. found is false when the repository is a
// .git directory, or when there is none. probe may be nil.
func UnsafeRepository(dir string, probe *DirProbe) (repo, reason string, found bool) {
	for x := dir; ; x = path.Dir(x) {
		switch e := probe.dotGit(x); {
		case e.file && e.target != "":
			target := e.target
			if !strings.HasPrefix(target, "/") {
				target = x + "/" + target
			}
			target = path.Clean(target)
			if hasSegment(target, ".git") {
				return "", "", false
			}
			return target, "the .git file of " + x + " names a repository that is not a .git directory", true
		case e.dir && probe.Shape(path.Join(x, ".git"), false) == GitRepository:
			return "", "", false
		}
		// A .git file that is not a gitfile: git looks on.
		if probe.Shape(x, false) == GitRepository {
			if path.Base(x) == ".git" {
				return "", "", false
			}
			return x, "bare repository", true
		}
		if x == "/" {
			return "", "", false
		}
	}
}

// readGitfile reads the "gitdir: PATH" line of a .git file.
func readGitfile(p string) (string, bool) {
	data, err := readRegular(p, 4096)
	if err != nil {
		return "", false
	}
	line, err := bufio.NewReaderSize(bytes.NewReader(data), 4096).ReadString('\n')
	if err != nil && line == "" {
		return "", false
	}
	target, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "gitdir: ")
	return target, ok && target != ""
}

func hasSegment(p, seg string) bool {
	for _, s := range strings.Split(p, "/") {
		if s == seg {
			return true
		}
	}
	return false
}

// GitWrite reports whether writing the clean absolute path p writes into a
// git repository on disk that is not a .git directory (a bare one: its
// config and hooks make git run programs), or completes one: p is HEAD,
// objects or refs (or below them) of a directory that already has another
// of the three. The reason names the repository. probe may be nil.
func GitWrite(p string, probe *DirProbe) (reason string, hit bool) {
	child := p
	for x := path.Dir(p); ; x = path.Dir(x) {
		c := strings.ToLower(path.Base(child))
		var part GitShape
		switch c {
		case "head":
			part = GitHead
		case "objects":
			part = GitObjects
		case "refs":
			part = GitRefs
		}
		if path.Base(x) != ".git" {
			// .git directories are dangerous by name already.
			s := probe.Shape(x, part != 0)
			if s == GitRepository {
				return "`" + x + "` is a git repository", true
			}
			if part != 0 && s&^part != 0 {
				return "makes `" + x + "` a git repository (HEAD, objects, refs)", true
			}
		}
		if x == "/" {
			return "", false
		}
		child = x
	}
}
