// Package makefile reads a makefile statically and says which recipe lines
// `make [TARGET…]` would run, without running make (`make -n` itself runs
// `$(shell …)`): docs/shell.md, "Makefiles". It models GNU make's reading of
// a makefile (logical lines, comments, variables of every flavour and their
// expansion, conditionals, includes, explicit rules, the default goal,
// automatic variables, recipe prefixes) and says why it cannot answer
// (Result.Uncertain) for everything else: `$(shell)`, `$(eval)`, pattern
// and implicit rules that may build a target, exported variables, a
// different SHELL, variables only the environment could define, and files
// it cannot read within its limits.
//
// The lines are a superset of what make runs: a target that is up to date
// runs nothing, and `-n`, `-q`, `-t`, `-k` and `-j` change whether and in
// which order lines run, never which lines exist.
package makefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/permopa/permopa/builtins/paths"
)

// Limits bound the work of one Read whatever the makefile holds.
type Limits struct {
	MaxFileSize  int64 // bytes of one makefile or included file
	MaxFiles     int   // makefiles read, includes counted
	MaxLines     int   // physical lines read, over every file
	MaxTargets   int   // targets built (goals and their prerequisites)
	MaxCommands  int   // recipe lines returned
	MaxExpansion int   // bytes produced by variable expansion, over the whole Read
	MaxDepth     int   // nesting of variable references and function calls
	MaxSteps     int   // expansion steps (references, function calls, loop rounds)
}

