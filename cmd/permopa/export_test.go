package main

// Run is run (root.go) for the tests of package main_test: they run
// permopa's commands in process, and the test binary stands in for the
// permopa binary where a test needs a process (main_test.go).
var Run = run

// ProcEnv is procEnv: a working directory and environment for Run.
type ProcEnv = procEnv
