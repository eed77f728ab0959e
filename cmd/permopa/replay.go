package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/cmd"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/replay"
)

// logFlags are the flags of the commands that read decision logs.
type logFlags struct {
	paths    []string
	isolated bool
	format   string
	output   string
}

func (l *logFlags) register(c *cobra.Command, formats string) {
	c.Flags().StringArrayVar(&l.paths, "path", nil, "decision path of the events to read (default permopa/policy/decision); repeat for more")
	c.Flags().BoolVar(&l.isolated, "isolated", false, "use only the --settings files: no managed, PERMOPA_*, project or user settings")
	c.Flags().StringVar(&l.format, "format", "text", "output format: "+formats)
	c.Flags().StringVarP(&l.output, "output", "o", "", "write the report to this file instead of stdout")
}

// sources are the logs named on the command line ("-" or none: stdin).
func logSources(args []string, stdin io.Reader, p procEnv) ([]replay.Source, error) {
	if len(args) == 0 {
		args = []string{"-"}
	}
	args = p.paths(args)
	var out []replay.Source
	for _, a := range args {
		if a == "-" {
			out = append(out, replay.Source{Name: "stdin", Open: func() (io.ReadCloser, error) { return io.NopCloser(stdin), nil }})
			continue
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			return nil, fmt.Errorf("%s is a directory; name the log files", a)
		}
		out = append(out, replay.Source{Name: a, Open: func() (io.ReadCloser, error) { return os.Open(a) }})
	}
	return out, nil
}

// outputFile opens -o (or returns stdout).
func (l *logFlags) outputFile(stdout io.Writer, p procEnv) (io.Writer, func() error, error) {
	if l.output == "" || l.output == "-" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.Create(p.path(l.output))
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// progress prints a line on stderr, now and then, when stderr is a terminal.
type progress struct {
	w    io.Writer
	on   bool
	mu   sync.Mutex
	last time.Time
	what string
}

// newProgress reports progress on stderr when it is a terminal.
func newProgress(stderr io.Writer, what string) *progress {
	f, ok := stderr.(*os.File)
	return &progress{w: stderr, on: ok && term.IsTerminal(int(f.Fd())), what: what}
}

func (p *progress) update(calls, changed int, elapsed time.Duration) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	rate := float64(calls) / max(elapsed.Seconds(), 1e-3)
	fmt.Fprintf(p.w, "\r\033[K%s: %d calls, %.0f/s, %d changed", p.what, calls, rate, changed)
}

