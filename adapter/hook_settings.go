package adapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// LoadCwdSettings loads every settings layer that applies to a call made
// in cwd (settings.LoadLayers: managed, the command line's files, PERMOPA_*
// variables, <cwd>/.permopa/settings.local.yaml and settings.yaml, those
// of every enclosing directory's .permopa (docs/rules.md, "Enclosing
// projects"), and the user's settings.yaml in $PERMOPA_CONFIG_DIR,
// $XDG_CONFIG_HOME/permopa or <home>/.config/permopa): every rule keeps its file as layer
// and the layer's name as source. Invalid rules are returned as problems
// (the valid ones are kept); a settings file that exists but cannot be read
// is an error, so that a hook fails closed instead of deciding without the
// user's deny rules.
func LoadCwdSettings(cwd, home string, cli []string) (settings.Settings, []error, error) {
	return loadCwdSettings(cwd, home, cli, nil)
}

// loadCwdSettings is LoadCwdSettings with the environment the PERMOPA_*
// variables are read from (nil: the process's).
func loadCwdSettings(cwd, home string, cli, environ []string) (settings.Settings, []error, error) {
	for _, f := range cli {
		if _, err := os.Stat(f); err != nil {
			return settings.Settings{}, nil, fmt.Errorf("settings %s: %w", f, err)
		}
	}
	// The user directory is found as every command finds it
	// (PERMOPA_CONFIG_DIR, $XDG_CONFIG_HOME/permopa, <home>/.config/permopa),
	// so that what `permopa rules add --destination user` and `permopa
	// trust` write is what the hook reads.
	opts := settings.LayerOptions{ProjectDir: cwd, CommandLine: cli, Home: home, Cwd: cwd, Environ: environ}
	s, problems := settings.LoadLayers(opts)
	var rest []error
	for _, p := range problems {
		if settings.UnreadableFile(p) {
			return settings.Settings{}, problems, p
		}
		rest = append(rest, p)
	}
	return s, rest, nil
}

// BlockingProblems is the error a hook fails closed with when a deny or ask
// rule of the settings could not be read (settings.UnsafeProblems, in any
// settings shape): deciding without it could allow what the user meant to
// deny. Unreadable allow rules only make permopa ask more, so they are
// reported and skipped. nil when there is none.
func BlockingProblems(problems []error) error {
	unsafe := settings.UnsafeProblems(problems)
	if len(unsafe) == 0 {
		return nil
	}
	msgs := make([]string, len(unsafe))
	for i, p := range unsafe {
		msgs[i] = p.Error()
	}
	return fmt.Errorf("a deny or ask rule cannot be read, so no call is let through until it is fixed: %s", strings.Join(msgs, "; "))
}

// HookEngineOptions are what a hook's command line adds to the settings
// of the call's cwd: settings files (highest first), OPA bundles and Rego
// files added to the embedded policy, the default mode, the per-decision
// timeout (0: engine.DefaultTimeout) and how many decisions run at once.
type HookEngineOptions struct {
	Settings   []string
	Bundles    []string
	Policies   []string
	Mode       string
	Timeout    time.Duration
	Concurrent int
	// Stderr receives the settings problems a hook reports and decides
	// without (an allow rule that cannot be read); nil: os.Stderr.
	Stderr io.Writer
	// Environ is the environment the PERMOPA_* settings variables are read
	// from, as KEY=VALUE (nil: the process's).
	Environ []string
	// Explain: the engine also evaluates the policy's explanation
	// (`permopa explain`); without it the engine only decides
	// (engine.WithDecisionOnly).
	Explain bool
}

