package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

type engineFlags struct {
	// layered: read every settings layer (managed, command line,
	// environment, project of the working directory, user), not only the
	// --settings files.
	layered  bool
	settings []string
	mode     string
	bundles  []string
	policies []string
	// timeout bounds each decision (engine.WithTimeout); 0 keeps the engine's default.
	timeout time.Duration
	// concurrent is how many decisions the command makes at once (0: one).
	concurrent int
	// decisionOnly: the command prints decisions only, never the policy's
	// explanation (decide), so the engine is built without it
	// (engine.WithDecisionOnly) when the policy is the embedded one alone
	// and no decision cache is asked for.
	decisionOnly bool
	// cache is the decision cache's size in decisions (0: off; decide --cache).
	cache int
	// proc is the working directory and environment the layers are read
	// in, and relative paths resolved against.
	proc procEnv
	// projectDir and userDir are the layers' project and user directories
	// (layered only), for the calls' own projects (projects).
	projectDir, userDir string
	// layerOpts are the options the layers were read with (layered
	// only): projects reads them again when a file changes.
	layerOpts *settings.LayerOptions
	stderr    io.Writer
}

// projects is the cache of the calls' cwd projects for eng: a call whose
// cwd is another project than the working directory's gets that project's
// rules too (adapter.ProjectCache); nil when the settings are not layered.
func (f *engineFlags) projects(eng *engine.Engine) *adapter.ProjectCache {
	if !f.layered {
		return nil
	}
	pc := adapter.NewProjectCache(eng, f.projectDir, f.userDir)
	if f.layerOpts != nil {
		// The working directory's project, the user's and the other
		// layers are read again when a file of theirs changes, as a
		// call's other project is: a deny rule added or trust revoked
		// counts from the next line (docs/rules.md, "Trusted projects").
		opts := *f.layerOpts
		pc.WatchBase(settings.NewLayers(opts).SourcePaths(), func(ctx context.Context) []string {
			l := settings.NewLayers(opts)
			s, problems := l.Load()
			if f.mode != "" {
				s.DefaultMode = f.mode
			}
			if f.stderr != nil {
				reportSettingsProblems(f.stderr, problems)
			}
			err := eng.UpdateSettings(ctx, func(cur *settings.Settings) error {
				sessions, modes, projects, pu := cur.SessionRules, cur.SessionModes, cur.Projects, cur.ProjectUntrusted
				*cur = s.Clone()
				cur.SessionRules, cur.SessionModes, cur.Projects, cur.ProjectUntrusted = sessions, modes, projects, pu
				return nil
			})
			if err != nil && f.stderr != nil {
				fmt.Fprintln(f.stderr, "permopa: error: settings changed but could not be applied:", err)
			}
			return l.SourcePaths()
		})
	}
	return pc
}

func (f *engineFlags) register(c *cobra.Command) {
	c.Flags().StringArrayVar(&f.settings, "settings", nil, "settings file (YAML, JSON or TOML); repeat for more layers, highest first")
	c.Flags().StringVar(&f.mode, "mode", "", "mode for inputs that name none (default, acceptEdits, plan, bypassPermissions, dontAsk, or AgentScope names)")
	c.Flags().StringArrayVarP(&f.bundles, "bundle", "b", nil, "OPA bundle (directory or .tar.gz) added to the embedded policy")
	c.Flags().StringArrayVar(&f.policies, "policy", nil, "Rego file or directory added to the embedded policy")
}

// engine builds the engine. A --settings file that cannot be read at all
// is an error: the user named it. Other settings problems are reported on
// stderr; the valid rules are kept, but while a deny or ask rule may be
// missing (settings.UnsafeProblems) every decision is DENY with code
// settings_unreadable, as a hook blocks.
func (f *engineFlags) engine(ctx context.Context, stderr io.Writer) (*engine.Engine, error) {
	var s settings.Settings
	files := f.proc.paths(f.settings)
	if f.layered {
		for _, file := range files {
			if _, err := os.Stat(file); err != nil {
				return nil, fmt.Errorf("settings %s: %w", file, err)
			}
		}
		var problems []error
		opts := settings.LayerOptions{CommandLine: files, Environ: f.proc.Environ, Cwd: f.proc.Dir}
		if f.proc.Environ != nil {
			opts.Home = f.proc.getenv("HOME")
		}
		l := settings.NewLayers(opts)
		s, problems = l.Load()
		f.projectDir, f.userDir = l.ProjectDir(), l.UserDir()
		f.layerOpts, f.stderr = &opts, stderr
		for _, p := range problems {
			var fp *settings.Problem
			if errors.As(p, &fp) && fp.Kind == settings.CheckUnreadable && slices.Contains(files, fp.File) {
				// Nothing is decided: the error says what is wrong and
				// where, not what would happen to the file's rules.
				err := fp.Err
				if !strings.Contains(err.Error(), fp.File) {
					err = fmt.Errorf("settings %s: %w", fp.File, err)
				}
				return nil, err
			}
		}
		reportSettingsProblems(stderr, problems)
	} else {
		var layers []settings.Settings
		var all []error
		for _, file := range files {
			ls, problems, err := settings.LoadSettingsFile(file, "")
			if err != nil {
				return nil, err
			}
			all = append(all, problems...)
			layers = append(layers, ls)
		}
		reportSettingsProblems(stderr, all)
		s = settings.Merge(layers...)
	}
	return f.newEngine(ctx, s)
}

