package bash

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/permopa/permopa/builtins/flagspec"
	"github.com/permopa/permopa/builtins/paths"
)

// Links made and used in one command. The path built-ins resolve the
// symlinks that exist when the call is checked (builtins/paths), but
// "ln -s /etc nl && echo x > nl/f" writes /etc/f through a link that does
// not exist yet. The walker therefore records the links each leaf makes
// (flagspec.Verdict.Links: ln, link, cp -s/-l/-r/-a/-P, mv) and resolves
// every later path through them. Links are effects on the file system, not
// shell state: a link made in a subshell or a pipeline stays, so they are
// kept for the whole walk, in walk order.
//
// A path that reaches a link name is reported both ways: through the link
// (its target, with the rest of the path) and as written (the link may not
// have been made: ln fails on an existing name, and "ln -s T DIR" makes
// DIR/T when DIR is a directory). A link whose target is not static makes
// every path under its name not static; a link whose name is not static,
// or a program that makes links the vocabulary cannot place (tar x, unzip,
// rsync, git checkout, an ln or cp with options it does not know), keeps
// every later leaf that names a path from being read-only or a filesystem
// command: those paths may go anywhere.

// maxLinkHops bounds the links followed while resolving one path (chains
// of links made in the command), and maxLinkPaths the paths one path may
// resolve to; beyond either the path is not static.
const (
	maxLinkHops  = 8
	maxLinkPaths = 16
)

// link is one link the command makes: paths at or under name lead to
// target (both absolute and clean). unknown: the target is not static.
type link struct {
	name, target string
	unknown      bool
}

// opaqueLinkers are programs that can make links at places the vocabulary
// cannot say: archives and patches carry symbolic links, rsync and git
// check them out.
var opaqueLinkers = map[string]bool{
	"tar": true, "bsdtar": true, "gtar": true, "unzip": true, "cpio": true, "pax": true, "7z": true,
	"7za": true, "7zr": true, "ar": true, "rsync": true, "patch": true, "git": true, "busybox": true,
	"toybox": true, "ditto": true, "dpkg-deb": true, "unsquashfs": true, "bsdcpio": true,
}

// gitKeepsWorkTree are git subcommands that check out no file (so no
// symbolic link either); every other git subcommand that is not read-only
// may (checkout, pull, merge, stash, apply, clone, ...).
var gitKeepsWorkTree = map[string]bool{
	"commit": true, "add": true, "push": true, "fetch": true, "tag": true, "branch": true, "config": true,
	"remote": true, "notes": true, "gc": true, "init": true, "update-ref": true, "format-patch": true,
	"reflog": true, "help": true, "rm": true,
}

func firstWordOf(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return w
}

// linkMakers are programs the vocabulary reads links from.
var linkMakers = map[string]bool{"ln": true, "link": true, "cp": true, "mv": true}

// mayMakeLinks reports whether a statement list may run a program that
// makes links (for the loops and pipelines whose later parts run first).
func mayMakeLinks(stmts ...*syntax.Stmt) bool {
	found := false
	for _, s := range stmts {
		walkAST(s, func(n syntax.Node) bool {
			if found {
				return false
			}
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
				name := c.Args[0].Lit()
				if i := strings.LastIndexByte(name, '/'); i >= 0 {
					name = name[i+1:]
				}
				if linkMakers[name] || opaqueLinkers[name] || name == "" {
					found = true
				}
			}
			return true
		})
	}
	return found
}

// preLinks walks stmts in a scratch walker only to learn the links they
// make, so that the parts of a loop body or a pipeline walked before them
// (a later iteration, the other side of the pipe) see those links too.
// A scratch walk does not look ahead itself, so nested loops cost one
// extra walk per level, not one per combination of levels.
func (w *walker) preLinks(fr frame, st state, stmts ...*syntax.Stmt) {
	if w.scratch || w.stop || !mayMakeLinks(stmts...) {
		return
	}
	scratch := &walker{
		opts: w.opts, src: w.src, res: newAnalysis(w.opts.Home), maxLeaves: w.maxLeaves,
		defined: w.defined, ifsChanged: w.ifsChanged, globsChanged: w.globsChanged, scratch: true,
		links: append([]link(nil), w.links...), linksOpaque: w.linksOpaque,
		nest: w.nest, fields: w.fields, parsed: w.parsed, fieldBytes: w.fieldBytes, substs: w.substs,
		roots: append([]rootScript(nil), w.roots...), attrs: w.attrs, attrScanned: w.attrScanned,
	}
	for _, s := range stmts {
		scratch.walkStmt(s, fr, st)
	}
	// Its work counts against the limits (limits.go) as the walk's own.
	w.fields, w.parsed, w.fieldBytes = scratch.fields, scratch.parsed, scratch.fieldBytes
	if code := scratch.res.LimitExceeded; code != "" {
		w.limit(code, limitDetail(code))
	}
	for _, l := range scratch.links {
		w.addLink(l)
	}
	w.linksOpaque = firstNonEmpty(w.linksOpaque, scratch.linksOpaque)
}

