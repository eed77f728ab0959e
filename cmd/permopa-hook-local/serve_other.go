//go:build !linux

package main

import (
	"fmt"
	"os"
)

// serve: the hook server needs Linux (docs/hosts.md, "The hook server").
func serve([]string) int {
	fmt.Fprintln(os.Stderr, "permopa-hook-local --serve: no hook server on this system")
	return 2
}