// reportSettingsProblems prints settings problems on stderr, saying which ones
// stop every call.
func reportSettingsProblems(stderr io.Writer, problems []error) {
	unsafe := settings.UnsafeProblems(problems)
	for _, p := range problems {
		if slices.Contains(unsafe, p) {
			fmt.Fprintln(stderr, "permopa: error: every call is denied until this is fixed:", p)
			continue
		}
		level := settings.LevelWarning
		var sp *settings.Problem
		if errors.As(p, &sp) && sp.Lint() {
			level = sp.Level // as `permopa rules lint` says it
		}
		fmt.Fprintf(stderr, "permopa: %s: %v\n", level, p)
	}
}

// newEngine builds the engine over settings s with the flags' mode, bundles
// and policy files.
func (f *engineFlags) newEngine(ctx context.Context, s settings.Settings) (*engine.Engine, error) {
	if f.mode != "" {
		s.DefaultMode = f.mode
	}
	// The embedded policy's check-only compile stages are skipped: the
	// test suite compiles it with every check, and the decisions are the
	// same (engine.WithCheckedPolicy, TestCheckedPolicyDecidesTheSame);
	// policy files and bundles are always checked.
	opts := []engine.Option{engine.WithSettings(s), engine.WithCheckedPolicy()}
	if f.decisionOnly && f.cache == 0 && len(f.bundles) == 0 && len(f.policies) == 0 {
		opts = append(opts, engine.WithDecisionOnly())
	}
	if f.timeout > 0 {
		opts = append(opts, engine.WithTimeout(f.timeout))
	}
	// Each decision the command makes at once (one for decide) plus one
	// abandoned at its deadline: an input that takes too long cannot pile
	// up work behind the answers.
	opts = append(opts, engine.WithMaxConcurrent(2*max(f.concurrent, 1)))
	if f.cache < 0 {
		return nil, fmt.Errorf("--cache %d: want a number of decisions (0: no cache)", f.cache)
	}
	if f.cache > 0 {
		opts = append(opts, engine.WithDecisionCache(f.cache, 0))
	}
	if len(f.bundles) > 0 {
		opts = append(opts, engine.WithBundles(f.proc.paths(f.bundles)...))
	}
	if len(f.policies) > 0 {
		opts = append(opts, engine.WithPolicyPaths(f.proc.paths(f.policies)...))
	}
	return engine.New(ctx, opts...)
}

func decideCommand(p procEnv) *cobra.Command {
	f := engineFlags{layered: true, proc: p, decisionOnly: true}
	var logFile string
	c := &cobra.Command{
		Use:   "decide",
		Short: "Decide tool calls: JSON inputs on stdin, one decision per line on stdout",
		Long: `Reads one JSON input per line on stdin and writes one decision per line on
stdout, in the same order, each as soon as its line is read. Every non-blank
line gets exactly one decision: a line that is not JSON, is cut short or fails
validation gets a DENY with step "error", its "line" number and, when the line
shows it, the call's "tool_use_id"; the next line is decided as usual. A line
longer than 16 MiB is such a DENY too. A pretty-printed document (a line that
is "{" alone, indented lines, a line that is "}" alone) is one input when it is
a whole JSON object; otherwise each of its lines is decided on its own. Exit
status 0 when every line was decided (DENY included).

Settings come from every layer, highest first: managed (/etc/permopa), the
--settings files, PERMOPA_* environment variables, the working directory's
.permopa/settings.local.yaml and .permopa/settings.yaml, and the user's
~/.config/permopa/settings.yaml. A call whose cwd is another directory with
a .permopa/ also gets the rules of that project's files. A project's own
files loosen nothing until you trust the project (permopa trust). While a
deny or ask rule of any of them cannot be read (or a settings file is a
symbolic link to something that is not a settings file), every line is a
DENY with code settings_unreadable (project_settings_unreadable for a
call's own project). A settings file or the trust changed while decide runs
counts from the next line (for the working directory's layers, a line read
100 ms or more after the last check).

Each decision has --timeout (a DENY with code timeout past it); an input
over 16 MiB is a DENY with code invalid_json without being read into memory.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			// The collector's percent is raised until the first decisions
			// are written out (at most the stream's 64 KiB buffer): a
			// decide of a few lines is mostly the policy's compile.
			restore := p.coldGC()
			defer restore()
			eng, err := f.engine(ctx, c.ErrOrStderr())
			if err != nil {
				return err
			}
			if l := newCallLog(p.path(logFile), "decide", c.ErrOrStderr(), eng.BundleRevisions); l != nil {
				eng.SetObserver(l.decision)
				defer l.close(5 * time.Second)
			}
			out := afterFirstWrite{c.OutOrStdout(), restore}
			return adapter.DecideStreamProjects(ctx, eng, f.projects(eng), c.InOrStdin(), out)
		},
	}
	f.register(c)
	c.Flags().DurationVar(&f.timeout, "timeout", decideTimeout, "deny (code timeout) a decision that takes longer than this")
	c.Flags().StringVar(&logFile, "log", "", logFlagUsage)
	c.Flags().IntVar(&f.cache, "cache", 0, "answer repeated calls from a cache of this many decisions (0: off); it never changes an answer (docs/architecture.md, \"Repeated calls\")")
	return c
}

// decideTimeout bounds each decision of `permopa decide`, as a hook's
// --timeout does.
const decideTimeout = 5 * time.Second
