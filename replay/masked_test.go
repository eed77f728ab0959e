package replay

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/permopa/permopa/builtins"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// maskedOutcome replays one call as a decision log with the default mask
// would have recorded it: it returns the erased fields the decision could
// read (nil: the replay is exact) and the replayed decision.
func maskedOutcome(t *testing.T, eng *engine.Engine, call map[string]any) ([]MaskedRead, permission.Decision) {
	t.Helper()
	masked, erased := decisionlog.MaskInput(call, decisionlog.DefaultMask)
	raw, err := json.Marshal(masked)
	if err != nil {
		t.Fatal(err)
	}
	rec := &decisionlog.Record{Input: raw, Erased: erased}
	_, input, err := callOf(rec)
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{opts: Options{Candidate: eng}}
	d, hits := r.decide(context.Background(), eng, input, erased)
	return hits, d
}

func rule(s string) permission.Rule {
	tool, content, _ := strings.Cut(strings.TrimSuffix(s, ")"), "(")
	r := permission.Rule{ToolName: tool, Behavior: permission.Allow}
	if content != "" {
		r.RuleContent = &content
	}
	return r
}

// TestMaskedDefaultPolicyIsExact: the default policy decides Write, Edit,
// MultiEdit and NotebookEdit calls by their paths, so replaying them
// without the contents the mask erased gives the decision the full call
// got, in every mode and with path rules, and the replay says it is exact.
func TestMaskedDefaultPolicyIsExact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	settings := settings.Settings{Rules: []permission.Rule{rule("Write(src/**)"), rule("Edit(docs/**)")}}
	deny := rule("Edit(secrets/**)")
	deny.Behavior = permission.Deny
	settings.Rules = append(settings.Rules, deny)
	eng, err := engine.New(ctx, engine.WithSettings(settings))
	if err != nil {
		t.Fatal(err)
	}
	calls := []map[string]any{
		{"tool_name": "Write", "tool_input": map[string]any{"file_path": dir + "/src/a.go", "content": "package a"}},
		{"tool_name": "Write", "tool_input": map[string]any{"file_path": dir + "/.env", "content": "KEY=1"}},
		{"tool_name": "Write", "tool_input": map[string]any{"file_path": "/etc/passwd", "content": "root::0:0"}},
		{"tool_name": "Edit", "tool_input": map[string]any{"file_path": dir + "/docs/x.md", "old_string": "a", "new_string": "b"}},
		{"tool_name": "Edit", "tool_input": map[string]any{"file_path": dir + "/secrets/k", "old_string": "a", "new_string": "b"}},
		{"tool_name": "Edit", "tool_input": map[string]any{"file_path": dir + "/.git/config", "old_string": "a", "new_string": "[core]\n\tfsmonitor = x"}},
		{"tool_name": "MultiEdit", "tool_input": map[string]any{"file_path": dir + "/src/b.go", "edits": []any{map[string]any{"old_string": "a", "new_string": "b"}}}},
		{"tool_name": "NotebookEdit", "tool_input": map[string]any{"notebook_path": dir + "/n.ipynb", "new_source": "x"}},
	}
	for _, mode := range []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"} {
		for _, c := range calls {
			c["permission_mode"], c["cwd"] = mode, dir
			hits, got := maskedOutcome(t, eng, c)
			want := eng.Decide(ctx, c)
			if len(hits) > 0 {
				t.Errorf("%s %v (%s): the replay reports reading masked fields %v; the default policy reads none", c["tool_name"], c["tool_input"], mode, hits)
			}
			if got.Behavior != want.Behavior || got.Step != want.Step || !reflect.DeepEqual(got.MatchedRule, want.MatchedRule) {
				t.Errorf("%s %v (%s): replayed %s/%s, the full call is %s/%s", c["tool_name"], c["tool_input"], mode, got.Behavior, got.Step, want.Behavior, want.Step)
			}
		}
	}
}

