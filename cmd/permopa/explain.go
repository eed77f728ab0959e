package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/permopa/permopa/adapter/explain"
	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/engine"
)

// explainCommand is `permopa explain`; p is the environment it reads
// (HOME and PERMOPA_*, for --project-settings).
func explainCommand(p procEnv) *cobra.Command {
	lookupEnv := p.lookup
	f := engineFlags{proc: p}
	var asJSON, projectSettings bool
	var host string
	c := &cobra.Command{
		Use:   "explain",
		Short: "Explain decisions: the six decision points, the rule and layer, the Bash analysis",
		Long: `Reads the same input as 'permopa decide' (one JSON input per line, or one
JSON document) and prints, for each, a readable trace: which of the six
decision points fired, the rule that decided and the file (layer) it came
from, what the tool check said, the Bash analysis (leaves, wrappers, paths,
why the command is not read-only) and the suggested rules. --json prints the
same as JSON, one object per line.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			data, err := io.ReadAll(c.InOrStdin())
			if err != nil {
				return err
			}
			home, _ := lookupEnv("HOME")
			var shared *engine.Engine
			// The collector's percent is raised until the first
			// explanation is written (coldstart.go).
			restore := p.coldGC()
			defer restore()
			out := io.Writer(afterFirstWrite{c.OutOrStdout(), restore})
			docs := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
			if len(docs) > 1 && !json.Valid(docs[0]) && json.Valid(bytes.TrimSpace(data)) {
				docs = [][]byte{bytes.TrimSpace(data)}
			}
			for i, doc := range docs {
				if len(bytes.TrimSpace(doc)) == 0 {
					continue
				}
				var input map[string]any
				dec := json.NewDecoder(bytes.NewReader(doc))
				dec.UseNumber()
				if err := dec.Decode(&input); err != nil {
					return fmt.Errorf("input %d is not a JSON object: %v", i+1, err)
				}
				inputs := []map[string]any{input}
				if host != "" {
					if inputs, err = hookproto.Inputs(host, input); err != nil {
						return fmt.Errorf("input %d: %v", i+1, err)
					}
				}
				var eng *engine.Engine
				if projectSettings {
					cwd, _ := input["cwd"].(string)
					eng, err = f.hookEngine(ctx, cwd, home, c.ErrOrStderr(), true)
				} else {
					if shared == nil {
						shared, err = f.engine(ctx, c.ErrOrStderr())
					}
					eng = shared
				}
				if err != nil {
					return err
				}
				for j, in := range inputs {
					ex, err := explain.Decide(ctx, eng, in)
					if err != nil {
						return err
					}
					if asJSON {
						enc := json.NewEncoder(out)
						enc.SetEscapeHTML(false)
						if err := enc.Encode(ex); err != nil {
							return err
						}
						continue
					}
					if i > 0 || j > 0 {
						fmt.Fprintln(out, "\n---")
					}
					if err := ex.WriteText(out); err != nil {
						return err
					}
				}
			}
			return nil
		},
	}
	f.register(c)
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON, one explanation per line")
	c.Flags().BoolVar(&projectSettings, "project-settings", false, "also load the settings files of each input's cwd, as 'permopa hook' does")
	c.Flags().StringVar(&host, "host", "", "read each input as a hook payload of this host (claude, codex, gemini) and explain the calls the hook decides")
	return c
}
