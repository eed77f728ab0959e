package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/cmd"
	"github.com/spf13/cobra"

	"github.com/permopa/permopa/adapter/hookclient"
	"github.com/permopa/permopa/builtins"
	"github.com/permopa/permopa/internal/hookwire"
)

// newRootCommand builds the command tree for the command line args: every
// OPA command (run, eval, test, build, check, fmt, ...) with permopa's
// built-ins and server plugin registered (OPA's check also type-checks
// permopa's policy against its schemas: check.go), plus permopa's own
// commands, all listed here; OPA's are left out when args run one of
// permopa's own (runsOwnCommand).
// Nothing is added from init functions: what the binary offers is read in one
// place, and each call builds a fresh tree, so the tests run the commands
// in process with their own streams (main_test.go).
//
// stdin, stdout and stderr are the streams of permopa's own commands (OPA's
// write to the process's); p is the working directory and environment they
// read (the settings layers' project and PERMOPA_* variables, HOME, the
// hook's PERMOPA_SERVER, relative paths on the command line).
func newRootCommand(args []string, stdin io.Reader, stdout, stderr io.Writer, p procEnv) *cobra.Command {
	builtins.Register()
	own := []*cobra.Command{
		decideCommand(p),
		hookCommand(p),
		explainCommand(p),
		rulesCommand(p),
		bashCommand(p),
		matrixCommand(),
		replayCommand(p),
		insightsCommand(p),
		installCommand(p),
		uninstallCommand(p),
		doctorCommand(p),
		trustCommand(p),
		versionCommand(),
	}
	root := &cobra.Command{
		Use:           "permopa",
		Short:         "permopa: ALLOW, DENY or ASK for AI-agent tool calls, on OPA",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	if !runsOwnCommand(own, args) {
		// OPA's commands, built only when the command line may run one
		// (or lists them: help, completion, an unknown command): building
		// their tree is a few ms a cold hook or decide would wait for.
		opaTree.Lock()
		cmd.Command(root, "permopa")
		opaTree.Unlock()
		setupRun(root)
		setupCheck(root)
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	for _, c := range own {
		// permopa's version replaces OPA's.
		replaceCommand(root, c)
	}
	proofreadOnHelp(root, args)
	return root
}

// runsOwnCommand reports whether args name one of permopa's own commands
// first (what cobra runs, since OPA's commands and permopa's have
// different names, version aside, which permopa's replaces): the tree
// then needs none of OPA's. Flags before the command, help and
// completion build the whole tree.
func runsOwnCommand(own []*cobra.Command, args []string) bool {
	if len(args) == 0 {
		return false
	}
	for _, c := range own {
		if c.Name() == args[0] {
			return true
		}
	}
	return false
}

// opaTree serialises the building of OPA's command tree: OPA's parse
// command binds its flags to a package-level variable, so two trees built
// at once (the tests run commands in process, in parallel) write it
// together.
var opaTree sync.Mutex

// procEnv is what permopa's own commands read of the process they run in:
// the working directory and the environment. The zero value is the
// process's own (main); the tests run commands in process with a directory
// and environment of their own, so no command reads os.Getwd or os.Getenv
// behind it.
type procEnv struct {
	// Dir is the working directory ("": the process's).
	Dir string
	// Environ is the environment as KEY=VALUE (nil: the process's).
	Environ []string
	// Executable is the path of the permopa binary, as install writes it
	// into the hooks ("": the process's own, os.Executable).
	Executable string
	// StartHook runs a hook command doctor checks (bin, resolved, with
	// args, in dir with environ and stdin) and returns its exit status
	// (nil: as a process, exec). The tests set it to run the permopa
	// binary's own `permopa hook` in process, where doctor's verdict, not
	// the process, is what they check (cmd/permopa's main_test.go).
	StartHook func(ctx context.Context, bin string, args []string, dir string, environ []string, stdin []byte, stdout, stderr io.Writer) (int, error)
}

// startHook runs a hook command for doctor (StartHook): its exit status,
// or an error when it could not be run at all.
func (p procEnv) startHook(ctx context.Context, bin string, args []string, dir string, environ []string, stdin []byte, stdout, stderr io.Writer) (int, error) {
	if p.StartHook != nil {
		return p.StartHook(ctx, bin, args, dir, environ, stdin, stdout, stderr)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = environ
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return 0, err
	}
	return cmd.ProcessState.ExitCode(), nil
}

// environ is the environment as KEY=VALUE.
func (p procEnv) environ() []string {
	if p.Environ == nil {
		return os.Environ()
	}
	return p.Environ
}

// lookup is os.LookupEnv in p's environment (the last of repeated keys, as
// exec does).
func (p procEnv) lookup(key string) (string, bool) {
	if p.Environ == nil {
		return os.LookupEnv(key)
	}
	for i := len(p.Environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(p.Environ[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// getenv is os.Getenv in p's environment.
func (p procEnv) getenv(key string) string { v, _ := p.lookup(key); return v }

// getwd is the working directory ("/" when it cannot be read, as the
// settings layers take it).
func (p procEnv) getwd() string {
	if p.Dir != "" {
		return p.Dir
	}
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return "/"
}

// home is the home directory: $HOME, else the process's.
func (p procEnv) home() (string, error) {
	if p.Environ == nil {
		return os.UserHomeDir()
	}
	if h := p.getenv("HOME"); h != "" {
		return h, nil
	}
	return "", errors.New("$HOME is not defined")
}

// cacheDir is os.UserCacheDir in p's environment ($XDG_CACHE_HOME, else
// ~/.cache), or "".
func (p procEnv) cacheDir() string {
	if p.Environ == nil {
		d, _ := os.UserCacheDir()
		return d
	}
	if d := p.getenv("XDG_CACHE_HOME"); filepath.IsAbs(d) {
		return d
	}
	if h, err := p.home(); err == nil {
		return filepath.Join(h, ".cache")
	}
	return ""
}

// wd is the working directory, or why it cannot be read.
func (p procEnv) wd() (string, error) {
	if p.Dir != "" {
		return p.Dir, nil
	}
	return os.Getwd()
}

// executable is os.Executable for p.
func (p procEnv) executable() (string, error) {
	if p.Executable != "" {
		return p.Executable, nil
	}
	return os.Executable()
}

// lookPath is exec.LookPath in p's PATH.
func (p procEnv) lookPath(name string) (string, error) {
	if p.Environ == nil || strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(p.getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // as exec.LookPath: never the working directory
		}
		f := filepath.Join(dir, name)
		if fi, err := os.Stat(f); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return f, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// path resolves a path named on the command line against the working
// directory (unchanged in the process's own, where the kernel does it).
func (p procEnv) path(name string) string {
	if p.Dir == "" || name == "" || name == "-" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(p.Dir, name)
}

// paths is path for each name.
func (p procEnv) paths(names []string) []string {
	if p.Dir == "" || names == nil {
		return names
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p.path(n)
	}
	return out
}

// exitCode ends a command with this exit status once it has said why (a
// hook's block is exit 2, never 1).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// run runs the command line args (without the program name) in p's
// directory and environment and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, p procEnv) int {
	if len(args) > 0 && args[0] == hookwire.SlowPathArg {
		// permopa-hook's slow path, when permopa-hook-local is not beside
		// permopa-hook (adapter/hookclient): a process of its own, which
		// reads and writes the process's standard streams.
		return hookclient.Main(args[1:])
	}
	root := newRootCommand(args, stdin, stdout, stderr, p)
	root.SetArgs(args)
	ran, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var code exitCode
	if errors.As(err, &code) {
		return int(code)
	}
	var exit *cmd.ExitError
	if errors.As(err, &exit) {
		return exit.Exit
	}
	// OPA's commands that report their own errors (run, build, ...) set
	// SilenceErrors on themselves; printing again would repeat them.
	if ran == nil || ran == root || !ran.SilenceErrors {
		fmt.Fprintln(stderr, err)
	}
	return 1
}
