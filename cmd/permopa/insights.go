package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/open-policy-agent/opa/cmd"
	"github.com/spf13/cobra"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/replay"
)

func insightsCommand(p procEnv) *cobra.Command {
	f := engineFlags{layered: true, proc: p}
	var lf logFlags
	var redecide bool
	var topN, jobs int
	c := &cobra.Command{
		Use:   "insights [LOG...]",
		Short: "Where a decision log's prompts and denials come from, and which rules would remove the most",
		Long: `Reads the same logs as 'permopa replay' and reports where the ASKs and DENYs
come from: per tool, per program of Bash commands, per decision step and
rule, per mode and per project (cwd); the suggested rules that would have
removed the most ASKs, each with the calls it covers, the command that adds
it, and its risk (how many of those calls were not read-only, touched a
dangerous path, or ran code permopa cannot see); and the ALLOWs that came
from broad rules (a whole tool, only wildcards, or a wildcard standing for
code).

The decisions are the recorded ones; calls without one (plain inputs), and
every call with --redecide, are decided by the policy the --settings,
--bundle, --policy and --mode flags describe.

--format text (default), json, or html: one self-contained file with
charts (prompts over time, top programs, rule coverage) that opens from
disk, loads nothing, and runs no script (write it with -o report.html).
Exit status 2 when a log value could not be read.`,
		RunE: func(c *cobra.Command, args []string) error {
			ctx, stdout, stderr := c.Context(), c.OutOrStdout(), c.ErrOrStderr()
			switch lf.format {
			case "text", "json", "html":
			default:
				return usageErr(stderr, "--format %q: want text, json or html", lf.format)
			}
			sources, err := logSources(args, c.InOrStdin(), p)
			if err != nil {
				return exit2(stderr, err)
			}
			if jobs <= 0 {
				jobs = runtime.GOMAXPROCS(0)
			}
			f.layered, f.concurrent = !lf.isolated, jobs
			home, _ := p.home()
			prog := newProgress(stderr, "permopa insights")
			in, err := replay.RunInsights(ctx, sources, replay.InsightsOptions{
				Engine:   func(ctx context.Context) (*engine.Engine, error) { return f.engine(ctx, stderr) },
				Redecide: redecide,
				Home:     home,
				Top:      topN,
				Jobs:     jobs,
				Reader:   decisionlog.ReaderOptions{Paths: lf.paths},
				OnError: func(err error) {
					fmt.Fprintln(stderr, "permopa insights:", replay.Printable(err.Error()))
				},
				Progress: func(p replay.Progress) { prog.update(p.Calls, 0, p.Elapsed) },
			})
			prog.done()
			if err != nil {
				return exit2(stderr, err)
			}
			w, closeOut, err := lf.outputFile(stdout, p)
			if err != nil {
				return exit2(stderr, err)
			}
			switch lf.format {
			case "json":
				err = replay.WriteInsightsJSON(w, in)
			case "html":
				err = replay.WriteInsightsHTML(w, in, topN)
			default:
				err = replay.WriteInsightsText(w, in, topN)
			}
			if err == nil {
				err = closeOut()
			}
			if err != nil {
				return exit2(stderr, err)
			}
			if in.Errors > 0 {
				fmt.Fprintf(stderr, "permopa insights: %d log values could not be read\n", in.Errors)
				return &cmd.ExitError{Exit: 2}
			}
			return nil
		},
	}
	f.register(c)
	c.Flags().DurationVar(&f.timeout, "timeout", decideTimeout, "deny (code timeout) a decision that takes longer than this, as 'permopa decide' does")
	c.Flags().BoolVar(&redecide, "redecide", false, "decide every call with the policy of the flags instead of using the recorded decisions")
	c.Flags().IntVar(&topN, "top", 15, "rows per table and chart in the text and HTML reports")
	c.Flags().IntVar(&jobs, "jobs", 0, "calls read at once (default: the number of CPUs)")
	lf.register(c, "text, json or html")
	return c
}
