package main

import "io"

// Run is run (root.go) for the tests of package main_test: they run
// permopa's commands in process, and the test binary stands in for the
// permopa binary where a test needs a process (main_test.go).
var Run = run

// ProcEnv is procEnv: a working directory and environment for Run.
type ProcEnv = procEnv

// Execute is run's command tree (root.go) returning the command's error
// instead of an exit status: OPA's check prints its errors to the
// process's stderr and returns them, so the tests judge a failing check in
// process by this error (check_test.go).
func Execute(args []string, stdin io.Reader, stdout, stderr io.Writer, p procEnv) error {
	root := newRootCommand(args, stdin, stdout, stderr, p)
	root.SetArgs(args)
	_, err := root.ExecuteC()
	return err
}
