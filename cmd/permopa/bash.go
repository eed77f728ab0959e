package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/permopa/permopa/adapter/explain"
)

func bashCommand(p procEnv) *cobra.Command {
	root := &cobra.Command{Use: "bash", Short: "Bash tools: analyze a command line as the policy sees it"}
	f := engineFlags{proc: p}
	var asJSON bool
	var cwd string
	analyze := &cobra.Command{
		Use:   "analyze 'command'",
		Short: "Print the Bash analysis of a command: leaves, wrappers, paths, read-only verdict and why",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := context.Background()
			if c.Context() != nil {
				ctx = c.Context()
			}
			p.coldGC() // one analysis, then the process exits (coldstart.go)
			eng, err := f.engine(ctx, c.ErrOrStderr())
			if err != nil {
				return err
			}
			if cwd == "" {
				cwd = p.getwd()
			}
			a, err := explain.BashAnalysis(ctx, eng, args[0], cwd)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(c.OutOrStdout())
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				return enc.Encode(a)
			}
			var b bytes.Buffer
			fmt.Fprintf(&b, "Command: %s\n", args[0])
			var sb strings.Builder
			explain.WriteBashAnalysis(&sb, a)
			b.WriteString(sb.String())
			_, err = c.OutOrStdout().Write(b.Bytes())
			return err
		},
	}
	f.register(analyze)
	analyze.Flags().BoolVar(&asJSON, "json", false, "print the analysis as JSON")
	analyze.Flags().StringVar(&cwd, "cwd", "", "working directory the command runs in (default: the current directory)")
	root.AddCommand(analyze)
	return root
}
