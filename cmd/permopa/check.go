package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	permopa "github.com/permopa/permopa"
)

// setupCheck makes OPA's check command type-check permopa's policy, and a
// policy author's copy or extension of it, against permopa's schemas with
// no flag (docs/architecture.md#the-data-documents). OPA's check reads
// `schemas:` annotations only when --schema names a schema set; without
// one it skips them, so `permopa check --strict rego` would pass a policy
// that reads input.tool_inptu. The policy's METADATA names its schemas
// schema.permopa.input, schema.permopa.settings and schema.permopa.rules
// (schemas/permopa/, embedded as permopa.Schemas). Before OPA's check
// runs:
//
//   - without --schema, when the policy's annotations name schemas and all
//     of them are under schema.permopa, permopa gives OPA the embedded set
//     (a temporary directory as --schema). A policy that names no schema,
//     or any schema outside schema.permopa (another project's
//     schema.input), is checked exactly as OPA checks it: its annotations
//     are skipped.
//   - with --schema DIR, permopa adds the embedded schema.permopa.* the
//     policy names and DIR does not hold (a file of DIR, such as
//     DIR/permopa/input.json, wins), so an extension's own schemas and
//     permopa's are checked together. --schema FILE (one schema for the
//     whole set, as OPA reads it) is given to OPA as it is.
//
// Everything else (flags, output, errors) is OPA's check.
func setupCheck(root *cobra.Command) {
	check, _, err := root.Find([]string{"check"})
	if err != nil || check == nil || check.Name() != "check" || check.RunE == nil {
		return
	}
	opaRun := check.RunE
	check.RunE = func(c *cobra.Command, args []string) error {
		dir, err := permopaSchemas(c.Flags(), args)
		if err != nil {
			c.SilenceUsage = true
			return err
		}
		if dir != "" {
			defer os.RemoveAll(dir)
			if err := c.Flags().Set("schema", dir); err != nil {
				return err
			}
		}
		return opaRun(c, args)
	}
	check.Long += `

Policies that name permopa's schemas in their METADATA (schema.permopa.input,
schema.permopa.settings, schema.permopa.rules: permopa's policy and copies or
extensions of it) are type-checked against the schemas built into permopa,
with no --schema: a misspelt field such as input.tool_inptu is an error. With
--schema DIR, permopa adds those of its schemas the policy names and DIR does
not hold. A policy that names any other schema (schema.input, ...) is checked
as OPA checks it: without --schema its schema annotations are skipped.`
}

// permopaSchemas is the directory to give OPA's check as --schema, or ""
// to leave the flag as the user gave it: see setupCheck. The directory is
// a new temporary one; the caller removes it.
func permopaSchemas(flags *pflag.FlagSet, args []string) (string, error) {
	refs := schemaRefs(flags, args)
	if len(refs) == 0 {
		return "", nil
	}
	var ours []ast.Ref
	for _, r := range refs {
		if isPermopaSchema(r) {
			ours = append(ours, r)
		}
	}
	given, _ := flags.GetString("schema")
	if given == "" {
		if len(ours) < len(refs) {
			return "", nil // another project's schemas: OPA's behaviour, annotations skipped
		}
		return schemaDir("", ours)
	}
	if len(ours) == 0 {
		return "", nil
	}
	// The user's set as OPA loads it: an error in it is left for OPA to
	// report, naming the user's file; a single file is the whole set.
	info, err := os.Stat(given)
	if err != nil || !info.IsDir() {
		return "", nil
	}
	ss, err := loader.Schemas(given)
	if err != nil {
		return "", nil
	}
	var missing []ast.Ref
	for _, r := range ours {
		if ss.Get(r) == nil {
			missing = append(missing, r)
		}
	}
	if len(missing) == 0 {
		return "", nil
	}
	return schemaDir(given, missing)
}

// isPermopaSchema reports whether r is under schema.permopa.
func isPermopaSchema(r ast.Ref) bool {
	return len(r) > 2 && r[0].Equal(ast.SchemaRootDocument) && r[1].Value.Compare(ast.String("permopa")) == 0
}

// schemaDir writes a schema set to a new temporary directory: the files
// of the directory user (if any), then the embedded schemas of refs that
// permopa has. A ref it does not have (schema.permopa.inptu) is left out,
// for OPA to report as an undefined schema.
func schemaDir(user string, refs []ast.Ref) (string, error) {
	dir, err := os.MkdirTemp("", "permopa-schemas-")
	if err != nil {
		return "", fmt.Errorf("permopa check: a directory for permopa's schemas: %w", err)
	}
	fail := func(err error) (string, error) {
		os.RemoveAll(dir)
		return "", fmt.Errorf("permopa check: permopa's schemas: %w", err)
	}
	if user != "" {
		err := filepath.WalkDir(user, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(user, p)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return writeFile(filepath.Join(dir, rel), b)
		})
		if err != nil {
			return fail(err)
		}
	}
	for _, r := range refs {
		name := "schemas"
		for _, t := range r[1:] {
			s, ok := t.Value.(ast.String)
			if !ok {
				name = ""
				break
			}
			name = path.Join(name, string(s))
		}
		b, err := fs.ReadFile(permopa.Schemas, name+".json")
		if errors.Is(err, fs.ErrNotExist) || name == "" {
			continue
		}
		if err != nil {
			return fail(err)
		}
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(name, "schemas/"))+".json"), b); err != nil {
			return fail(err)
		}
	}
	return dir, nil
}

// writeFile writes b to name, making its directory.
func writeFile(name string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return err
	}
	return os.WriteFile(name, b, 0o600)
}

// schemaRefs are the schema references (each once) of the `schemas:`
// annotations of the Rego modules OPA's check will load from args, with its flags
// (--bundle, --ignore, the Rego version). A module that does not parse
// names none here; OPA's check reports it.
func schemaRefs(flags *pflag.FlagSet, args []string) []ast.Ref {
	version := ast.DefaultRegoVersion
	if v, _ := flags.GetBool("v0-compatible"); v {
		version = ast.RegoV0
	}
	if v, _ := flags.GetBool("v0-v1"); v {
		version = ast.RegoV0CompatV1
	}
	ignore, _ := flags.GetStringSlice("ignore")
	skip := func(abspath string, info fs.FileInfo, depth int) bool {
		if !info.IsDir() && filepath.Ext(info.Name()) != bundle.RegoExt {
			return true
		}
		for _, pattern := range ignore {
			if loader.GlobExcludeName(pattern, 1)(abspath, info, depth) {
				return true
			}
		}
		return false
	}
	l := loader.NewFileLoader().WithRegoVersion(version).WithProcessAnnotation(true)
	var modules []*ast.Module
	if b, _ := flags.GetBool("bundle"); b {
		for _, p := range args {
			bu, err := l.WithSkipBundleVerification(true).WithFilter(skip).AsBundle(p)
			if err != nil {
				continue
			}
			for _, m := range bu.Modules {
				modules = append(modules, m.Parsed)
			}
		}
	} else if res, err := l.Filtered(args, skip); err == nil {
		for _, m := range res.Modules {
			modules = append(modules, m.Parsed)
		}
	}
	var refs []ast.Ref
	seen := map[string]bool{}
	for _, m := range modules {
		if m == nil {
			continue
		}
		for _, a := range m.Annotations {
			for _, s := range a.Schemas {
				if s.Schema != nil && !seen[s.Schema.String()] {
					seen[s.Schema.String()] = true
					refs = append(refs, s.Schema)
				}
			}
		}
	}
	return refs
}
