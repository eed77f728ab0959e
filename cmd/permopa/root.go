package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/open-policy-agent/opa/cmd"
	"github.com/spf13/cobra"

	"github.com/permopa/permopa/builtins"
)

// newRootCommand builds the whole command tree: every OPA command (run,
// eval, test, build, check, fmt, ...) with permopa's built-ins and server
// plugin registered, plus permopa's own commands, all listed here. Nothing
// is added from init functions: what the binary offers is read in one
// place, and each call builds a fresh tree, so the tests run the commands
// in process with their own streams (main_test.go).
//
// stdin, stdout and stderr are the streams of permopa's own commands (OPA's
// write to the process's); lookupEnv is the environment they read (the
// hook's HOME and PERMOPA_SERVER).
func newRootCommand(stdin io.Reader, stdout, stderr io.Writer, lookupEnv func(string) (string, bool)) *cobra.Command {
	builtins.Register()
	root := cmd.Command(&cobra.Command{
		Use:           "permopa",
		Short:         "permopa: ALLOW, DENY or ASK for AI-agent tool calls, on OPA",
		SilenceUsage:  true,
		SilenceErrors: true,
	}, "permopa")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	setupRun(root)
	root.AddCommand(
		decideCommand(),
		hookCommand(lookupEnv),
		explainCommand(lookupEnv),
		rulesCommand(),
		bashCommand(),
		matrixCommand(),
		replayCommand(),
		insightsCommand(),
		installCommand(),
		uninstallCommand(),
		doctorCommand(),
	)
	replaceCommand(root, versionCommand())
	proofread(root)
	return root
}

// exitCode ends a command with this exit status once it has said why (a
// hook's block is exit 2, never 1).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// run runs the command line args (without the program name) and returns
// the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, lookupEnv func(string) (string, bool)) int {
	root := newRootCommand(stdin, stdout, stderr, lookupEnv)
	root.SetArgs(args)
	ran, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var code exitCode
	if errors.As(err, &code) {
		return int(code)
	}
	var exit *cmd.ExitError
	if errors.As(err, &exit) {
		return exit.Exit
	}
	// OPA's commands that report their own errors (run, build, ...) set
	// SilenceErrors on themselves; printing again would repeat them.
	if ran == nil || ran == root || !ran.SilenceErrors {
		fmt.Fprintln(stderr, err)
	}
	return 1
}
