// Command permopa is an OPA distribution for AI-agent tool permissions: every
// OPA subcommand (run, eval, test, build, check, fmt, bench, ...) with
// permopa's built-ins registered, plus permopa's own commands (decide, ...).
// The command tree is built in root.go.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, procEnv{}))
}