// TestMaskedReadsAreReported: a policy that reads an erased field, in any
// of the ways Rego can, makes the replayed decision unknown, naming the
// field and the rule; a policy that only looks at the input's other
// fields or at its shape does not.
func TestMaskedReadsAreReported(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name, rego string
		reads      bool
	}{
		{"a direct reference", `check := {"behavior": "DENY"} if contains(input.tool_input.content, "SECRET")`, true},
		{"through a local variable", `check := {"behavior": "DENY"} if { ti := input.tool_input; startswith(ti.content, "x") }`, true},
		{"through an alias rule", `ti := input.tool_input
check := {"behavior": "DENY"} if endswith(ti.content, "x")`, true},
		{"through an alias of an alias", `ti := input.tool_input
t2 := ti
check := {"behavior": "DENY"} if t2.content == "x"`, true},
		{"through object.get", `check := {"behavior": "DENY"} if object.get(input.tool_input, "content", "") == "x"`, true},
		{"through object.get with a path", `check := {"behavior": "DENY"} if object.get(input, ["tool_input", "content"], "") == "x"`, true},
		{"iterating the tool input", `check := {"behavior": "DENY"} if { some v in input.tool_input; contains(v, "x") }`, true},
		{"a variable key", `check := {"behavior": "DENY"} if { some k; input.tool_input[k] == "x" }`, true},
		{"the tool input as JSON", `check := {"behavior": "DENY"} if contains(json.marshal(input.tool_input), "x")`, true},
		{"walking the input", `check := {"behavior": "DENY"} if { walk(input, [_, v]); v == "x" }`, true},
		{"comparing the tool input", `check := {"behavior": "DENY"} if input.tool_input == {"file_path": "f", "content": "x"}`, true},
		{"the length of the content", `check := {"behavior": "DENY"} if count(input.tool_input.content) > 3`, true},
		{"the type of the content", `check := {"behavior": "DENY"} if is_string(input.tool_input.content)`, true},
		{"a function given the tool input", `f(x) := x.content
check := {"behavior": "DENY"} if f(input.tool_input) == "x"`, true},
		{"a comprehension", `check := {"behavior": "DENY"} if count([v | some k, v in input.tool_input; k == "content"; v == "x"]) > 0`, true},
		{"an every", `check := {"behavior": "DENY"} if every k, v in input.tool_input { k != ""; v != "x" }`, true},
		{"the whole package of an alias", `check := {"behavior": "DENY"} if { x := data.lib; x.ti.content == "x" }`, true},
		{"an alias in a package iterated", `check := {"behavior": "DENY"} if { some k; data.lib[k].content == "x" }`, true},
		{"only the path", `check := {"behavior": "DENY"} if endswith(input.tool_input.file_path, ".env")`, false},
		{"only the number of fields", `check := {"behavior": "DENY"} if count(input.tool_input) > 5`, false},
		{"only the keys", `check := {"behavior": "DENY"} if "secret" in object.keys(input.tool_input)`, false},
		{"only the input's type", `check := {"behavior": "DENY"} if { is_object(input.tool_input); input.tool_input.file_path == "x" }`, false},
		{"another field by object.get", `check := {"behavior": "DENY"} if object.get(input.tool_input, "file_path", "") == "x"`, false},
	}
	call := map[string]any{"tool_name": "mcp__notes__write", "tool_input": map[string]any{"file_path": "notes.md", "content": "x"}, "cwd": "/tmp", "permission_mode": "default"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := "package permopa.custom.mcp__notes__write\n\n" + c.rego + "\n"
			if err := os.WriteFile(filepath.Join(dir, "p.rego"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "lib.rego"), []byte("package lib\n\nti := input.tool_input\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			eng, err := engine.New(ctx, engine.WithPolicyPaths(dir))
			if err != nil {
				t.Fatal(err)
			}
			hits, _ := maskedOutcome(t, eng, call)
			if c.reads && len(hits) == 0 {
				t.Errorf("the policy reads the erased content, and the replay says it is exact")
			}
			if !c.reads && len(hits) > 0 {
				t.Errorf("the policy does not read the erased content; the replay reports %v", hits)
			}
			for _, h := range hits {
				if h.Pointer != "/input/tool_input/content" || h.Rule == "" {
					t.Errorf("hit %+v does not name the erased field and the rule", h)
				}
			}
		})
	}
}