// DefaultLimits are the limits Read uses for every zero field.
func DefaultLimits() Limits {
	return Limits{
		MaxFileSize:  256 << 10,
		MaxFiles:     16,
		MaxLines:     20000,
		MaxTargets:   1024,
		MaxCommands:  512,
		MaxExpansion: 1 << 20,
		MaxDepth:     64,
		MaxSteps:     50000,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxFileSize <= 0 {
		l.MaxFileSize = d.MaxFileSize
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = d.MaxFiles
	}
	if l.MaxLines <= 0 {
		l.MaxLines = d.MaxLines
	}
	if l.MaxTargets <= 0 {
		l.MaxTargets = d.MaxTargets
	}
	if l.MaxCommands <= 0 {
		l.MaxCommands = d.MaxCommands
	}
	if l.MaxExpansion <= 0 {
		l.MaxExpansion = d.MaxExpansion
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxSteps <= 0 {
		l.MaxSteps = d.MaxSteps
	}
	return l
}

// Invocation is one run of make: what ParseArgs reads from its argv.
type Invocation struct {
	// Dir is make's directory (the shell's cwd, then every -C), absolute.
	Dir string
	// Files are the -f makefiles in order; none: GNUmakefile, makefile,
	// Makefile in Dir, the first that exists.
	Files []string
	// Targets are the goals; none: the default goal.
	Targets []string
	// Vars are the command line's VAR=value assignments: they override the
	// makefile's assignments (except `override` ones).
	Vars map[string]string
	// Env holds the environment variables known at decision time (the
	// command's own assignments `X=1 make`, HOME). A variable neither the
	// makefile, the command line, Env nor make defines is the
	// environment's, unknown here: see harmlessUndefined.
	Env map[string]string
	// Program is what $(MAKE) expands to (argv[0]); "" is "make".
	Program string
	// Level is MAKELEVEL: how many makes run this one.
	Level int
	// NoBuiltinRules and NoBuiltinVars are -r and -R.
	NoBuiltinRules, NoBuiltinVars bool
	// Uncertain, set by ParseArgs, says why the argv itself cannot be
	// modelled (an option make reads code from, -f -, -e, ...).
	Uncertain string
}

// Line is one command make hands to the shell.
type Line struct {
	Text   string // after make's processing: expanded, prefixes stripped; a backslash-newline stays as the shell gets it
	File   string // the makefile that holds it, as make names it (relative to Invocation.Dir unless absolute)
	Line   int    // its line in File (the first physical line of a continued one)
	Target string // the target whose recipe it is

	Silent       bool // `@`
	IgnoreErrors bool // `-`
	Always       bool // `+`: runs under -n, -q and -t too
}

// Result is what Read found.
type Result struct {
	// Commands are the recipe lines of the goals and their prerequisites,
	// in make's order (prerequisites first, each target once).
	Commands []Line
	// Files are the absolute paths of every file read (makefiles and
	// includes), for the caller to judge as reads.
	Files []string
	// Uncertain says why what make runs cannot be told ("" when it can);
	// Commands then hold what was found before.
	Uncertain string
}

// ErrNoDir is returned for an Invocation whose Dir is not absolute.
var ErrNoDir = errors.New("makefile: Invocation.Dir must be an absolute directory")

// uncertainty is raised (panic) by the reader and recovered by Read.
type uncertainty struct{ reason string }

// Read reads inv's makefiles and returns the recipe lines make would run.
// It never runs anything and never writes.
// A nil fsys is OS{}.
func Read(inv Invocation, fsys FS, lim Limits) (res Result, err error) {
	if !filepath.IsAbs(inv.Dir) {
		return Result{}, ErrNoDir
	}
	if fsys == nil {
		fsys = OS{}
	}
	r := newReader(inv, lim.withDefaults())
	r.fs = fsys
	defer func() {
		if p := recover(); p != nil {
			u, ok := p.(uncertainty)
			if !ok {
				panic(p)
			}
			res = Result{Commands: r.commands, Files: r.readFiles, Uncertain: u.reason}
			err = nil
		}
	}()
	if inv.Uncertain != "" {
		r.fail("%s", inv.Uncertain)
	}
	r.run()
	return Result{Commands: r.commands, Files: r.readFiles}, nil
}

func (r *reader) fail(format string, args ...any) {
	panic(uncertainty{fmt.Sprintf(format, args...)})
}

// failAt is fail naming file:line.
func (r *reader) failAt(file string, line int, format string, args ...any) {
	panic(uncertainty{fmt.Sprintf("%s:%d: ", file, line) + fmt.Sprintf(format, args...)})
}

// readFile reads the makefile name (relative to Dir unless absolute)
// through the FS. It reports a missing file with ok false; a file the FS
// refuses (a device or named pipe, over its size limit, a credential file,
// outside the working directories) makes the Read uncertain, naming the
// file and never its content.
func (r *reader) readFile(name string) (data []byte, ok bool) {
	p := r.abs(name)
	if len(r.readFiles) >= r.lim.MaxFiles {
		r.fail("%s: more than %d makefiles", name, r.lim.MaxFiles)
	}
	data, exists, err := r.fs.ReadFile(p)
	if err != nil {
		r.fail("%s", err.Error())
	}
	if !exists {
		return nil, false
	}
	if int64(len(data)) > r.lim.MaxFileSize {
		r.fail("%s is larger than %d bytes", name, r.lim.MaxFileSize)
	}
	r.readFiles = append(r.readFiles, p)
	return data, true
}

func (r *reader) abs(name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(r.inv.Dir, name)
}

// exists reports whether name (relative to Dir) exists; a probe the FS
// cannot answer makes the Read uncertain.
func (r *reader) exists(name string) bool {
	ex, ok := r.fs.Exists(r.abs(name))
	if !ok {
		r.fail("%s: more files to look at than permopa checks", r.where)
	}
	return ex
}

// FS is how Read looks at files. Paths are absolute and clean.
type FS interface {
	// ReadFile returns a regular file's content; exists false when there
	// is no file; an error (naming the file, never its content) for a
	// file it will not read.
	ReadFile(p string) (data []byte, exists bool, err error)
	// Exists reports whether p exists; ok false when it cannot tell.
	Exists(p string) (exists, ok bool)
	// List returns the names in directory dir (nil when it does not
	// exist); ok false when it cannot tell.
	List(dir string) (names []string, ok bool)
}

// maxListing bounds the names of one directory Read looks at.
const maxListing = 20000

// OS is the FS of the local file system, without working directories: a
// regular file only (opened without blocking, so a named pipe never
// stalls), at most DefaultLimits().MaxFileSize bytes, never a credential
// file (through any link).
type OS struct{}

// ReadFile implements FS.
func (OS) ReadFile(p string) ([]byte, bool, error) {
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s cannot be read", p)
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s is not a regular file", p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, false, fmt.Errorf("%s: its links cannot be resolved", p)
	}
	for _, q := range []string{p, real} {
		if _, cred, why := paths.Classify(q, nil); cred {
			return nil, false, fmt.Errorf("%s is a credential file (%s): permopa does not read it as a makefile", p, why)
		}
	}
	max := DefaultLimits().MaxFileSize
	if fi.Size() > max {
		return nil, false, fmt.Errorf("%s is larger than %d bytes", p, max)
	}
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, false, fmt.Errorf("%s cannot be opened", p)
	}
	defer f.Close()
	if fi2, err := f.Stat(); err != nil || !fi2.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s is not a regular file", p)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, false, fmt.Errorf("%s cannot be read", p)
	}
	if int64(len(data)) > max {
		return nil, false, fmt.Errorf("%s is larger than %d bytes", p, max)
	}
	return data, true, nil
}

// Exists implements FS.
func (OS) Exists(p string) (bool, bool) {
	_, err := os.Stat(p)
	return err == nil, true
}

// List implements FS.
func (OS) List(dir string) ([]string, bool) { return listDir(dir) }

func listDir(dir string) ([]string, bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, true
	}
	defer f.Close()
	names, err := f.Readdirnames(maxListing + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, true
	}
	if len(names) > maxListing {
		return nil, false
	}
	return names, true
}

func trimSpace(s string) string { return strings.Trim(s, " \t") }
