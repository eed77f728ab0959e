// Command permopa is an OPA distribution for AI-agent tool permissions: every
// OPA subcommand (run, eval, test, build, check, fmt, bench, ...) with
// permopa's built-ins registered, plus permopa's own commands (decide, ...).
// The command tree is built in root.go.
package main

import (
	"os"

	"github.com/permopa/permopa/adapter/hookclient"
	"github.com/permopa/permopa/internal/hookwire"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == hookwire.SlowPathArg {
		// permopa-hook's slow path, when permopa-hook-local is not beside
		// permopa-hook (adapter/hookclient).
		os.Exit(hookclient.Main(os.Args[2:]))
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, procEnv{}))
}