func (p *progress) done() {
	if p.on && !p.last.IsZero() {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func replayCommand(p procEnv) *cobra.Command {
	f := engineFlags{layered: true, proc: p}
	base := engineFlags{proc: p}
	var lf logFlags
	var rebase, reasons, projectRules bool
	var failOn string
	var maxChanges, jobs int
	c := &cobra.Command{
		Use:   "replay [LOG...]",
		Short: "Decide recorded calls again under a candidate policy and report what changed",
		Long: `Reads recorded tool calls and decides each again under the policy that the
flags describe (--settings, --bundle, --policy, --mode, as for 'permopa
decide'), then reports what changed: the calls per old → new behavior and
per old → new step, and each call whose behavior changed, with its old and
new decision, rule and layer.

Logs (files, or stdin with "-" or none) may hold, in any mix:
  - OPA decision log events, as 'permopa run --server' ships them to a
    collector (NDJSON, or the gzip'd JSON batches OPA uploads, one or
    several per file) or prints them on its console;
  - events written by 'permopa decide --log' and 'permopa hook --log';
  - 'permopa decide' inputs, each optionally followed by its decision.

The old decision is the recorded one. A call without one (a plain input) is
decided by the base policy: the --base-* flags, or the current settings and
embedded policy when none is given; --rebase compares every call with the
base policy instead of the log.

Fields the log's mask erased (file contents and edits by default) stay
erased: a call whose new decision could read one is reported as UNKNOWN,
naming the field and the rule, never as a guess. Nothing in a log is run.

A decision that takes longer than --timeout (base or candidate) is listed
as TIMEOUT and not compared: it says nothing about the rules.

Exit status: 0; 1 when --fail-on trips (allow-widened: a call is now more
permissive, DENY → ASK or ALLOW, ASK → ALLOW, or unknown or timed out and
was not ALLOW; any: any behavior changed, is unknown or timed out); 2 when
a log value could not be read or the replay could not run.`,
		RunE: func(c *cobra.Command, args []string) error {
			ctx, stdout, stderr := c.Context(), c.OutOrStdout(), c.ErrOrStderr()
			gate := replay.Gate(failOn)
			switch gate {
			case replay.GateNone, replay.GateAllowWidened, replay.GateAny:
			default:
				return usageErr(stderr, "--fail-on %q: want none, allow-widened or any", failOn)
			}
			if lf.format != "text" && lf.format != "json" {
				return usageErr(stderr, "--format %q: want text or json", lf.format)
			}
			sources, err := logSources(args, c.InOrStdin(), p)
			if err != nil {
				return exit2(stderr, err)
			}
			if jobs <= 0 {
				jobs = runtime.GOMAXPROCS(0)
			}
			// Each worker decides one call at a time with each engine.
			f.layered, f.concurrent = !lf.isolated, jobs
			cand, err := f.engine(ctx, stderr)
			if err != nil {
				return exit2(stderr, fmt.Errorf("candidate policy: %w", err))
			}
			base.layered, base.mode, base.timeout, base.concurrent = !lf.isolated, f.mode, f.timeout, jobs
			baseGiven := len(base.settings)+len(base.bundles)+len(base.policies) > 0
			w, closeOut, err := lf.outputFile(stdout, p)
			if err != nil {
				return exit2(stderr, err)
			}
			ropts := replay.ReportOptions{Reasons: reasons, Max: maxChanges, Title: f.describe()}
			var report replay.Report
			if lf.format == "json" {
				report = replay.NewJSONReport(w, ropts)
			} else {
				if !c.Flags().Changed("max-changes") {
					ropts.Max = 200
				}
				report = replay.NewTextReport(w, ropts)
			}
			gc := &replay.GateCounter{Gate: gate}
			prog := newProgress(stderr, "permopa replay")
			sum, runErr := replay.Run(ctx, sources, replay.Options{
				Candidate: cand,
				Base: func(ctx context.Context) (*engine.Engine, error) {
					return base.engine(ctx, stderr)
				},
				Rebase: rebase || baseGiven,
				Jobs:   jobs,
				Reader: decisionlog.ReaderOptions{Paths: lf.paths},
				OnCall: func(call *replay.Call) error {
					gc.Add(call)
					return report.Call(call)
				},
				OnError: func(err error) {
					report.Error(err)
					if lf.format == "json" || lf.output != "" {
						fmt.Fprintln(stderr, "permopa replay:", replay.Printable(err.Error()))
					}
				},
				Progress:     func(p replay.Progress) { prog.update(p.Calls, p.Changed, p.Elapsed) },
				ProjectRules: projectRules,
				// The layers' project (none with --isolated), so that
				// the report names the calls made in another one.
				WorkProject: f.projectDir,
				UserDir:     (&layerFlags{proc: p}).layers().UserDir(),
				OnWarning:   func(s string) { fmt.Fprintln(stderr, "permopa replay: warning:", replay.Printable(s)) },
			})
			prog.done()
			if runErr != nil {
				return exit2(stderr, runErr)
			}
			if err := report.Finish(sum); err != nil {
				return exit2(stderr, err)
			}
			if err := closeOut(); err != nil {
				return exit2(stderr, err)
			}
			if gc.Calls > 0 {
				fmt.Fprintf(stderr, "permopa replay: --fail-on %s: %d calls\n", gate, gc.Calls)
				return &cmd.ExitError{Exit: 1}
			}
			if sum.Errors > 0 {
				fmt.Fprintf(stderr, "permopa replay: %d log values could not be read\n", sum.Errors)
				return &cmd.ExitError{Exit: 2}
			}
			return nil
		},
	}
	f.register(c)
	c.Flags().DurationVar(&f.timeout, "timeout", decideTimeout, "a decision that takes longer than this is reported as timed out (not compared), as 'permopa decide' would deny it")
	c.Flags().StringArrayVar(&base.settings, "base-settings", nil, "settings file of the base policy (for calls without a recorded decision, or with --rebase); repeat for more layers")
	c.Flags().StringArrayVar(&base.bundles, "base-bundle", nil, "OPA bundle of the base policy")
	c.Flags().StringArrayVar(&base.policies, "base-policy", nil, "Rego file or directory of the base policy")
	c.Flags().BoolVar(&rebase, "rebase", false, "compare with the base policy's decisions rather than the recorded ones (implied by any --base-* flag)")
	c.Flags().StringVar(&failOn, "fail-on", "none", "exit 1 when: none, allow-widened (a call is now more permissive), any (any behavior changed)")
	c.Flags().BoolVar(&reasons, "reasons", false, "also list the calls whose behavior is the same but whose step, check, rule or layer changed")
	c.Flags().IntVar(&maxChanges, "max-changes", 0, "list at most this many changed calls (0: all; the text report lists 200 unless set)")
	c.Flags().IntVar(&jobs, "jobs", 0, "calls decided at once (default: the number of CPUs)")
	c.Flags().BoolVar(&projectRules, "project-rules", false, "apply to each call the rules of its cwd's project (.permopa/settings.local.* and settings.*, and every enclosing directory's .permopa), as 'permopa hook' does, when the directory exists here")
	lf.register(c, "text or json")
	return c
}

// describe names the policy the flags describe, for report headings.
func (f *engineFlags) describe() string {
	var parts []string
	for _, s := range f.settings {
		parts = append(parts, "--settings "+s)
	}
	for _, b := range f.bundles {
		parts = append(parts, "--bundle "+b)
	}
	for _, p := range f.policies {
		parts = append(parts, "--policy "+p)
	}
	if f.mode != "" {
		parts = append(parts, "--mode "+f.mode)
	}
	if len(parts) == 0 {
		return "the current policy"
	}
	return strings.Join(parts, " ")
}

// exit2 prints err on stderr and exits 2: the command could not do its job.
func exit2(stderr io.Writer, err error) error {
	fmt.Fprintln(stderr, "permopa:", err)
	return &cmd.ExitError{Exit: 2}
}

func usageErr(stderr io.Writer, format string, args ...any) error {
	return exit2(stderr, fmt.Errorf(format, args...))
}
