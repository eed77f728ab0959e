// Command permopa is an OPA distribution for AI-agent tool permissions: every
// OPA subcommand (run, eval, test, build, check, fmt, bench, ...) with
// permopa's built-ins registered, plus permopa's own commands (decide, ...).
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/open-policy-agent/opa/cmd"
	"github.com/spf13/cobra"

	"github.com/permopa/permopa/builtins"
)

func main() {
	builtins.Register()
	root := cmd.Command(&cobra.Command{
		Use:           "permopa",
		Short:         "permopa: ALLOW, DENY or ASK for AI-agent tool calls, on OPA",
		SilenceUsage:  true,
		SilenceErrors: true,
	}, "permopa")
	setupRun(root)
	for _, c := range commands {
		root.AddCommand(c())
	}
	replaceCommand(root, versionCommand())
	proofread(root)
	ran, err := root.ExecuteC()
	if err != nil {
		var exit *cmd.ExitError
		if errors.As(err, &exit) {
			os.Exit(exit.Exit)
		}
		// OPA's commands that report their own errors (run, build, ...)
		// set SilenceErrors on themselves; printing again would repeat them.
		if ran == nil || ran == root || !ran.SilenceErrors {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(1)
	}
}
