package flagspec

import (
	"slices"
	"strconv"
	"strings"
)

// Recursive reads. A program that reads a directory tree (grep -r, rg, find,
// ls -R, tree, du -a, diff -r, cp -r, tar c, zip -r, rsync -r, scp -r)
// reaches every file below the directory it is given, including
// credentials the directory holds (grep -r KEY ~ prints ~/.ssh/id_rsa,
// which cat ~/.ssh/id_rsa may not read). Such a directory is reported in
// Reads, like any path read, and also as a Tree in RecursiveReads, with
// what the program skips, so that the policy can ask whether the tree holds
// a credential path or a path a Read rule protects (see docs/reads.md,
// "Recursive reads").

// Tree is a directory tree a command reads below Path.
type Tree struct {
	// Path is the root as written in argv (not resolved).
	Path string
	// Hidden is true when entries whose names start with "." below Path
	// are read too (grep -r, find; rg only with --hidden, -uu or a glob).
	Hidden bool
	// NamesOnly is true when only the names of entries are printed (ls -R,
	// find, tree, du -a), not the contents of files.
	NamesOnly bool
	// Ignores is true when the program skips what the .gitignore, .ignore
	// and .rgignore files in the tree exclude (rg without --no-ignore).
	Ignores bool
	// ExcludeDirs are base-name globs of directories the program skips
	// (grep --exclude-dir, rg -g '!dir').
	ExcludeDirs []string
	// Include and Exclude are base-name globs of the files the program
	// reads and skips (grep --include/--exclude, rg -g); IncludeFirst says
	// that a file matching neither is skipped (the first such option was an
	// include, or rg has a glob that selects files). A file matching an
	// include glob is taken as read.
	Include, Exclude []string
	IncludeFirst     bool
	// MaxDepth is how many levels below Path are read (find -maxdepth,
	// tree -L, rg --max-depth, du -d); 0 is no limit.
	MaxDepth int
	// SkipsLinks is true when the program follows no symbolic link below
	// Path: it neither descends into a link to a directory nor opens a link
	// to a file (find without -L, grep -r, rg without --follow, tree
	// without -l, ls -R without -L, du without -L, cp -r without -L, tar c
	// without -h, zip -r -y, git grep --no-index). Each program's entry
	// says so, checked under strace (docs/reads.md, "Links"); false, the
	// default, is every link followed.
	SkipsLinks bool
}

// followsLast reports whether, of the options marked follow and physical,
// the last one given is a follow (the programs' last-wins rule: du -L -P
// does not follow, rg -L --no-follow neither).
func followsLast(st *state, follow, physical byte) bool {
	for i := len(st.vals) - 1; i >= 0; i-- {
		switch st.vals[i].mark {
		case follow:
			return true
		case physical:
			return false
		}
	}
	return false
}

// depthOf reads a depth limit: the last value given to an option with
// mark, as a positive number; 0 (no limit) when absent or not a number,
// -1 for 0 (nothing below the root).
func depthOf(st *state, mark byte) int {
	v, ok := st.val(mark)
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil || n < 0:
		return 0
	case n == 0:
		return -1
	}
	return n
}

// tree records a recursive read of p (and, like every path read, a read).
func (st *state) tree(p string, t Tree) {
	if p == "" || p == "-" || t.MaxDepth < 0 {
		return
	}
	t.Path = p
	st.v.RecursiveReads = append(st.v.RecursiveReads, t)
}

// patOperands returns the file operands of a program whose first operand
// is a pattern unless an option marked e supplied one (opsPatRead).
func patOperands(st *state) []string {
	if !st.has('e') && len(st.ops) > 0 {
		return st.ops[1:]
	}
	return st.ops
}

// treesOf records a tree for each operand, or for "." when there is none
// (grep -r, rg, find, ls -R, tree and du search the working directory then).
func treesOf(st *state, ops []string, t Tree) {
	if len(ops) == 0 {
		st.tree(".", t)
		return
	}
	for _, o := range ops {
		st.tree(o, t)
	}
}

