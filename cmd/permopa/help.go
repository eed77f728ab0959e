package main

import (
	"strings"

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
