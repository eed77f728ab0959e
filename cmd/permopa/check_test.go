package main_test

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	permopacmd "github.com/permopa/permopa/cmd/permopa"
)

// `permopa check` type-checks a policy that names permopa's schemas
// (schema.permopa.*: the default policy, a copy, an extension) against the
// schemas built into permopa, with no flag, and checks every other policy
// as OPA's check does (check.go, docs/architecture.md#the-data-documents).
// Checks that pass run in process; those that fail run the binary, since
// OPA's check writes its errors to the process's stderr.

// ourAnnotation is the METADATA of the default policy's packages.
const ourAnnotation = "# METADATA\n# schemas:\n#   - input: schema.permopa.input\n#   - data.permopa.settings: schema.permopa.settings\n#   - data.permopa.rules: schema.permopa.rules\n"

// writeModules writes name → Rego source under a new directory.
func writeModules(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// edit replaces old, found exactly once, with new in file (under
// rego/permopa/policy).
type edit struct{ file, old, new string }

// policyCopy copies the default policy's Rego files (rego/) to a new
// directory with edits applied, as a policy author's copy would be.
func policyCopy(t *testing.T, edits ...edit) string {
	t.Helper()
	src := filepath.Join("..", "..", "rego")
	files := map[string]string{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".rego" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		files[rel] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edits {
		key := filepath.Join("permopa", "policy", e.file)
		if n := strings.Count(files[key], e.old); n != 1 {
			t.Fatalf("rego/%s holds %q %d times, want once", key, e.old, n)
		}
		files[key] = strings.Replace(files[key], e.old, e.new, 1)
	}
	return writeModules(t, files)
}

// foreignSchemas is another project's schema set: its own schema.input.
func foreignSchemas(t *testing.T) string {
	return writeModules(t, map[string]string{
		"input.json": `{"type": "object", "additionalProperties": false, "properties": {"user": {"type": "string"}}}`,
	})
}

// foreignModule is another project's policy, annotated with its own
// schema.input, reading a field its schema does not have.
const foreignModule = "# METADATA\n# schemas:\n#   - input: schema.input\npackage foreign\n\nallow if input.usr == \"alice\"\n"

// TestCheckTypeChecksPermopaPolicies: with no flag, a misspelt field of
// input, data.permopa.settings or data.permopa.rules in a copy of the
// default policy or an extension of it fails `permopa check --strict`,
// naming the field; a copy and an extension spelt right pass. With
// --schema DIR, DIR's files win and permopa adds the rest of its own.
func TestCheckTypeChecksPermopaPolicies(t *testing.T) {
	t.Parallel()
	// Passing checks, in process: OPA's check prints nothing on success.
	for _, c := range []struct {
		name string
		args func(t *testing.T) []string
	}{
		{"a copy of the default policy with an extension spelt right", func(t *testing.T) []string {
			return []string{policyCopy(t), writeModules(t, map[string]string{"mytool.rego": ourAnnotation +
				"package permopa.custom.mytool\n\nread_only if input.tool_input.command == \"status\"\n\n" +
				"check := {\"behavior\": \"ASK\", \"message\": \"why\"} if data.permopa.settings.default_mode == \"plan\"\n"})}
		}},
		{"--schema with the repository's schemas/", func(t *testing.T) []string {
			return []string{"--schema", filepath.Join("..", "..", "schemas"), writeModules(t, map[string]string{"x.rego": ourAnnotation + "package x\n\nallow if input.tool_input.command == \"ls\"\n"})}
		}},
		// Theirs types input (ours has no tool_inptu); ours types the
		// settings, which DIR lacks (else: undefined schema).
		{"--schema whose own permopa/input.json wins", func(t *testing.T) []string {
			theirs := writeModules(t, map[string]string{"permopa/input.json": `{"type": "object", "properties": {"tool_inptu": {"type": "string"}}}`})
			return []string{"--schema", theirs, writeModules(t, map[string]string{"x.rego": ourAnnotation + "package x\n\nallow if input.tool_inptu == \"Bash\"\n\nask if data.permopa.settings.default_mode == \"plan\"\n"})}
		}},
	} {
		args := append([]string{"check", "--strict"}, c.args(t)...)
		if _, stderr, code := permopa(t, "", args...); code != 0 {
			t.Errorf("%s: permopa %s: exit %d %s", c.name, strings.Join(args, " "), code, stderr)
		}
	}

	// The help says so.
	if out, _, _ := permopa(t, "", "check", "--help"); !strings.Contains(out, "schema.permopa.input") || !strings.Contains(out, "--schema DIR") {
		t.Errorf("permopa check --help does not say how it types permopa's policy:\n%s", out)
	}

	// A copy of the default policy with misspelt reads of each typed
	// document and a type mismatch, and an extension with a misspelt read
	// of the organisation's rules and one of a schema's name: every one
	// is reported, naming it.
	copied := policyCopy(t,
		edit{"call/call.rego", "tool := input.tool_name", "tool := input.tool_inptu"},
		edit{"call/call.rego", "m := input.permission_mode", "m := input.permision_mode"},
		edit{"call/call.rego", "m := data.permopa.settings.default_mode", "m := data.permopa.settings.default_mod"},
		edit{"tools/bash/bash.rego", "command := input.tool_input.command", "command := input.tool_input.comand"},
		edit{"tools/files/files.rego", "g := input.tool_input.glob", "g := input.tool_input.gobl"},
		edit{"decision.rego", "count(data.permopa.settings.unreadable)", "count(data.permopa.settings.unreadabel)"},
		edit{"tools/other/other.rego", "input.read_only == true", "input.read_only == \"yes\""},
	)
	extension := writeModules(t, map[string]string{
		"rules.rego":  ourAnnotation + "package permopa.custom.mytool\n\nread_only if data.permopa.rules.indx\n",
		"schema.rego": "# METADATA\n# schemas:\n#   - input: schema.permopa.inptu\npackage permopa.custom.other\n\nread_only if input.read_only\n",
	})
	_, stderr, code := runPermopa(t, "", "", nil, "check", "--strict", "--max-errors", "0", copied, extension)
	if code == 0 {
		t.Fatalf("permopa check --strict passed a copy with misspelt fields")
	}
	for _, want := range []string{
		"undefined ref: input.tool_inptu",
		"undefined ref: input.permision_mode",
		"undefined ref: data.permopa.settings.default_mod",
		"undefined ref: input.tool_input.comand",
		"undefined ref: input.tool_input.gobl",
		"undefined ref: data.permopa.settings.unreadabel",
		"other.rego:", "match error", // input.read_only, a boolean, compared with a string
		"undefined ref: data.permopa.rules.indx",
		"undefined schema: schema.permopa.inptu",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("permopa check --strict on the misspelt copy: no %q in\n%s", want, stderr)
		}
	}
}

// TestCheckLeavesOtherPoliciesToOPA: a policy that names schemas outside
// schema.permopa is checked as OPA's check does: without --schema its
// annotations are skipped (a misspelt field passes, as with vanilla `opa
// check`), also next to permopa's; with --schema it is typed by the
// user's set, and permopa adds its own schemas where the policy names
// them and the set lacks them. --schema FILE is the whole set, as in OPA.
func TestCheckLeavesOtherPoliciesToOPA(t *testing.T) {
	t.Parallel()
	theirs := foreignSchemas(t)
	foreign := writeModules(t, map[string]string{"foreign.rego": foreignModule})
	plain := writeModules(t, map[string]string{"plain.rego": "package plain\n\nallow if input.usr == \"alice\"\n"})
	ours := writeModules(t, map[string]string{"ours.rego": ourAnnotation + "package permopa.custom.mytool\n\nread_only if input.tool_inptu == \"Bash\"\n"})
	for _, args := range [][]string{
		{foreign},
		{plain},
		{foreign, ours}, // another project's schema named: OPA's behaviour for the whole check
		{"--schema", theirs, plain},
	} {
		args = append([]string{"check", "--strict"}, args...)
		if _, stderr, code := permopa(t, "", args...); code != 0 {
			t.Errorf("permopa %s: exit %d, want 0 as vanilla OPA's check\n%s", strings.Join(args, " "), code, stderr)
		}
	}
	// A failing check: the first as the binary (its exit status and
	// stderr), the others in process by the errors OPA's check returns
	// (it prints the same to the test process's stderr); every one as the
	// binary with -tags slow (issue 25, the quick suite).
	var q quickFirst
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--schema", theirs, foreign}, []string{"undefined ref: input.usr"}},
		{[]string{"--schema", theirs, foreign, ours}, []string{"undefined ref: input.usr", "undefined ref: input.tool_inptu"}},
		{[]string{"--schema", filepath.Join(theirs, "input.json"), ours}, []string{"undefined schema: schema.permopa.input"}},
	} {
		args := append([]string{"check", "--strict"}, c.args...)
		var stderr string
		var code int
		if q.take("fails") {
			_, stderr, code = runPermopa(t, "", "", nil, args...)
		} else if err := permopacmd.Execute(args, strings.NewReader(""), io.Discard, io.Discard, permopacmd.ProcEnv{Executable: permopaBin}); err != nil {
			stderr, code = err.Error(), 1
		}
		for _, want := range c.want {
			if code == 0 || !strings.Contains(stderr, want) {
				t.Errorf("permopa %s: exit %d, want an error naming %q\n%s", strings.Join(args, " "), code, want, stderr)
			}
		}
	}
}
