package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
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
}

func (f *engineFlags) register(c *cobra.Command) {
	c.Flags().StringArrayVar(&f.settings, "settings", nil, "settings file (YAML, JSON or TOML); repeat for more layers, highest first")
	c.Flags().StringVar(&f.mode, "mode", "", "mode for inputs that name none (default, acceptEdits, plan, bypassPermissions, dontAsk, or AgentScope names)")
	c.Flags().StringArrayVarP(&f.bundles, "bundle", "b", nil, "OPA bundle (directory or .tar.gz) added to the embedded policy")
	c.Flags().StringArrayVar(&f.policies, "policy", nil, "Rego file or directory added to the embedded policy")
}

// engine builds the engine; settings problems (an unreadable rule) are
// reported on stderr and the valid rules are kept. A --settings file that
// cannot be read at all is an error: the user named it.
func (f *engineFlags) engine(ctx context.Context) (*engine.Engine, error) {
	var s engine.Settings
	if f.layered {
		for _, file := range f.settings {
			if _, err := os.Stat(file); err != nil {
				return nil, fmt.Errorf("settings %s: %w", file, err)
			}
		}
		var problems []error
		s, problems = engine.LoadLayers(engine.LayerOptions{CommandLine: f.settings})
		for _, p := range problems {
			var fp *engine.FileProblem
			if errors.As(p, &fp) && slices.Contains(f.settings, fp.File) {
				return nil, p
			}
			fmt.Fprintln(os.Stderr, "permopa: warning:", p)
		}
	} else {
		var layers []engine.Settings
		for _, file := range f.settings {
			ls, problems, err := engine.LoadSettingsFile(file, "")
			if err != nil {
				return nil, err
			}
			for _, p := range problems {
				var lint engine.Finding
				if errors.As(p, &lint) {
					fmt.Fprintln(os.Stderr, "permopa:", p)
					continue
				}
				fmt.Fprintln(os.Stderr, "permopa: ignoring invalid rule:", p)
			}
			layers = append(layers, ls)
		}
		s = engine.Merge(layers...)
	}
	return f.newEngine(ctx, s)
}

// newEngine builds the engine over settings s with the flags' mode, bundles
// and policy files.
func (f *engineFlags) newEngine(ctx context.Context, s engine.Settings) (*engine.Engine, error) {
	if f.mode != "" {
		s.DefaultMode = f.mode
	}
	opts := []engine.Option{engine.WithSettings(s)}
	if len(f.bundles) > 0 {
		opts = append(opts, engine.WithBundles(f.bundles...))
	}
	if len(f.policies) > 0 {
		opts = append(opts, engine.WithPolicyPaths(f.policies...))
	}
	return engine.New(ctx, opts...)
}

func decideCommand() *cobra.Command {
	f := engineFlags{layered: true}
	c := &cobra.Command{
		Use:   "decide",
		Short: "Decide tool calls: JSON inputs on stdin, one decision per line on stdout",
		Long: `Reads one JSON input per line (or one JSON document) on stdin and writes one
decision per line on stdout. Every line is decided: a line that is not JSON
or fails validation gets a DENY with step "error". Exit status 0 when every
line was decided (DENY included).

Settings come from every layer, highest first: managed (/etc/permopa), the
--settings files, PERMOPA_* environment variables, the working directory's
.permopa/settings.local.yaml and .permopa/settings.yaml, and the user's
~/.config/permopa/settings.yaml.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			eng, err := f.engine(ctx)
			if err != nil {
				return err
			}
			return adapter.DecideStream(ctx, eng, os.Stdin, os.Stdout)
		},
	}
	f.register(c)
	return c
}