// TestMaskedContentRulesOfCustomTools: the default policy matches the rule
// contents of custom tools against the tool input's JSON, so a custom
// tool's masked field decides when it has content rules, and not when it
// has none.
func TestMaskedContentRulesOfCustomTools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	call := map[string]any{"tool_name": "mcp__notes__write", "tool_input": map[string]any{"title": "t", "content": "DROP TABLE x"}, "cwd": "/tmp", "permission_mode": "default"}
	plain, err := engine.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if hits, _ := maskedOutcome(t, plain, call); len(hits) > 0 {
		t.Errorf("no content rule: the replay reports %v", hits)
	}
	deny := rule(`mcp__notes__write(*DROP*)`)
	deny.Behavior = permission.Deny
	withRule, err := engine.New(ctx, engine.WithSettings(settings.Settings{Rules: []permission.Rule{deny}}))
	if err != nil {
		t.Fatal(err)
	}
	if hits, _ := maskedOutcome(t, withRule, call); len(hits) == 0 {
		t.Errorf("a content rule matches the tool input's JSON, content included; the replay says it is exact")
	}
}

// TestBuiltinReadModels checks the models of the built-ins that take the
// whole input: changing a field a model says is not read leaves their
// result alone.
func TestBuiltinReadModels(t *testing.T) {
	t.Parallel()
	builtins.Register()
	ctx := context.Background()
	eval := func(query string, input map[string]any) string {
		t.Helper()
		rs, err := rego.New(rego.Query(query), rego.Input(input), rego.StrictBuiltinErrors(true)).Eval(ctx)
		if err != nil || len(rs) == 0 {
			t.Fatalf("%s: %v %v", query, rs, err)
		}
		b, _ := json.Marshal(rs[0].Expressions[0].Value)
		return string(b)
	}
	schema := `{"modes": {"default": "DEFAULT"}, "required": {"Bash": ["command"], "Write": ["file_path"]}, "optional": {"Grep": ["path"]}}`
	contextQuery := "permopa.call.context(input, {}, " + schema + ")"
	deny := rule("Write(x)")
	deny.Behavior = permission.Deny
	settingsDoc, err := json.Marshal(settings.Settings{Projects: map[string][]permission.Rule{"/p": {deny}}}.Document())
	if err != nil {
		t.Fatal(err)
	}
	listsQuery := "permopa.rules.lists({}, " + string(settingsDoc) + ", input, [])"
	base := func() map[string]any {
		return map[string]any{"tool_name": "Write", "cwd": "/p", "tool_input": map[string]any{"file_path": "/p/x", "content": "a", "other": 1}}
	}
	for _, change := range []func(map[string]any){
		func(in map[string]any) { in["tool_input"].(map[string]any)["content"] = "something else" },
		func(in map[string]any) { in["tool_input"].(map[string]any)["content"] = []any{1, 2} },
		func(in map[string]any) { in["tool_input"].(map[string]any)["other"] = map[string]any{"x": "y"} },
	} {
		in := base()
		change(in)
		if got, want := eval(contextQuery, in), eval(contextQuery, base()); got != want {
			t.Errorf("permopa.call.context reads a field its model says it does not: %s vs %s", got, want)
		}
		if got, want := eval(listsQuery, in), eval(listsQuery, base()); got != want {
			t.Errorf("permopa.rules.lists reads a field its model says it does not: %s vs %s", got, want)
		}
	}
	// And the model's fields are read: a change to one changes the result.
	in := base()
	in["tool_input"].(map[string]any)["file_path"] = ""
	if eval(contextQuery, in) == eval(contextQuery, base()) {
		t.Error("permopa.call.context does not read the schema's fields: the model is stale")
	}
	in = base()
	in["cwd"] = "/q"
	if eval(listsQuery, in) == eval(listsQuery, base()) {
		t.Error("permopa.rules.lists does not read cwd: the model is stale")
	}
}