func (w *walker) addLink(l link) {
	for _, x := range w.links {
		if x == l {
			return
		}
	}
	w.links = append(w.links, l)
}

// leafLinks records the links a leaf makes. It returns the targets of the
// symbolic links, which the leaf writes in effect (writing through the
// link writes them), for its Writes.
//
// copiesUnknown names a source whose links could not all be looked at (a
// tree larger than maxCopiedLinkEntries, an unreadable directory): the
// links the leaf makes there are not known.
func (w *walker) leafLinks(fr frame, st state, base string, v flagspec.Verdict) (targets []string, copiesUnknown string) {
	if opaqueLinkers[base] && !v.ReadOnly && (base != "git" || !gitKeepsWorkTree[firstWordOf(v.Subcommand)]) {
		w.linksOpaque = firstNonEmpty(w.linksOpaque, base)
		return nil, ""
	}
	if !linkMakers[base] {
		return nil, ""
	}
	if !v.FSCommand || fr.noFS || fr.placeholder != "" {
		// An option the vocabulary does not know, or a wrapper that adds
		// operands (xargs, find -exec): the links are not known.
		w.linksOpaque = firstNonEmpty(w.linksOpaque, base)
		return nil, ""
	}
	var copied map[string][]diskLink // by source: each is looked at once
	for _, l := range v.Links {
		names, ok := w.resolve(l.Name, st)
		if !ok {
			w.linksOpaque = firstNonEmpty(w.linksOpaque, base)
			continue
		}
		for _, n := range names {
			var ts []string
			if l.Kind == flagspec.LinkSymbolic && !filepath.IsAbs(l.Target) && !strings.HasPrefix(l.Target, "~") {
				// Relative to the link's own directory, as the kernel reads it.
				ts, ok = w.resolve(l.Target, state{dirs: []string{filepath.Dir(n)}})
			} else {
				ts, ok = w.resolve(l.Target, st)
			}
			if !ok {
				w.addLink(link{name: n, unknown: true})
				continue
			}
			for _, t := range ts {
				if t == n {
					continue
				}
				w.addLink(link{name: n, target: t})
				if l.Kind != flagspec.LinkSame {
					targets = appendUnique(targets, t)
					continue
				}
				// A copy that keeps links, a move or a hard link puts the
				// symbolic links at or below t on disk at n: each is a link
				// the project chose, made by this command.
				found, seen := copied[t]
				if !seen {
					var ok bool
					if found, ok = w.copiedLinks(t); !ok {
						copiesUnknown = firstNonEmpty(copiesUnknown, t)
					}
					if copied == nil {
						copied = map[string][]diskLink{}
					}
					copied[t] = found
				}
				for _, x := range found {
					targets = appendUnique(targets, x.at(n))
				}
			}
		}
	}
	return targets, copiesUnknown
}

// maxCopiedLinkEntries bounds the entries copiedLinks looks at in one
// analysis; past it the links a copy makes are not known.
const maxCopiedLinkEntries = 4096

// diskLink is a symbolic link found at rel below (or at, rel "") a
// source on disk, with its text.
type diskLink struct{ rel, text string }

// at is where the link leads once the source is at name: a relative text
// is read from the new place, as the kernel will ("../../x" copied one
// level up leads elsewhere).
func (l diskLink) at(name string) string {
	if filepath.IsAbs(l.text) {
		return filepath.Clean(l.text)
	}
	return filepath.Join(filepath.Dir(filepath.Join(name, l.rel)), l.text)
}

