package bash

import (
	"path/filepath"
	"slices"
	"strings"
)

// git runs programs named by its repository's configuration (core.fsmonitor
// on "git status", core.pager, diff.external, textconv, filters, hooks). A
// directory laid out as a bare repository (HEAD, objects/, refs/, config)
// has no .git segment, so "git -C e status" there runs e/config's
// fsmonitor. permopa does what git's safe.bareRepository=explicit does: a
// git command is read-only only when its repository can be the .git
// directory of a working directory.
//
// Statically, a git leaf is not read-only when the directory it starts
// looking for its repository from (the cwd in force, then each -C) is not
// known, lies outside the working directories, or may have been made into
// a repository earlier in the same command (it, a parent, or a HEAD,
// objects, refs, config, .git... entry beside one of them was written; a
// program made links or files no one can place; a write went to a path not
// known statically). The directories are listed in Analysis.GitDirs, and
// the policy walks them on disk at decision time
// (permopa.path.git_repositories): a repository found there that is not a
// .git directory is a safety ASK.

// gitDirEntries are the names (lower-cased) whose creation beside a
// directory on the discovery path can turn it into a repository or change
// which one git uses.
var gitDirEntries = map[string]bool{
	"head": true, "objects": true, "refs": true, "config": true, "config.worktree": true, ".git": true,
	"commondir": true, "gitdir": true, "packed-refs": true, "hooks": true, "info": true, "index": true,
	"worktrees": true, "modules": true,
}

// gitLeaf computes where a git leaf looks for its repository and says why
// the leaf cannot be read-only ("" when it can), with the directories git
// starts from as far as they are known, whose repository configuration
// the policy reads (Analysis.ProjectConfigs).
func (w *walker) gitLeaf(st state, argv []string) (reason string, dirs []string) {
	dirs = st.dirs
	var explicit []string // --git-dir values: their configuration is read too
	defer func() {
		if len(explicit) > 0 {
			dirs = slices.Concat(dirs, explicit)
		}
	}()
	if st.unknown || len(dirs) == 0 {
		return "git runs in a directory not known statically: its repository may be any", nil
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if !strings.HasPrefix(a, "-") || a == "--" {
			break // the subcommand
		}
		var val string
		switch {
		case a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "-c" || a == "--namespace" ||
			a == "--config-env" || a == "--super-prefix":
			if i+1 >= len(argv) {
				return "", dirs
			}
			i++
			val = argv[i]
		case strings.HasPrefix(a, "--git-dir="):
			val = a[len("--git-dir="):]
		default:
			continue
		}
		switch {
		case a == "-C":
			if val == "" {
				continue
			}
			var next []string
			for _, d := range dirs {
				ps, ok := w.resolve(val, state{dirs: []string{d}})
				if !ok {
					return "git -C names a directory not known statically", nil
				}
				for _, p := range ps {
					next = appendUnique(next, p)
				}
			}
			dirs = next
		case a == "--git-dir" || strings.HasPrefix(a, "--git-dir="):
			// An explicit repository: not read-only (the vocabulary says so),
			// and checked on disk all the same.
			if ps, ok := w.resolve(val, state{dirs: dirs}); ok {
				for _, p := range ps {
					w.res.GitDirs = appendUnique(w.res.GitDirs, p)
					explicit = appendUnique(explicit, p)
				}
			}
		}
	}
	for _, d := range dirs {
		w.res.GitDirs = appendUnique(w.res.GitDirs, d)
	}
	work := w.workDirs()
	for _, d := range dirs {
		inside := false
		for _, wd := range work {
			// A spelling that keeps ".." (paths.Spellings) is where git's
			// chdir goes on disk, which no string says: never inside.
			if within(d, wd) && !strings.Contains(d, "/..") {
				inside = true
				break
			}
		}
		if !inside {
			return "git runs in " + d + ", outside the working directories: the repository there may run programs from its configuration", dirs
		}
	}
	if w.linksOpaque != "" {
		return "git runs after " + w.linksOpaque + ", which may have made a repository its configuration runs programs from", dirs
	}
	if w.dynWrites {
		return "git runs after a write to a path not known statically, which may have made a repository", dirs
	}
	for _, d := range dirs {
		for _, wr := range w.written {
			for a := wr; ; a = filepath.Dir(a) {
				if within(d, a) {
					return "git runs in " + d + ", which this command writes (" + wr + ")", dirs
				}
				if within(d, filepath.Dir(a)) && gitDirEntries[strings.ToLower(filepath.Base(a))] {
					return "this command writes " + wr + ", which can make " + filepath.Dir(a) + " the repository git runs in", dirs
				}
				if a == "/" || a == "." {
					break
				}
			}
		}
	}
	return "", dirs
}

// within reports whether p is dir or below it (both clean and absolute).
func within(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir) && (len(p) == len(dir) || p[len(dir)] == '/')
}

// gitDirInTheMaking finds directories this command makes into something
// shaped like a git repository: it writes at least two of X/HEAD,
// X/objects and X/refs (or paths below them). Writing such a directory's
// config, hooks or HEAD is how a repository that runs programs is built,
// wherever it is (issue: a bare repository needs no .git segment).
func (w *walker) gitDirInTheMaking() {
	type seen struct {
		names map[string]bool
		leaf  int
	}
	dirs := map[string]*seen{}
	var order []string
	for i, lf := range w.res.Leaves {
		for _, wr := range lf.Writes {
			for a := wr; a != "/" && a != "."; a = filepath.Dir(a) {
				name := strings.ToLower(filepath.Base(a))
				if name != "head" && name != "objects" && name != "refs" {
					continue
				}
				x := filepath.Dir(a)
				s := dirs[x]
				if s == nil {
					s = &seen{names: map[string]bool{}, leaf: i}
					dirs[x] = s
					order = append(order, x)
				}
				s.names[name] = true
			}
		}
	}
	for _, x := range order {
		if s := dirs[x]; len(s.names) >= 2 {
			w.hit("git-repository-write", s.leaf, x+" is made into a git repository (HEAD, objects, refs): its config and hooks would run programs")
		}
	}
}
