package main

import (
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpFixes correct OPA's help text where its brand parameter makes it
// wrong for permopa: the article before the name, and sentences about OPA
// releases and OPA's repository that are not permopa's.
var helpFixes = strings.NewReplacer(
	"an permopa", "a permopa",
	"An permopa", "A permopa",
	"The permopa repository contains a set of capabilities files for each permopa release",
	"The OPA repository contains a set of capabilities files for each OPA release",
	"against permopa v0.22.0", "against OPA v0.22.0",
	"specific version of permopa", "specific version of OPA",
	"check for latest permopa release", "check for latest OPA release",
	"prints the permopa capabilities, prior to and including the version of permopa used.",
	"prints the capabilities of the OPA permopa embeds (OPA's built-ins and permopa's), or\nthose of an OPA release (--version).",
)

// proofreadOnHelp makes root's help and usage (and every command's, which
// inherit them) proofread the whole tree once, the first time one of them
// is printed: rewriting every help text of OPA's tree costs a command line
// that prints none (a hook, decide) some ms of CPU. Shell completion's
// descriptions (cobra's __complete commands) read the same texts without
// printing help, so for them the tree is proofread at once.
func proofreadOnHelp(root *cobra.Command, args []string) {
	if len(args) > 0 && strings.HasPrefix(args[0], "__complete") {
		proofread(root)
		return
	}
	var once sync.Once
	fix := func() { once.Do(func() { proofread(root) }) }
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, a []string) {
		fix()
		help(c, a)
	})
	usage := root.UsageFunc()
	root.SetUsageFunc(func(c *cobra.Command) error {
		fix()
		return usage(c)
	})
}

// proofread applies helpFixes to every command's help and every flag's
// usage, OPA's commands and permopa's alike.
func proofread(c *cobra.Command) {
	c.Short = helpFixes.Replace(c.Short)
	c.Long = helpFixes.Replace(c.Long)
	c.Example = helpFixes.Replace(c.Example)
	fix := func(f *pflag.Flag) { f.Usage = helpFixes.Replace(f.Usage) }
	c.Flags().VisitAll(fix)
	c.PersistentFlags().VisitAll(fix)
	for _, sub := range c.Commands() {
		proofread(sub)
	}
}