// grep -r, -R, --recursive, --dereference-recursive, -d recurse and
// --directories=recurse read every file below the directories named (the
// working directory when none is), hidden ones too. Only recurse, read and
// skip are values of -d; an abbreviation of recurse (or anything but read
// and skip) is taken as recurse. Links: -R and --dereference-recursive
// follow every link, whatever comes after them (GNU grep sets its walk
// logical and -r does not reset it); -r and -d recurse follow only the
// operands (a link given on the command line is the root, followed).
func checkGrep(st *state) {
	recursive := st.has('r') || st.has('f')
	if d, ok := st.val('d'); ok && d != "read" && d != "skip" {
		recursive = true
	}
	if !recursive {
		return
	}
	t := Tree{Hidden: true, SkipsLinks: !st.has('f')}
	first := true
	for _, mv := range st.vals {
		switch mv.mark {
		case 'x':
			t.ExcludeDirs = append(t.ExcludeDirs, mv.val)
		case 'i':
			t.Include = append(t.Include, mv.val)
			t.IncludeFirst = t.IncludeFirst || first
			first = false
		case 'y':
			t.Exclude = append(t.Exclude, mv.val)
			first = false
		}
	}
	treesOf(st, patOperands(st), t)
}

// rg always recurses, into the working directory when given no path. It
// skips hidden entries unless --hidden, -uu (two -u) or a glob that selects
// files (-g/--glob/--iglob without "!", --type-add: such a glob overrides
// every other filter, the hidden one included), and what ignore files
// exclude unless -u, --no-ignore or such a glob. It follows links below
// its paths only with -L/--follow (the last of it and --no-follow wins);
// a path given as an operand is followed.
func checkRg(st *state) {
	t := Tree{Ignores: true, SkipsLinks: !followsLast(st, 'f', 'p')}
	us := 0
	for _, mv := range st.vals {
		switch mv.mark {
		case 'u':
			us++
		case 'h':
			t.Hidden = true
		case 'n':
			t.Ignores = false
		case 'g':
			// A glob that selects files overrides the hidden and ignore
			// filters, and then only the files it selects are searched.
			if g, neg := strings.CutPrefix(mv.val, "!"); neg {
				if !strings.Contains(g, "/") {
					t.ExcludeDirs = append(t.ExcludeDirs, g)
					t.Exclude = append(t.Exclude, g)
				}
			} else {
				t.Hidden, t.Ignores = true, false
				t.IncludeFirst = true
				if strings.Contains(mv.val, "/") {
					t.Include = append(t.Include, "*") // a path glob: any name
				} else {
					t.Include = append(t.Include, mv.val)
				}
			}
		case 't':
			t.Hidden, t.Ignores = true, false
			t.Include = append(t.Include, "*") // a type's globs are not known here
		}
	}
	if us >= 1 {
		t.Ignores = false
	}
	if us >= 2 {
		t.Hidden = true
	}
	if st.has('q') {
		return // --type-list, --version and the like search nothing
	}
	t.MaxDepth = depthOf(st, 'd')
	treesOf(st, patOperands(st), t)
}

// git grep searches tracked files (not modelled as a tree: they are in the
// repository already), and with --untracked or --no-index the files of
// the working tree below each pathspec (the working directory when none),
// hidden ones included; --untracked skips what .gitignore files exclude
// (unless --no-exclude-standard), --no-index only with --exclude-standard.
func checkGitGrep(st *state) {
	if !st.has('n') && !st.has('u') {
		return
	}
	ignores := st.has('u') && !st.has('x') || st.has('n') && st.has('s')
	var ops []string
	for _, o := range patOperands(st) {
		if o != "--" {
			ops = append(ops, o)
		}
	}
	treesOf(st, ops, Tree{Hidden: true, Ignores: ignores, SkipsLinks: true})
}

// git diff --no-index compares two paths outside any repository; two
// directories are compared file by file, hidden files included, with no
// option needed (git diff --no-index . ~ prints ~/.ssh/id_rsa). git
// implies --no-index when exactly two paths are given and one of them lies
// outside the work tree (git diff . ~ does the same): two operands of which
// one is absolute, starts with ~ or leaves the directory with ".." are read
// as trees too. A link below them is compared as a link (its target's name).
func checkGitDiffNoIndex(st *state) {
	if st.has('z') {
		for _, o := range st.ops {
			if o != "--" {
				st.tree(o, Tree{Hidden: true, SkipsLinks: true})
			}
		}
		return
	}
	// git counts the words from the first operand, or from after a
	// leading "--" (git diff -- a ~), and wants exactly two.
	ops := st.ops
	if len(ops) != 2 || !slices.ContainsFunc(ops, mayLeaveWorkTree) {
		return
	}
	if i := slices.Index(st.argv, "--"); i >= 0 && len(st.argv)-i-1 != 2 {
		return // git diff REV -- PATH: a revision and a pathspec
	}
	for _, o := range ops {
		st.tree(o, Tree{Hidden: true, SkipsLinks: true})
	}
}

