package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/permopa/permopa/adapter"
)

func matrixCommand() *cobra.Command {
	var f engineFlags
	var format string
	c := &cobra.Command{
		Use:   "matrix",
		Short: "Print the decision matrix the live policy implements (Markdown, HTML or JSON)",
		Long: `Evaluates the policy (the embedded default, or with --bundle/--policy/--settings)
over representative calls, one or more per decision point, in each of the
five modes, and prints the matrix it really implements: what a policy
author's change did. The default policy's matrix is docs/decision.md's.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			eng, err := f.engine(c.Context(), c.ErrOrStderr())
			if err != nil {
				return err
			}
			m := adapter.BuildMatrix(c.Context(), eng)
			switch format {
			case "markdown", "md":
				return m.WriteMarkdown(c.OutOrStdout())
			case "html":
				return m.WriteHTML(c.OutOrStdout())
			case "json":
				enc := json.NewEncoder(c.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(m)
			default:
				return fmt.Errorf("--format %q: want markdown, html or json", format)
			}
		},
	}
	f.register(c)
	c.Flags().StringVar(&format, "format", "markdown", "output format: markdown, html or json")
	return c
}
