package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/open-policy-agent/opa/cmd"
	"github.com/spf13/cobra"

	"github.com/permopa/permopa/internal/safefile"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// layerFlags locate the settings layers (docs/usage.md, "Rules").
type layerFlags struct {
	managedDir, projectDir, userDir string
	settings                        []string
	// proc is the working directory and environment the layers are
	// found in.
	proc procEnv
}

func (f *layerFlags) register(c *cobra.Command) {
	c.PersistentFlags().StringVar(&f.projectDir, "project", "", "project root holding .permopa/ (default: the working directory, or $PERMOPA_PROJECT_DIR)")
	c.PersistentFlags().StringVar(&f.managedDir, "managed-dir", "", "managed settings directory (default /etc/permopa, or $PERMOPA_MANAGED_DIR when root owns it)")
	c.PersistentFlags().StringVar(&f.userDir, "user-dir", "", "user settings directory (default ~/.config/permopa, or $PERMOPA_CONFIG_DIR)")
	c.PersistentFlags().StringArrayVar(&f.settings, "settings", nil, "extra settings file, as given on the command line (listing only)")
}

func (f *layerFlags) layers() *settings.Layers {
	p := f.proc
	opts := settings.LayerOptions{
		ManagedDir: p.path(f.managedDir), ProjectDir: p.path(f.projectDir), UserDir: p.path(f.userDir), CommandLine: p.paths(f.settings),
		Environ: p.Environ, Cwd: p.Dir,
	}
	if p.Environ != nil {
		opts.Home = p.getenv("HOME")
	}
	return settings.NewLayers(opts)
}

func rulesCommand(p procEnv) *cobra.Command {
	lf := layerFlags{proc: p}
	c := &cobra.Command{
		Use:   "rules",
		Short: "List, add and revoke permission rules in the settings layers",
		Long: `Shows and edits the permission rules of every settings layer: managed
(/etc/permopa), command line, environment (PERMOPA_*), local project
(.permopa/settings.local.yaml), shared project (.permopa/settings.yaml) and
user (~/.config/permopa/settings.yaml). Edits are atomic and safe against
concurrent writers; a running permopa watching the files picks them up.`,
	}
	lf.register(c)
	c.AddCommand(rulesListCommand(&lf), rulesAddCommand(&lf), rulesRevokeCommand(&lf), rulesExportCommand(p), rulesLintCommand(&lf))
	return c
}

func rulesListCommand(lf *layerFlags) *cobra.Command {
	var asJSON, files bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List the rules of every layer, highest first, with their layer and expiry",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			l := lf.layers()
			if files {
				tw := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "SOURCE\tFILE\tEXISTS")
				for _, f := range l.Files() {
					fmt.Fprintf(tw, "%s\t%s\t%v\n", f.Source, f.Path, f.Exists)
				}
				return tw.Flush()
			}
			_, problems := l.Load()
			reportProblems(c.ErrOrStderr(), problems)
			return printRules(c.OutOrStdout(), l.Rules(), asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON (one array of rules)")
	c.Flags().BoolVar(&files, "files", false, "list the settings files looked at instead, highest layer first")
	return c
}

type listedRule struct {
	permission.Rule
	Text    string `json:"rule"`
	Expired bool   `json:"expired"`
}