// mayLeaveWorkTree reports whether a path operand may name a place outside
// the work tree the command runs in.
func mayLeaveWorkTree(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || p == ".." || strings.HasPrefix(p, "../") ||
		strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") || strings.Contains(p, Dynamic)
}

// ls -R lists the names below each directory; -a, -A and -f include
// hidden ones. It descends into a link below them only with -L
// (--dereference); -H follows the operands only.
func checkLs(st *state) {
	if st.has('r') {
		treesOf(st, st.ops, Tree{NamesOnly: true, Hidden: st.has('a'), SkipsLinks: !st.has('f')})
	}
}

// tree lists the names below each directory (-a: hidden ones too);
// --fromfile reads a listing instead. It prints a link's target name and
// descends into a link to a directory only with -l.
func checkTree(st *state) {
	if !st.has('f') {
		treesOf(st, st.ops, Tree{NamesOnly: true, Hidden: st.has('a'), MaxDepth: depthOf(st, 'l'),
			SkipsLinks: !st.has('k')})
	}
}

// du -a prints the name of every file below each directory. Without -a du
// prints sizes and the names of directories only: not a recursive read of
// names worth protecting (docs/reads.md, "Recursive reads"). It follows
// links below them only with -L (--dereference; the last of it and
// -P/--no-dereference wins); -D/-H follow the operands only.
func checkDu(st *state) {
	if st.has('a') {
		treesOf(st, st.ops, Tree{NamesOnly: true, Hidden: true, MaxDepth: depthOf(st, 'd'),
			SkipsLinks: !followsLast(st, 'f', 'p')})
	}
}

// diff -r compares every file below both directories; plain diff the
// entries one level below a directory operand.
func checkDiff(st *state) {
	// Without -r, two directories are compared entry by entry one level
	// deep, and a file against a directory with the file's name in it:
	// diff ~ . printed ~/.netrc against a planted ./.netrc.
	t := Tree{Hidden: true, MaxDepth: 1}
	if st.has('r') {
		t.MaxDepth = 0
	}
	for _, o := range st.ops {
		st.tree(o, t)
	}
	for _, mv := range st.vals {
		if mv.mark == 'f' {
			st.tree(mv.val, t)
		}
	}
}

// sourceReaders add the reads, writes and trees of programs that copy,
// archive or compress what they read (tar c, zip, rsync, scp, dd, gzip -r):
// their sources are credential reads too (tar czf x.tgz ~, rsync -a
// ~/.ssh host:, gzip -rc ~). They run after the program's own verdict,
// whatever it is, and only add: the parse is best effort, and for a
// program that is not read-only every operand it cannot place stays a
// possible path (Unplaced).
var sourceReaders = map[string]func(st *state, args []string){
	"tar":   writerTar,
	"zip":   writerZip,
	"rsync": writerRsync,
	"scp":   writerScp,
	"dd":    writerDd,
	"gzip":  recursiveCompressor,
	"zstd":  recursiveCompressor,
	// Their other names take -r too: zcat -rf ~ and zstdcat -r ~ printed
	// ~/.ssh/id_rsa while read-only.
	"gunzip":  recursiveCompressor,
	"zcat":    recursiveCompressor,
	"zstdcat": recursiveCompressor,
	"unzstd":  recursiveCompressor,
	"lz4":     recursiveCompressor,
}

// sourceReads applies sourceReaders to v.
func sourceReads(v *Verdict, argv []string) {
	if len(argv) == 0 {
		return
	}
	f := sourceReaders[argv[0]]
	if f == nil {
		return
	}
	st := &state{argv: argv}
	f(st, argv[1:])
	for _, p := range st.v.Reads {
		if !slices.Contains(v.Reads, p) {
			v.Reads = append(v.Reads, p)
		}
	}
	for _, p := range st.v.Writes {
		if !slices.Contains(v.Writes, p) {
			v.Writes = append(v.Writes, p)
		}
	}
	v.RecursiveReads = append(v.RecursiveReads, st.v.RecursiveReads...)
	if !v.ReadOnly {
		v.Unplaced = true
	}
}

// gzip -r and zstd -r (and zcat, gunzip, zstdcat, unzstd, lz4 -r)
// compress or decompress every file below a directory (with -c, to
// stdout; with -f a file that is not compressed is copied as it is): each
// operand is a tree.
func recursiveCompressor(st *state, args []string) {
	recursive := false
	var ops []string
	for _, a := range args {
		switch {
		case a == "--recursive":
			recursive = true
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") && len(a) > 1:
			recursive = recursive || strings.ContainsRune(a[1:], 'r')
		default:
			ops = append(ops, a)
		}
	}
	if recursive {
		for _, o := range ops {
			st.read(o)
			st.tree(o, Tree{Hidden: true})
		}
	}
}