// copiedLinks lists the symbolic links on disk at or below src, which a
// link-keeping copy, a move or a hard link puts at a new name as links
// with the same text ("cp -P lnk ghost", "cp -a dir new", "mv lnk new",
// "ln lnk new"). Directories are walked without following links, every
// one looked at stamped. ok is false when the tree could not be read
// whole (past maxCopiedLinkEntries in the analysis, or unreadable).
func (w *walker) copiedLinks(src string) (found []diskLink, ok bool) {
	w.scriptFiles().StampDir(filepath.Dir(src))
	if _, err := os.Lstat(src); err != nil {
		// Nothing there now; a link the command makes first is in w.links.
		return nil, true
	}
	work := []string{""}
	for len(work) > 0 {
		rel := work[len(work)-1]
		work = work[:len(work)-1]
		if w.copiedEntries++; w.copiedEntries > maxCopiedLinkEntries {
			return found, false
		}
		p := filepath.Join(src, rel)
		fi, err := os.Lstat(p)
		if err != nil {
			return found, false
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			text, err := os.Readlink(p)
			if err != nil {
				return found, false
			}
			found = append(found, diskLink{rel, text})
		case fi.IsDir():
			f, err := os.Open(p)
			if err != nil {
				return found, false
			}
			names, err := f.Readdirnames(maxCopiedLinkEntries + 1)
			f.Close()
			if err != nil && !errors.Is(err, io.EOF) {
				return found, false
			}
			w.scriptFiles().StampDir(p)
			for _, n := range names {
				work = append(work, filepath.Join(rel, n))
			}
		}
	}
	return found, true
}

// rsyncLinks is copiedLinks for rsync, which the vocabulary does not
// model but which keeps links (-l, -a): every operand on disk is taken as
// a source and every operand as where it may go (as itself, or with the
// source's base name below it), since which word is an operand is not
// known. unknown names a source whose links could not all be looked at.
func (w *walker) rsyncLinks(argv []string, st state) (targets []string, unknown string) {
	var ops []string
	for _, a := range argv {
		if a == "" || strings.HasPrefix(a, "-") || strings.Contains(a, dyn) {
			continue
		}
		if ps, ok := w.resolve(a, st); ok {
			for _, p := range ps {
				ops = appendUnique(ops, p)
			}
		}
	}
	for _, src := range ops {
		found, ok := w.copiedLinks(src)
		if !ok {
			unknown = firstNonEmpty(unknown, src)
		}
		for _, l := range found {
			for _, name := range ops {
				if name == src {
					continue
				}
				targets = appendUnique(targets, l.at(name))
				targets = appendUnique(targets, l.at(filepath.Join(name, filepath.Base(src))))
			}
		}
	}
	return targets, unknown
}

// throughLinks resolves the absolute, uncleaned path p through the links
// made so far: every path it may lead to, as written included. ok is false
// when it reaches a link whose target is not static, or leads to too many
// paths or through too many links.
func (w *walker) throughLinks(p string) ([]string, bool) {
	type cand struct {
		cur, rest string
		hops      int
	}
	var out []string
	work := []cand{{cur: "/", rest: p}}
	steps := 0
	for len(work) > 0 {
		c := work[len(work)-1]
		work = work[:len(work)-1]
		if steps++; steps > 64*maxLinkPaths {
			return nil, false
		}
		if c.rest == "" {
			out = appendUnique(out, c.cur)
			if len(out) > maxLinkPaths {
				return nil, false
			}
			continue
		}
		comp, rest, _ := strings.Cut(c.rest, "/")
		switch comp {
		case "", ".":
			work = append(work, cand{c.cur, rest, c.hops})
			continue
		case "..":
			work = append(work, cand{filepath.Dir(c.cur), rest, c.hops})
			continue
		}
		next := filepath.Join(c.cur, comp)
		work = append(work, cand{next, rest, c.hops})
		for _, l := range w.links {
			if l.name != next {
				continue
			}
			if l.unknown || c.hops >= maxLinkHops {
				return nil, false
			}
			// Through the link: its target, then the rest, from the top.
			work = append(work, cand{"/", l.target + "/" + rest, c.hops + 1})
		}
	}
	return out, true
}

// opaqueReason is why a leaf that names paths cannot be trusted after a
// program made links the analyser cannot see, or "".
func (w *walker) opaqueReason(lf *Leaf) string {
	if w.linksOpaque == "" || len(lf.Reads)+len(lf.Writes)+len(lf.Touches) == 0 {
		return ""
	}
	return w.linksOpaque + " may have made links that its paths go through"
}

// unplacedWrite looks at a written path whose place is not known (a
// relative path after an unknown cd, a path with an expansion): when its
// literal segments name protected settings (.permopa, .claude, ...), it is
// the dangerous pattern protected-write, which the policy treats as a write
// to them (docs/protected-paths.md). Written with ${…} for the unknown parts.
func (w *walker) unplacedWrite(leaf int, p string) {
	if p == "" || w.scratch {
		return
	}
	if _, ok := paths.Default().Protected("/" + p); ok {
		w.hit("protected-write", leaf, strings.ReplaceAll(p, dyn, "${…}"))
	}
}
