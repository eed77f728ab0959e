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

// UnsafeRepository walks up from the clean absolute directory dir the way
// git discovers its repository (ignoring ceilings and file-system
// boundaries, so it may look further than git) and reports the first
// repository it finds when that is not a .git directory: a bare repository
// (reason "bare repository"), or a .git file pointing to a directory
// outside every .git directory. found is false when the repository is a
// .git directory, or when there is none. shape, if not nil, looks up a
// directory's GitShape (a per-decision cache).
func UnsafeRepository(dir string, shape func(string, bool) GitShape) (repo, reason string, found bool) {
	if shape == nil {
		shape = ShapeOf
	}
	for x := dir; ; x = path.Dir(x) {
		g := path.Join(x, ".git")
		if fi, err := os.Stat(g); err == nil {
			switch {
			case fi.Mode().IsRegular():
				target, ok := readGitfile(g)
				if !ok {
					break // not a gitfile: git looks on
				}
				if !strings.HasPrefix(target, "/") {
					target = x + "/" + target
				}
				target = path.Clean(target)
				if hasSegment(target, ".git") {
					return "", "", false
				}
				return target, "the .git file of " + x + " names a repository that is not a .git directory", true
			case fi.IsDir() && shape(g, false) == GitRepository:
				return "", "", false
			}
		}
		if shape(x, false) == GitRepository {
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
// of the three. The reason names the repository. shape is as for
// UnsafeRepository.
func GitWrite(p string, shape func(string, bool) GitShape) (reason string, hit bool) {
	if shape == nil {
		shape = ShapeOf
	}
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
			s := shape(x, part != 0)
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