// NewHookEngine builds the engine that decides a hook call made in cwd:
// the cwd's settings layers (LoadCwdSettings) with o.Settings first,
// o.Mode as the default mode, and o's bundles and policy files. It is the
// one engine of `permopa hook`, `permopa explain --host` and
// permopa-hook-local, so the three decide alike. A deny or ask rule that
// cannot be read is an error (BlockingProblems): the hook blocks.
//
// The embedded policy alone is compiled without OPA's check-only stages
// (engine.WithCheckedPolicy) and, unless o.Explain, without the
// explanation no decision reads (engine.WithDecisionOnly): a hook process
// compiles it once and exits.
func NewHookEngine(ctx context.Context, cwd, home string, o HookEngineOptions) (*engine.Engine, error) {
	// The policy does not depend on the settings: it compiles while they
	// are read (a cold hook's two largest costs, on two cores), and the
	// settings go into the store afterwards, as a settings change does.
	type built struct {
		e   *engine.Engine
		err error
	}
	compiled := make(chan built, 1)
	go func() {
		e, err := NewHookPolicy(ctx, o)
		compiled <- built{e, err}
	}()
	s, err := hookSettings(cwd, home, o)
	if err != nil {
		return nil, err
	}
	var b built
	select {
	case b = <-compiled:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if b.err != nil {
		return nil, b.err
	}
	if err := b.e.SetSettings(ctx, s); err != nil {
		return nil, err
	}
	return b.e, nil
}

// NewHookPolicy is the engine of NewHookEngine before any settings are
// set: the policy compiled once, as the hook server (cmd/permopa-hook-local
// --serve) keeps it, setting each call's settings with ApplyHookSettings.
func NewHookPolicy(ctx context.Context, o HookEngineOptions) (*engine.Engine, error) {
	opts := []engine.Option{engine.WithCheckedPolicy()}
	if !o.Explain {
		opts = append(opts, engine.WithDecisionOnly())
	}
	if o.Timeout > 0 {
		opts = append(opts, engine.WithTimeout(o.Timeout))
	}
	// Each decision made at once plus one abandoned at its deadline: an
	// input that takes too long cannot pile up work behind the answers.
	opts = append(opts, engine.WithMaxConcurrent(2*max(o.Concurrent, 1)))
	if len(o.Bundles) > 0 {
		opts = append(opts, engine.WithBundles(o.Bundles...))
	}
	if len(o.Policies) > 0 {
		opts = append(opts, engine.WithPolicyPaths(o.Policies...))
	}
	return engine.New(ctx, opts...)
}

// ApplyHookSettings sets in eng (from NewHookPolicy) the settings of a
// hook call made in cwd, read now, exactly as NewHookEngine sets them: the
// settings an engine from NewHookEngine(ctx, cwd, home, o) decides with.
func ApplyHookSettings(ctx context.Context, eng *engine.Engine, cwd, home string, o HookEngineOptions) error {
	s, err := hookSettings(cwd, home, o)
	if err != nil {
		return err
	}
	return eng.SetSettings(ctx, s)
}

// HookSettingsStamp is the state (type, mode, owner, inode, size, times,
// and for a link its target's) of every path the settings of a hook call
// made in cwd are read from or looked for (settings.Layers.SourcePaths):
// while it is unchanged, ApplyHookSettings would set the same settings
// (rule expiries aside, which the engine applies itself at each decision).
//
// The hook server takes it at every call, so it costs one lstat per path
// (a second stat only for a symbolic link) and none for the files of a
// directory that is itself a source path and does not exist (the managed
// or user settings directory): each path's part is what lstat and stat
// would say, as if both were called on every path.
func HookSettingsStamp(cwd, home string, o HookEngineOptions) string {
	l := settings.NewLayers(settings.LayerOptions{ProjectDir: cwd, CommandLine: o.Settings, Home: home, Cwd: cwd, Environ: o.Environ})
	paths := l.SourcePaths()
	// The directories among the paths go first: a file in one that does
	// not exist is not there either (ENOENT, whatever comes after it).
	isDir := make(map[string]bool, len(paths))
	for _, p := range paths {
		isDir[filepath.Dir(p)] = true
	}
	stamps := make([]string, len(paths))
	missing := map[string]bool{}
	for pass := 0; pass < 2; pass++ {
		for i, p := range paths {
			if isDir[p] != (pass == 0) {
				continue
			}
			if missing[filepath.Dir(p)] {
				stamps[i] = absentStamp + absentStamp
				continue
			}
			fi, err := os.Lstat(p)
			lst := fileStamp(fi, err)
			st := lst
			if err == nil && fi.Mode()&os.ModeSymlink != 0 {
				st = fileStamp(os.Stat(p))
			}
			if errors.Is(err, syscall.ENOENT) {
				missing[p] = true
			}
			stamps[i] = lst + st
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%s\x00%s", cwd, home, o.Mode)
	for i, p := range paths {
		b.WriteString("\x00")
		b.WriteString(p)
		b.WriteString(stamps[i])
	}
	return b.String()
}

// absentStamp is fileStamp's part for a path that does not exist.
var absentStamp = fileStamp(nil, &os.PathError{Op: "lstat", Err: syscall.ENOENT})

// hookSettings reads the settings of a hook call made in cwd; a deny or
// ask rule that cannot be read is an error, other problems go to
// o.Stderr.
func hookSettings(cwd, home string, o HookEngineOptions) (settings.Settings, error) {
	s, problems, err := loadCwdSettings(cwd, home, o.Settings, o.Environ)
	if err != nil {
		return settings.Settings{}, err
	}
	if err := BlockingProblems(problems); err != nil {
		return settings.Settings{}, err
	}
	stderr := o.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	for _, p := range problems {
		var lint *settings.Problem
		if errors.As(p, &lint) && lint.Lint() {
			// A rule read as written that may not mean what it looks like:
			// `permopa rules lint` and decide report it. A hook stays quiet
			// (a host may show stderr to the model) and answers as the
			// server's fast path does.
			continue
		}
		fmt.Fprintln(stderr, "permopa: ignoring invalid rule:", p)
	}
	if o.Mode != "" {
		s.DefaultMode = o.Mode
	}
	return s, nil
}
