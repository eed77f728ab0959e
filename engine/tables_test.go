package engine_test

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/rego/tables"
	"github.com/permopa/permopa/settings"
)

// TestModeTableIsThePolicys holds Go's view of the mode table to the
// policy's: every spelling Go accepts is one the policy accepts, with the
// same canonical mode, and every name Go rejects the policy rejects
// (decided through engine.Decide, so the table and permopa.call.context
// agree). The Rego side holds its own tables together
// (rego_test/permopa/policy/modes/modes_test.rego).
func TestModeTableIsThePolicys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w"}))
	if err != nil {
		t.Fatal(err)
	}
	modes := tables.Modes()
	// The canonical modes are the values of the policy's spellings table
	// and the keys of every per-mode table, as the compiled policy sees them.
	for _, q := range []string{
		"{m | some m in data.permopa.policy.call.schema.modes}",
		"object.keys(data.permopa.policy.modes.fallback)",
	} {
		v, err := eng.Evaluate(ctx, q, map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range v.([]any) {
			got = append(got, m.(string))
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(modes))
		if !slices.Equal(got, want) {
			t.Errorf("%s = %v; tables.Modes() = %v", q, got, want)
		}
	}
	spellings := tables.ModeSpellings()
	v, err := eng.Evaluate(ctx, "object.keys(data.permopa.policy.call.schema.modes)", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var policySpellings []string
	for _, m := range v.([]any) {
		policySpellings = append(policySpellings, m.(string))
	}
	slices.Sort(policySpellings)
	if !slices.Equal(spellings, policySpellings) {
		t.Errorf("tables.ModeSpellings() = %v; the policy accepts %v", spellings, policySpellings)
	}
	// Every spelling, in any case, is the canonical mode the policy's
	// mode rule (permopa.policy.call.mode) computes for a call.
	for _, name := range spellings {
		for _, spelled := range []string{name, strings.ToUpper(name)} {
			want, ok := tables.CanonicalMode(spelled)
			if !ok {
				t.Errorf("CanonicalMode(%q): not accepted", spelled)
				continue
			}
			in := map[string]any{"tool_name": "deploy", "tool_input": map[string]any{}, "permission_mode": spelled, "cwd": "/w"}
			got, err := eng.Evaluate(ctx, "data.permopa.policy.call.mode", in)
			if err != nil || got != want {
				t.Errorf("mode %q: the policy computes %v (%v); tables.CanonicalMode says %q", spelled, got, err, want)
			}
		}
	}
	// Names the policy refuses, Go refuses (a settings file naming one is
	// reported, a call naming one is an input error).
	for _, name := range []string{"yolo", "auto", "manual", "accept-edits", "bypass-permissions", "dont ask", "DEFAULT "} {
		if tables.ValidMode(name) {
			t.Errorf("ValidMode(%q) = true; the policy does not know it", name)
		}
		in := map[string]any{"tool_name": "deploy", "tool_input": map[string]any{}, "permission_mode": name, "cwd": "/w"}
		if d := eng.Decide(ctx, in); d.Step != permission.StepError {
			t.Errorf("mode %q: policy decided %s at %s; want an input error", name, d.Behavior, d.Step)
		}
	}
}

// TestNoGoCopyOfThePolicysTables fails when a Go file outside tests spells the
// canonical modes, the policy's own mode spellings or its file tool classes
// again: the tables are read from the policy (rego/tables/tables.go). Host mode
// tables (adapter/hookproto, which links no OPA) map a host's names to
// permopa's and are held by adapter.TestHostModesMapToPolicyModes;
// hookproto.PathTools by adapter.TestHookPathToolsAreTheEngines.
func TestNoGoCopyOfThePolicysTables(t *testing.T) {
	t.Parallel()
	copyRE := regexp.MustCompile(`"(ACCEPT_EDITS|DONT_ASK|bypasspermissions|bypass_permissions)"\s*[:,]` +
		// the file tool classes (files.readers, files.writers)
		`|"(Read|Write|Edit|MultiEdit|NotebookEdit|Glob|Grep)":\s*true` +
		`|"Read",\s*"Glob",\s*"Grep"|"MultiEdit",\s*"NotebookEdit"\s*[:}]|"NotebookEdit",\s*"Glob"`)
	root := ".."
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "hookproto", "e2e":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range copyRE.FindAllIndex(src, -1) {
			line := 1 + strings.Count(string(src[:m[0]]), "\n")
			t.Errorf("%s:%d: a policy table spelled in Go (%s); read it from the policy: tables.Modes, CanonicalMode, FileReadTools, FileEditTools", path, line, src[m[0]:m[1]])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestToolTablesAreThePolicys holds the file tool classes and the required
// arguments Go reads (FileReadTools, FileEditTools, FileSearchTools,
// WebTools, RequiredArguments) to the compiled policy's.
func TestToolTablesAreThePolicys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := newEngine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := func(q string) []string {
		v, err := eng.Evaluate(ctx, q, map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range v.([]any) {
			out = append(out, x.(string))
		}
		slices.Sort(out)
		return out
	}
	keys := func(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }
	if got, want := keys(tables.FileReadTools()), names("data.permopa.policy.tools.files.readers"); !slices.Equal(got, want) {
		t.Errorf("FileReadTools %v; files.readers %v", got, want)
	}
	if got, want := keys(tables.FileEditTools()), names("data.permopa.policy.tools.files.writers"); !slices.Equal(got, want) {
		t.Errorf("FileEditTools %v; files.writers %v", got, want)
	}
	if got, want := keys(tables.FileSearchTools()), names("data.permopa.policy.tools.files.searchers"); !slices.Equal(got, want) {
		t.Errorf("FileSearchTools %v; files.searchers %v", got, want)
	}
	for tool := range tables.FileSearchTools() {
		if !tables.FileReadTools()[tool] {
			t.Errorf("search tool %s is not a read tool (files.searchers ⊄ files.readers)", tool)
		}
	}
	if got, want := keys(tables.WebTools()), names("data.permopa.policy.tools.other.web"); !slices.Equal(got, want) || len(got) == 0 {
		t.Errorf("WebTools %v; other.web %v", got, want)
	}
	for _, tool := range names("object.keys(data.permopa.policy.call.schema.required)") {
		want := names(`data.permopa.policy.call.schema.required["` + tool + `"]`)
		if got := slices.Sorted(slices.Values(tables.RequiredArguments(tool))); !slices.Equal(got, want) {
			t.Errorf("RequiredArguments(%s) = %v; schema.required %v", tool, got, want)
		}
	}
	if got := tables.RequiredArguments("mcp__x__y"); got != nil {
		t.Errorf("RequiredArguments of a custom tool = %v", got)
	}
}

// TestBuiltinNamesIndexedWithPermopas: reading the tables parses Rego; OPA
// indexes built-in names on first use, so the built-ins must be registered
// by then, or the index lacks them and every decision pays allocations
// (BenchmarkDecide). Run in a fresh process, where reading a table is the
// first thing that parses.
func TestBuiltinNamesIndexedWithPermopas(t *testing.T) {
	t.Parallel()
	if os.Getenv("PERMOPA_TABLES_FRESH") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBuiltinNamesIndexedWithPermopas$", "-test.count=1")
		cmd.Env = append(os.Environ(), "PERMOPA_TABLES_FRESH=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("in a fresh process: %v\n%s", err, out)
		}
		return
	}
	_ = tables.ValidMode("default") // the first use, as when a settings file is read
	for _, name := range []string{"permopa.call.context", "permopa.path.check", "permopa.bash.analyze"} {
		if got, ok := ast.BuiltinNameFromRef(ast.MustParseRef(name)); !ok || got != name {
			t.Errorf("BuiltinNameFromRef(%s) = %q, %v: OPA indexed the built-in names before permopa's were registered", name, got, ok)
		}
	}
}