// tar: in create, append and update mode (c, r, u; -A concatenates
// archives) the operands are sources read recursively; -f names the
// archive, -C changes the directory later operands are relative to. Old
// style (tar czf a.tgz dir) is a first word of letters without a dash.
func writerTar(st *state, args []string) {
	valueShort := "fCTXbgHIKLNVF"
	create, follows := false, false
	var archive string
	var ops []string
	dir := ""
	takeValue := func(c byte, v string) {
		switch c {
		case 'f':
			archive = v
		case 'C':
			dir = v
		case 'T', 'X':
			st.read(v)
		}
	}
	mode := func(c byte) {
		switch c {
		case 'c', 'r', 'u', 'A':
			create = true
		case 'h':
			follows = true // --dereference: archive what links point to
		}
	}
	i := 0
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		// Old style: every letter's value is the next word, in order.
		i = 1
		for j := 0; j < len(args[0]); j++ {
			c := args[0][j]
			mode(c)
			if strings.IndexByte(valueShort, c) >= 0 && i < len(args) {
				takeValue(c, args[i])
				i++
			}
		}
	}
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			for _, o := range args[i+1:] {
				ops = append(ops, joinDir(dir, o))
			}
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			name = tarLong(name)
			switch name {
			case "create", "append", "update", "catenate", "concatenate":
				create = true
			case "dereference":
				follows = true
			}
			long := map[string]byte{"file": 'f', "directory": 'C', "files-from": 'T', "exclude-from": 'X'}
			if c, ok := long[name]; ok {
				if !hasVal && i+1 < len(args) {
					i++
					val = args[i]
				}
				takeValue(c, val)
			} else if !hasVal && tarLongValue[name] && i+1 < len(args) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				c := a[j]
				mode(c)
				if strings.IndexByte(valueShort, c) >= 0 {
					v := a[j+1:]
					if v == "" && i+1 < len(args) {
						i++
						v = args[i]
					}
					takeValue(c, v)
					break
				}
			}
		default:
			ops = append(ops, joinDir(dir, a))
		}
	}
	if !create {
		// Extract or list: the archive is read.
		st.read(archive)
		return
	}
	st.write(archive)
	for _, o := range ops {
		st.read(o)
		// A link below a source is archived as a link unless -h.
		st.tree(o, Tree{Hidden: true, SkipsLinks: !follows})
	}
}

// tarLong resolves an abbreviated long option of tar (GNU tar accepts any
// unambiguous prefix: --dir is --directory) among the options modelled
// here; anything else is returned as written.
func tarLong(name string) string {
	modelled := []string{"create", "append", "update", "catenate", "concatenate", "file", "directory",
		"files-from", "exclude-from", "dereference"}
	if tarLongValue[name] || slices.Contains(modelled, name) {
		return name
	}
	found := ""
	for _, n := range modelled {
		if strings.HasPrefix(n, name) && name != "" {
			if found != "" {
				return name
			}
			found = n
		}
	}
	for n := range tarLongValue {
		if strings.HasPrefix(n, name) && name != "" && found != n {
			if found != "" {
				return name
			}
			found = n
		}
	}
	if found == "" {
		return name
	}
	return found
}

// tarLongValue are tar's long options that take a separate value.
var tarLongValue = map[string]bool{
	"exclude": true, "transform": true, "xform": true, "owner": true, "group": true, "mode": true,
	"mtime": true, "newer": true, "after-date": true, "newer-mtime": true, "label": true,
	"use-compress-program": true, "format": true, "blocking-factor": true, "record-size": true,
	"tape-length": true, "suffix": true, "listed-incremental": true, "level": true,
	"strip-components": true, "pax-option": true, "to-command": true, "checkpoint-action": true,
	"info-script": true, "new-volume-script": true, "rsh-command": true, "volno-file": true,
	"index-file": true, "exclude-tag": true, "exclude-tag-under": true, "exclude-tag-all": true,
	"owner-map": true, "group-map": true, "quoting-style": true, "warning": true,
}

func joinDir(dir, p string) string {
	if dir == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
		return p
	}
	return strings.TrimRight(dir, "/") + "/" + p
}

