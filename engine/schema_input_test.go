package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown/cache"

	permopa "github.com/permopa/permopa"
	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// schemaInputs are the inputs permopa is given in its tests: the matrix
// cases, the explain corpus, and every recorded and captured host payload
// as the hooks translate it (hookproto.Inputs).
func schemaInputs(t *testing.T) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, file := range []string{"testdata/matrix-cases.jsonl", "../adapter/explain/testdata/bash-calls.jsonl"} {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			// The matrix cases differ in their commands and modes more
			// than in their shape: the quick suite takes one in three
			// (the first included), -tags slow every one (.ci/run).
			if !slowTests && strings.HasSuffix(file, "matrix-cases.jsonl") && (n-1)%3 != 0 {
				continue
			}
			var in map[string]any
			if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
				t.Fatalf("%s:%d: %v", file, n, err)
			}
			out[file+":"+itoa(n)] = in
		}
		f.Close()
	}
	root := "../adapter/testdata/hooks"
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		host := ""
		for _, h := range []string{"claude", "codex", "gemini"} {
			if strings.Contains(p, "/"+h+"/") {
				host = h
			}
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var payload map[string]any
		if host == "" || json.Unmarshal([]byte(strings.ReplaceAll(string(b), "{{CWD}}", "/w")), &payload) != nil {
			return nil // not a payload (settings, expectations)
		}
		ins, err := hookproto.Inputs(host, payload)
		if err != nil {
			return nil // a payload the hook refuses (tested in adapter)
		}
		for i, in := range ins {
			out[p+"#"+itoa(i)] = in
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestInputSchemaIsHonest: schemas/permopa/input.json accepts every input
// the tests give permopa that the policy accepts; an input it rejects is
// one the policy rejects too (DENY, code input_error). And fields no
// schema names change nothing: each input, with unknown fields added
// (some named to look like a permission), gets the same decision, so an
// unknown field never becomes an ALLOW.
func TestInputSchemaIsHonest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema, err := fs.ReadFile(permopa.Schemas, "schemas/permopa/input.json")
	if err != nil {
		t.Fatal(err)
	}
	pq, err := rego.New(rego.Query("r := json.match_schema(input.doc, input.schema)")).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// OPA's value cache keeps the compiled schema between evaluations, as
	// a server would; without it json.match_schema compiles it per input.
	cacheConfig, err := cache.ParseCachingConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := cache.NewInterQueryValueCache(ctx, cacheConfig)
	valid := func(in map[string]any) (bool, any) {
		rs, err := pq.Eval(ctx, rego.EvalInput(map[string]any{"doc": in, "schema": string(schema)}), rego.EvalInterQueryBuiltinValueCache(schemas))
		if err != nil || len(rs) != 1 {
			t.Fatalf("json.match_schema: %v %v", rs, err)
		}
		r := rs[0].Bindings["r"].([]any)
		return r[0] == true, r[1]
	}
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w"}))
	if err != nil {
		t.Fatal(err)
	}
	unknown := map[string]any{
		"tool_inptu": map[string]any{"command": "true"}, "behavior": "ALLOW", "allow": true,
		"decision": map[string]any{"behavior": "ALLOW"}, "permissions": map[string]any{"allow": []any{"Bash", "Write", "Edit"}},
		"readonly": true, "bypass_immune": false, "mode": "bypassPermissions", "trusted": true,
	}
	accepted := 0
	inputs := schemaInputs(t)
	for name, in := range inputs {
		d := eng.Decide(ctx, in)
		ok, errs := valid(in)
		if ok {
			accepted++
		} else if d.Code != permission.CodeInputError {
			t.Errorf("%s: the input schema rejects it (%v) but the policy decides %s %s", name, errs, d.Behavior, d.Step)
		}
		with := map[string]any{}
		for k, v := range in {
			with[k] = v
		}
		for k, v := range unknown {
			if _, set := with[k]; !set {
				with[k] = v
			}
		}
		if ok2, errs := valid(with); ok && !ok2 {
			t.Errorf("%s: the input schema rejects unknown fields: %v", name, errs)
		}
		if d2 := eng.Decide(ctx, with); d2.Behavior != d.Behavior || d2.Step != d.Step {
			t.Errorf("%s: unknown fields change the decision from %s %s to %s %s", name, d.Behavior, d.Step, d2.Behavior, d2.Step)
		}
	}
	// Inputs both reject: the schema says why, the policy denies.
	for _, in := range []map[string]any{
		{"tool_name": "Bash"},
		{"tool_input": map[string]any{"command": "ls"}},
		{"tool_name": 7, "tool_input": map[string]any{"command": "ls"}},
		{"tool_name": "Bash", "tool_input": "ls"},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": []any{"ls"}}},
		{"tool_name": "Read", "tool_input": map[string]any{"file_path": "/w/a"}, "permission_mode": 1},
		{"tool_name": "Read", "tool_input": map[string]any{"file_path": "/w/a"}, "read_only": "yes"},
		{"tool_name": "Read", "tool_input": map[string]any{"file_path": "/w/a"}, "working_directories": "/"},
	} {
		if ok, _ := valid(in); ok {
			t.Errorf("%v: the input schema accepts it", in)
		}
		if d := eng.Decide(ctx, in); d.Behavior != permission.Deny || d.Code != permission.CodeInputError {
			t.Errorf("%v: %s %s %s, want DENY input_error", in, d.Behavior, d.Step, d.Code)
		}
	}
	if accepted < 100 || accepted < len(inputs)*9/10 {
		t.Errorf("the input schema accepts only %d of %d inputs", accepted, len(inputs))
	}
	t.Logf("%d inputs, %d valid against input.json", len(inputs), accepted)
}
