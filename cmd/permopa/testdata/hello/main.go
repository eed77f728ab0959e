// Command hello is the floor of a Go process on this machine: the hook
// benchmarks (BenchmarkHookProcess) time it in the same run as the hooks.
package main

import "fmt"

func main() { fmt.Println("hello") }
