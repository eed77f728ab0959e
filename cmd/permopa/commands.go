package main

import "github.com/spf13/cobra"

// commands are permopa's own subcommands, added next to OPA's. Each file
// appends its constructor in init, so adding a command touches one file.
var commands []func() *cobra.Command

func init() { commands = append(commands, decideCommand) }