func printRules(w io.Writer, rules []permission.Rule, asJSON bool) error {
	now := time.Now()
	if asJSON {
		out := make([]listedRule, 0, len(rules))
		for _, r := range rules {
			out = append(out, listedRule{Rule: r, Text: r.String(), Expired: r.ExpiredAt(now)})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BEHAVIOR\tRULE\tSOURCE\tLAYER\tEXPIRES")
	for _, r := range rules {
		exp := "never"
		if r.Expires != "" {
			exp = r.Expires
			if r.ExpiredAt(now) {
				exp += " (expired)"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", strings.ToLower(r.Behavior), r.String(), r.Source, r.Layer, exp)
	}
	return tw.Flush()
}

// reportProblems prints settings problems as decide does
// (reportSettingsProblems): a lint finding names its own level, so it is
// not prefixed with another.
func reportProblems(w io.Writer, problems []error) {
	reportSettingsProblems(w, problems)
}

// rulesArgs parses rule arguments in Claude Code form with a behavior.
func rulesArgs(args []string, behavior string) ([]permission.Rule, error) {
	switch strings.ToLower(behavior) {
	case "allow", "ask", "deny":
	default:
		return nil, fmt.Errorf("--behavior %q: want allow, ask or deny", behavior)
	}
	var rules []permission.Rule
	for _, a := range args {
		r, err := settings.RuleFrom(a, behavior)
		if err != nil {
			return nil, err
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// refuseRules says why rules add must write none of args: a rule that does
// not parse, or one for a near miss of a built-in tool ("Reed", "Bassh")
// that would match nothing; "" when every rule may be written. It names
// the argument and the column (1-based) of the mistake. MCP tools and
// custom tools are legitimately unknown and accepted.
func refuseRules(args []string, behavior string) string {
	for i, a := range args {
		where := fmt.Sprintf("argument %d, %q", i+1, a)
		r, err := settings.RuleFrom(a, strings.ToLower(behavior))
		if err != nil {
			return fmt.Sprintf("%s, column %d: %v; nothing was written", where, settings.RuleColumn(a), err)
		}
		if b, ok := settings.NearMissTool(r.ToolName); ok {
			col := strings.Index(a, r.ToolName) + 1
			return fmt.Sprintf("%s, column %d: %s; nothing was written (MCP tools mcp__server__tool and custom tools are accepted)",
				where, col, settings.UnknownToolMessage(r.ToolName, b))
		}
	}
	return ""
}

func rulesAddCommand(lf *layerFlags) *cobra.Command {
	var dest, behavior, ttl string
	c := &cobra.Command{
		Use:   "add RULE...",
		Short: "Add rules (Claude Code form: Bash(npm run:*), Write(src/**), mcp__github__*) to a settings file",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if msg := refuseRules(args, behavior); msg != "" {
				fmt.Fprintln(c.ErrOrStderr(), "permopa rules add:", msg)
				return exitCode(2)
			}
			rules, err := rulesArgs(args, behavior)
			if err != nil {
				return err
			}
			d, err := settings.ParseTTL(ttl)
			if err != nil {
				return err
			}
			if dest == settings.DestinationSession {
				return errors.New("--destination session: session rules live in a running permopa (POST /v1/permission/confirm), not in a file")
			}
			l := lf.layers()
			_, problems := l.Load()
			reportProblems(c.ErrOrStderr(), problems)
			written, err := l.AddRules(c.Context(), dest, "", rules, d)
			if err != nil {
				return err
			}
			return printRules(c.OutOrStdout(), written, false)
		},
	}
	c.Flags().StringVar(&dest, "destination", settings.DestinationLocal, "where to write: local, project or user")
	c.Flags().StringVar(&behavior, "behavior", "allow", "allow, ask or deny")
	c.Flags().StringVar(&ttl, "ttl", "", "lifetime of the rules (30m, 24h, 7d); default forever")
	return c
}

func rulesRevokeCommand(lf *layerFlags) *cobra.Command {
	var dest, behavior string
	c := &cobra.Command{
		Use:   "revoke RULE...",
		Short: "Remove rules from a settings file (default: from the local, project and user files)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			rules, err := rulesArgs(args, behavior)
			if err != nil {
				return err
			}
			dests := []string{settings.DestinationLocal, settings.DestinationProject, settings.DestinationUser}
			if dest != "" {
				dests = []string{dest}
			}
			l := lf.layers()
			l.Load()
			total := 0
			for _, d := range dests {
				file, err := l.DestinationFile(d)
				if err != nil {
					return err
				}
				if _, err := os.Stat(file); err != nil {
					continue
				}
				n, err := l.RevokeRules(c.Context(), d, "", rules)
				if err != nil {
					return err
				}
				if n > 0 {
					fmt.Fprintf(c.OutOrStdout(), "revoked %d rule(s) from %s\n", n, file)
				}
				total += n
			}
			if total == 0 {
				return fmt.Errorf("no %s rule %s found in %s settings", strings.ToLower(behavior), strings.Join(args, ", "), strings.Join(dests, ", "))
			}
			return nil
		},
	}
	c.Flags().StringVar(&dest, "destination", "", "local, project or user (default: all three)")
	c.Flags().StringVar(&behavior, "behavior", "allow", "allow, ask or deny")
	return c
}

func rulesExportCommand(p procEnv) *cobra.Command {
	var layer, output string
	c := &cobra.Command{
		Use:   "export [--layer NAME] [-o FILE] SETTINGS_FILE...",
		Short: "Print the rules of settings files as the data of an organisation's rules bundle (data.permopa.rules)",
		Long: `Reads settings files (YAML, JSON or TOML, in the shape of any settings
layer) and prints the document an organisation ships as an OPA data bundle
with root permopa/rules: save it as permopa/rules/data.json next to a
.manifest with "roots": ["permopa/rules"] and build it with permopa build -b.

Every rule is exported with source "orgRules" and, as its layer, NAME
(default: permopa/rules:<file name>); decisions name both. Any rule that
cannot be read is an error naming the file and the field: an export never
drops a deny rule silently. Expired rules are left out; an allow rule with
a future expiry is an error, because a bundle cannot expire it. Settings
other than rules (mode, directories, dangerous paths) are reported and not
exported.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, files []string) error {
			output := p.path(output)
			doc, warnings, err := settings.ExportRules(p.paths(files), settings.ExportOptions{Layer: layer})
			for _, w := range warnings {
				fmt.Fprintln(c.ErrOrStderr(), "permopa: warning:", w)
			}
			if err != nil {
				return err
			}
			var buf strings.Builder
			enc := json.NewEncoder(&buf)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(doc); err != nil {
				return err
			}
			if output == "" || output == "-" {
				_, err := io.WriteString(c.OutOrStdout(), buf.String())
				return err
			}
			// Written aside and renamed (internal/safefile): a bundle build
			// never sees half a file, and no link is written through.
			return safefile.Write(output, []byte(buf.String()), safefile.Options{Mode: 0o644})
		},
	}
	c.Flags().StringVar(&layer, "layer", "", "layer name of every exported rule (default permopa/rules:<file name>)")
	c.Flags().StringVarP(&output, "output", "o", "", "write the document to FILE instead of stdout")
	return c
}

func rulesLintCommand(lf *layerFlags) *cobra.Command {
	var format, failOn string
	c := &cobra.Command{
		Use:   "lint [SETTINGS_FILE...]",
		Short: "Report rules and keys that do not mean what they look like; exit 1 for CI",
		Long: `Checks the settings files given, or every settings layer's files (managed,
--settings, environment, local project, shared project, user), and reports:

  unknown-key     a key permopa does not read ("denny:", "premissions:"):
                  an error when deny or ask rules sit under it (a hook then
                  refuses to decide), else a warning
  unknown-tool    a near miss of a built-in tool name ("bash", "Reed"): the
                  rule matches nothing (an error for deny and ask rules)
  invalid-rule    a rule that cannot be read
  shadowed        an allow rule a deny or ask rule always beats
  ambiguous-path  a "/path" rule: relative to the project in Claude Code,
                  perhaps meant as absolute ("//path")
  claude-differs  a rule or key Claude Code reads differently
  wide            an allow rule that covers more than it looks
                  (Bash(*), Bash(sudo:*), Bash(python:*), Bash(git:*), Edit(//**))
  never-decides   a rule that can never decide a call
  untrusted       what a project's own settings file would loosen, left
                  out until you trust the project (permopa trust; info)

Each finding names its file and line. Exit status 1 when a finding is at
or above --fail-on (error, warning, info; never: always 0). Settings loads
(decide, hook, run) report the same findings, except wide rules.`,
		RunE: func(c *cobra.Command, files []string) error {
			if settings.LevelRank(failOn) == 0 && failOn != "never" {
				return fmt.Errorf("--fail-on %q: want error, warning, info or never", failOn)
			}
			if format != "text" && format != "json" {
				return fmt.Errorf("--format %q: want text or json", format)
			}
			fs := lintFindings(lf, files)
			if err := printFindings(c.OutOrStdout(), fs, format); err != nil {
				return err
			}
			for _, f := range fs {
				if failOn != "never" && settings.LevelRank(f.Level) >= settings.LevelRank(failOn) {
					return &cmd.ExitError{Exit: 1}
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "text", "text or json")
	c.Flags().StringVar(&failOn, "fail-on", settings.LevelWarning, "exit 1 when a finding is at or above this level: error, warning, info or never")
	return c
}

// lintFindings lints the files given, or every layer's existing files.
func lintFindings(lf *layerFlags, files []string) []settings.Problem {
	files = lf.proc.paths(files)
	var fs []settings.Problem
	var rules []permission.Rule
	unreadable := map[string]bool{}
	lintOne := func(file string) {
		more, err := settings.LintFile(file)
		var sp *settings.Problem
		switch {
		case errors.As(err, &sp):
			unreadable[file] = true
			fs = append(fs, *sp)
		case err != nil:
			unreadable[file] = true
			fs = append(fs, settings.Problem{Level: settings.LevelError, Kind: settings.CheckUnreadable, Err: err})
		default:
			fs = append(fs, more...)
		}
	}
	loadProblem := func(p error) {
		var sp *settings.Problem
		switch {
		case !errors.As(p, &sp):
			fs = append(fs, settings.Problem{Level: settings.LevelError, Kind: settings.CheckUnreadable, Err: p})
		case sp.Lint() && sp.Kind != settings.CheckUntrusted && sp.Kind != settings.CheckManagedDir:
			// A finding of LintFile or LintRules, reported by them; only
			// what an untrusted project's files set (settings/trust.go) and
			// a refused PERMOPA_MANAGED_DIR come from the load alone.
		case sp.Kind == settings.CheckUnreadable && unreadable[sp.File]:
			// Already reported by lintOne, with its line and column.
		default:
			fs = append(fs, *sp)
		}
	}
	if len(files) == 0 {
		l := lf.layers()
		for _, f := range l.Files() {
			if f.Exists {
				lintOne(f.Path)
			}
		}
		_, problems := l.Load()
		for _, p := range problems {
			loadProblem(p)
		}
		rules = l.Rules()
	} else {
		project := lf.proc.path(lf.projectDir)
		if project == "" {
			project = lf.proc.getwd()
		}
		for _, file := range files {
			lintOne(file)
			source := settings.SourceCommandLine
			if settings.ProjectOf(file, "") != "" {
				source = settings.SourceProject
			}
			s, problems, err := settings.LoadSettingsFile(file, source)
			if err != nil {
				continue // reported by LintFile
			}
			for _, p := range problems {
				loadProblem(p)
			}
			fs = append(fs, untrustedFindings(file, lf.layers().UserDir())...)
			for _, r := range s.Rules {
				if r.Project == "" {
					r.Project = project
				}
				rules = append(rules, r)
			}
		}
	}
	fs = append(fs, settings.LintRules(rules)...)
	return dedupFindings(fs)
}

func dedupFindings(fs []settings.Problem) []settings.Problem {
	seen := map[string]bool{}
	out := make([]settings.Problem, 0, len(fs))
	for _, f := range fs {
		if k := f.Level + "\x00" + f.Error(); !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

func printFindings(w io.Writer, fs []settings.Problem, format string) error {
	counts := map[string]int{settings.LevelError: 0, settings.LevelWarning: 0, settings.LevelInfo: 0}
	for _, f := range fs {
		counts[f.Level]++
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{"findings": fs, "counts": counts})
	}
	for _, f := range fs {
		where := f.File
		if where == "" {
			where = "-"
		}
		if f.Line > 0 {
			where += fmt.Sprintf(":%d", f.Line)
			if f.Column > 0 {
				where += fmt.Sprintf(":%d", f.Column)
			}
		}
		what := f.Key
		if f.Rule != "" {
			what = f.Rule
		}
		if what != "" {
			what += ": "
		}
		fmt.Fprintf(w, "%s: %s: %s%s [%s]\n", where, f.Level, what, f.Message(), f.Kind)
	}
	_, err := fmt.Fprintf(w, "%d error(s), %d warning(s), %d info\n", counts[settings.LevelError], counts[settings.LevelWarning], counts[settings.LevelInfo])
	return err
}

// untrustedFindings are what file, when it is one of a project's own
// settings files, sets that permopa leaves out while the user does not
// trust that project (settings/trust.go).
func untrustedFindings(file, userDir string) []settings.Problem {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil
	}
	project := settings.ProjectOf(abs, "")
	if project == "" || filepath.Base(filepath.Dir(abs)) != ".permopa" || !slices.Contains(settings.ProjectFiles(project), abs) {
		return nil
	}
	l := settings.NewProjectLayers(project, project)
	l.SetUserDir(userDir)
	s, _ := l.Load()
	var out []settings.Problem
	for _, u := range s.Untrusted {
		if u.File == abs {
			out = append(out, u.Problem())
		}
	}
	return out
}
