package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/permopa/permopa/settings"
)

// trustCommand records, lists and revokes the user's trust in projects:
// until a project is trusted, its own .permopa/ settings files only
// tighten the decisions (settings/trust.go, docs/rules.md "Trusted projects").
func trustCommand(p procEnv) *cobra.Command {
	var list, dryRun bool
	var revoke, userDir string
	c := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a project's own settings files (.permopa/settings.yaml, settings.local.yaml)",
		Long: `A project's own settings files come with the repository. Until you trust
the project, permopa takes from them only what tightens the decisions (deny
and ask rules, a stricter mode, ...) and leaves out what loosens them (allow
rules, a looser defaultMode, directories outside the project, removed
dangerous paths, environment_is_secret: false, network_reads: allow),
reporting each in permopa decide, doctor and rules lint.

permopa trust DIR (default: the working directory) shows what trusting the
project would enable, then records the trust in the user settings directory
(trusted-projects.json) with the SHA-256 of each file: a file changed later
(by a pull) needs trust again. Your own permopa rules add --destination
project or local keeps a trusted file trusted. The .permopa/ of every
directory above DIR decides its calls too, each trusted on its own: trust
lists them with their state (so does permopa doctor).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			lf := layerFlags{proc: p, userDir: userDir}
			dir := userDirOf(lf)
			out := c.OutOrStdout()
			switch {
			case list:
				if len(args) > 0 || revoke != "" {
					return errors.New("--list takes no directory")
				}
				return listTrust(out, dir)
			case revoke != "":
				if len(args) > 0 {
					return errors.New("--revoke takes the directory as its value: permopa trust --revoke DIR")
				}
				project := settings.ProjectKey(p.path(revoke))
				had, err := settings.RevokeTrust(dir, project)
				if err != nil {
					return err
				}
				if !had {
					return fmt.Errorf("%s is not trusted (permopa trust --list)", project)
				}
				fmt.Fprintf(out, "%s is no longer trusted: its settings files only tighten the decisions\n", project)
				return nil
			}
			project := p.Dir
			if len(args) == 1 {
				project = p.path(args[0])
			}
			if project == "" {
				wd, err := os.Getwd()
				if err != nil {
					return err
				}
				project = wd
			}
			return trustProject(out, dir, settings.ProjectKey(project), dryRun)
		},
	}
	c.Flags().BoolVar(&list, "list", false, "list the trusted projects and whether their files changed since")
	c.Flags().StringVar(&revoke, "revoke", "", "stop trusting the project `DIR`")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "show what trusting the project would enable, record nothing")
	c.Flags().StringVar(&userDir, "user-dir", "", "user settings directory (default ~/.config/permopa, or $PERMOPA_CONFIG_DIR)")
	return c
}

// userDirOf is the user settings directory the layers of lf use.
func userDirOf(lf layerFlags) string { return lf.layers().UserDir() }

// trustProject shows what project's files would enable and records trust
// in the digests it showed: a file that changes while it is shown is not
// trusted.
func trustProject(out io.Writer, userDir, project string, dryRun bool) error {
	if st, err := os.Stat(project); err != nil || !st.IsDir() {
		return fmt.Errorf("project %s: not a directory", project)
	}
	digests, err := settings.ProjectFileDigests(project)
	if err != nil {
		return err
	}
	if len(digests) == 0 {
		msg := fmt.Sprintf("project %s has no settings file (.permopa/settings.yaml or settings.local.yaml): nothing to trust", project)
		if up := settings.ProjectChain(project, userDir, ""); len(up) > 0 {
			// Run in a subdirectory: the projects whose rules apply here.
			msg += fmt.Sprintf("; the calls made here are decided by the .permopa/ of %s (permopa trust %s)", strings.Join(up, ", "), up[0])
		}
		return errors.New(msg)
	}
	enabled, err := untrustedOf(project)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "project %s\n", project)
	for _, f := range slices.Sorted(maps.Keys(digests)) {
		fmt.Fprintf(out, "  file %s (%s)\n", f, digests[f])
	}
	if len(enabled) == 0 {
		fmt.Fprintln(out, "trusting it enables nothing more: its files only tighten the decisions")
	} else {
		fmt.Fprintln(out, "trusting it enables:")
		for _, u := range enabled {
			fmt.Fprintf(out, "  %s\n", u)
		}
	}
	// Trust is per project: the enclosing ones keep theirs.
	defer writeEnclosing(out, project, userDir)
	if dryRun {
		fmt.Fprintln(out, "not recorded (--dry-run)")
		return nil
	}
	again, err := settings.ProjectFileDigests(project)
	if err != nil {
		return err
	}
	if !maps.Equal(digests, again) {
		return fmt.Errorf("project %s: its settings files changed while being shown; nothing recorded, run permopa trust again", project)
	}
	if err := settings.RecordTrust(userDir, project, digests); err != nil {
		return err
	}
	fmt.Fprintf(out, "trusted (recorded in %s)\n", settings.TrustFile(userDir))
	return nil
}

// writeEnclosing lists the projects enclosing project whose .permopa/
// also decides the calls made in it, each trusted or not on its own
// (docs/rules.md, "Enclosing projects").
func writeEnclosing(out io.Writer, project, userDir string) {
	if len(settings.ProjectChain(project, userDir, "")) == 0 {
		return
	}
	fmt.Fprintln(out, "each .permopa/ that decides calls made here is trusted on its own:")
	writeProjectChain(out, "  ", project, userDir)
}

// untrustedOf is what project's files set that is left out while the
// project is not trusted.
func untrustedOf(project string) ([]settings.Untrusted, error) {
	l := settings.NewProjectLayers(project, project)
	l.SetUserDir("") // as if nothing were trusted
	s, problems := l.Load()
	for _, p := range problems {
		if settings.UnreadableFile(p) {
			return nil, fmt.Errorf("%v: fix it before trusting the project", p)
		}
	}
	return s.Untrusted, nil
}

// listTrust lists the trusted projects, saying which files changed since.
func listTrust(out io.Writer, userDir string) error {
	ts, err := settings.ReadTrust(userDir)
	if err != nil {
		return err
	}
	if len(ts.Projects) == 0 {
		fmt.Fprintf(out, "no trusted project (%s)\n", settings.TrustFile(userDir))
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROJECT\tTRUSTED\tFILES")
	for _, project := range slices.Sorted(maps.Keys(ts.Projects)) {
		tp := ts.Projects[project]
		now, err := settings.ProjectFileDigests(project)
		state := "unchanged"
		switch {
		case err != nil:
			state = "unreadable: " + err.Error()
		case !maps.Equal(now, tp.Files):
			state = "changed since trusted (permopa trust " + project + " to review)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", project, tp.TrustedAt, state)
	}
	return tw.Flush()
}