// zip ARCHIVE FILES...: -r (and -R, which matches patterns below the
// working directory) reads the files below each directory; -i and -x take
// lists of patterns up to the next option.
func writerZip(st *state, args []string) {
	recursive, keepsLinks := false, false
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-i" || a == "-x" || a == "--include" || a == "--exclude":
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
			}
		case a == "--recurse-paths":
			recursive = true
		case a == "--symlinks":
			keepsLinks = true
		case a == "-R" || a == "--recurse-patterns":
			recursive = true
			ops = append(ops, ".")
		case strings.HasPrefix(a, "--"):
			if zipLongValue[strings.TrimPrefix(a, "--")] && i+1 < len(args) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				c := a[j]
				if c == 'r' {
					recursive = true
				}
				if c == 'y' {
					keepsLinks = true // stores a link as a link
				}
				if strings.IndexByte("bnOtPZs", c) >= 0 {
					if j == len(a)-1 && i+1 < len(args) {
						i++
					}
					break
				}
			}
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) == 0 {
		return
	}
	st.write(ops[0])
	for _, o := range ops[1:] {
		st.read(o)
		if recursive {
			// zip follows links unless -y.
			st.tree(o, Tree{Hidden: true, SkipsLinks: keepsLinks})
		}
	}
}

var zipLongValue = map[string]bool{
	"temp-path": true, "suffixes": true, "output-file": true, "password": true, "compression-method": true,
	"split-size": true, "from": true, "to": true, "archive-comment": false,
}

// rsync SRC... DEST and scp SRC... DEST: the sources that are local paths
// (no "host:" prefix) are read, recursively with -r/-a (rsync) or -r (scp).
func writerRsync(st *state, args []string) {
	copyOperands(st, args, "rR", "a", rsyncLongValue, "eBfTMo")
}

func writerScp(st *state, args []string) {
	copyOperands(st, args, "r", "", map[string]bool{}, "cDFiJloPS")
}

var rsyncLongValue = map[string]bool{
	"rsh": true, "rsync-path": true, "exclude": true, "exclude-from": true, "include": true, "include-from": true,
	"filter": true, "files-from": true, "temp-dir": true, "password-file": true, "log-file": true,
	"log-file-format": true, "backup-dir": true, "partial-dir": true, "suffix": true, "chmod": true,
	"chown": true, "timeout": true, "contimeout": true, "port": true, "address": true, "bwlimit": true,
	"block-size": true, "remote-option": true, "compare-dest": true, "copy-dest": true, "link-dest": true,
	"max-size": true, "min-size": true, "modify-window": true, "out-format": true, "protocol": true,
	"iconv": true, "checksum-choice": true, "compress-choice": true, "compress-level": true, "info": true,
	"debug": true, "usermap": true, "groupmap": true, "sockopts": true, "outbuf": true, "stop-after": true,
	"stop-at": true, "write-batch": true, "only-write-batch": true, "read-batch": true, "skip-compress": true,
	"max-delete": true, "max-alloc": true, "early-input": true,
}

// copyOperands reads the local source operands of rsync and scp. recurse and
// archive are the short options that make them recursive; value are the
// short options that take the next word.
func copyOperands(st *state, args []string, recurse, archive string, longValue map[string]bool, value string) {
	recursive := false
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, _, hasVal := strings.Cut(a[2:], "=")
			if name == "recursive" || name == "archive" {
				recursive = true
			}
			if !hasVal && longValue[name] && i+1 < len(args) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				c := a[j]
				if strings.IndexByte(recurse, c) >= 0 || strings.IndexByte(archive, c) >= 0 {
					recursive = true
				}
				if strings.IndexByte(value, c) >= 0 {
					if j == len(a)-1 && i+1 < len(args) {
						i++
					}
					break
				}
			}
		default:
			ops = append(ops, a)
		}
	}
	srcs := ops
	if len(ops) > 1 {
		srcs = ops[:len(ops)-1]
		if dst := ops[len(ops)-1]; !remote(dst) {
			st.write(dst)
		}
	}
	for _, o := range srcs {
		if remote(o) {
			continue
		}
		st.read(o)
		if recursive {
			st.tree(o, Tree{Hidden: true})
		}
	}
}

// remote reports whether an rsync or scp operand names another host
// ("host:path", "user@host:path", "rsync://…"): a colon before any slash.
func remote(o string) bool {
	k := strings.IndexByte(o, ':')
	return k > 0 && !strings.Contains(o[:k], "/")
}

// dd reads if= and writes of=.
func writerDd(st *state, args []string) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "if="); ok {
			st.read(v)
		}
		if v, ok := strings.CutPrefix(a, "of="); ok {
			st.write(v)
		}
	}
}
