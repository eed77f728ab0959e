package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	opaversion "github.com/open-policy-agent/opa/v1/version"
	"github.com/spf13/cobra"
)

// version is permopa's version, set at release builds with
// -ldflags "-X main.version=v1.2.3". Otherwise it comes from the module
// version `go install` records, or from the source control revision.
var version = ""

// permopaVersion says which permopa this is: the ldflags version, the
// module version (go install …@v1.2.3), or for a build from a checkout
// ("(devel)") the commit it was built from when Go recorded it.
func permopaVersion(bi *debug.BuildInfo, ok bool) string {
	if version != "" {
		return version
	}
	if !ok {
		return "unknown (no build information)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "devel (built from source without version information)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		return "devel (commit " + rev + ", with local changes)"
	}
	return "devel (commit " + rev + ")"
}

// writeVersion prints permopa's version and the OPA it embeds.
func writeVersion(w io.Writer) {
	bi, ok := debug.ReadBuildInfo()
	fmt.Fprintln(w, "permopa:", permopaVersion(bi, ok))
	fmt.Fprintln(w, "OPA:", opaversion.Version, "(embedded)")
	fmt.Fprintln(w, "Rego:", ast.DefaultRegoVersion.String())
	fmt.Fprintln(w, "Go:", runtime.Version())
	fmt.Fprintln(w, "Platform:", runtime.GOOS+"/"+runtime.GOARCH)
}

// versionCommand replaces OPA's, which would print OPA's version as if it
// were permopa's.
func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print permopa's version and the OPA version it embeds",
		Long: `Prints permopa's version (set at release builds, else the module version
or the commit it was built from), the version of OPA it embeds, the Rego
language version, and the Go version and platform it was built for.`,
		Args: cobra.NoArgs,
		Run:  func(c *cobra.Command, _ []string) { writeVersion(c.OutOrStdout()) },
	}
}

// replaceCommand swaps root's subcommand named like c for c.
func replaceCommand(root, c *cobra.Command) {
	name := strings.Fields(c.Use)[0]
	for _, old := range root.Commands() {
		if old.Name() == name {
			root.RemoveCommand(old)
		}
	}
	root.AddCommand(c)
}
