package builtins

import (
	"context"
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// The options permopa.call.context derives from the settings are kept per
// (settings document, cwd) (docs/architecture.md): every decision must
// still see the settings and the directory of its own call. Each case
// decides after the one before it, so a stale entry would show as the
// previous case's options.
func TestCallContextOptionsFollowSettingsAndCwd(t *testing.T) {
	schema := ast.MustParseTerm(`{"required": {"Read": ["file_path"]}}`)
	cases := []struct {
		name, input, settings string
		dirs                  string // the working directories the call must see, in order
	}{
		{"first settings", `{"tool_name":"Read","tool_input":{"file_path":"a"},"cwd":"/w"}`,
			`{"home":"/h","dangerous_paths":{"dirs":[".git"]},"protected_paths":["/h/.claude/settings.json"]}`, `["/w"]`},
		{"same settings again", `{"tool_name":"Read","tool_input":{"file_path":"a"},"cwd":"/w"}`,
			`{"home":"/h","dangerous_paths":{"dirs":[".git"]},"protected_paths":["/h/.claude/settings.json"]}`, `["/w"]`},
		{"a protected path added", `{"tool_name":"Read","tool_input":{"file_path":"a"},"cwd":"/w"}`,
			`{"home":"/h","dangerous_paths":{"dirs":[".git"]},"protected_paths":["/h/.claude/settings.json","/w/.claude/settings.json"]}`, `["/w"]`},
		{"another home", `{"tool_name":"Read","tool_input":{"file_path":"a"},"cwd":"/w"}`,
			`{"home":"/other","dangerous_paths":{"dirs":[".git"]},"protected_paths":["/h/.claude/settings.json"]}`, `["/w"]`},
		{"another cwd", `{"tool_name":"Read","tool_input":{"file_path":"a"},"cwd":"/v"}`,
			`{"home":"/h","dangerous_paths":{"dirs":[".git"]},"protected_paths":["/h/.claude/settings.json"]}`, `["/v"]`},
		{"cwd from the settings", `{"tool_name":"Read","tool_input":{"file_path":"a"}}`,
			`{"cwd":"/s","home":"/h","working_directories":["/extra"]}`, `["/s","/extra"]`},
		{"working directories in the settings changed", `{"tool_name":"Read","tool_input":{"file_path":"a"}}`,
			`{"cwd":"/s","home":"/h","working_directories":["/extra","/more"]}`, `["/s","/extra","/more"]`},
		{"the input adds directories", `{"tool_name":"Read","tool_input":{"file_path":"a"},"cwd":"/s","working_directories":["/in"],
			"permission_context":{"working_directories":{"/ctx":{}}}}`,
			`{"cwd":"/s","home":"/h","working_directories":["/extra","/more"]}`, `["/s","/in","/ctx","/extra","/more"]`},
		{"case-insensitive paths, bypass safety, network reads", `{"tool_name":"Read","tool_input":{"file_path":"a"},"cwd":"/s"}`,
			`{"cwd":"/s","home":"/h","case_insensitive_paths":true,"bypass_honours_safety":true,"network_reads":"ask"}`, `["/s"]`},
		{"and back", `{"tool_name":"Read","tool_input":{"file_path":"a"},"cwd":"/s"}`,
			`{"cwd":"/s","home":"/h"}`, `["/s"]`},
		{"no settings", `{"tool_name":"Read","tool_input":{"file_path":"a"},"cwd":"/s"}`, `{}`, `["/s"]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			input, settings := ast.MustParseTerm(c.input), ast.MustParseTerm(c.settings)
			got, err := callContext(topdown.BuiltinContext{}, []*ast.Term{input, settings, schema})
			if err != nil {
				t.Fatal(err)
			}
			// What the options must be: built for this call alone.
			cc := callCtx{input: input.Value.(ast.Object), settings: settings.Value.(ast.Object), schema: schema.Value.(ast.Object)}
			obj := got.Value.(ast.Object)
			cwd := obj.Get(keyCwd)
			var inputDirs []*ast.Term
			wd := obj.Get(keyWorkingDirectories).Value.(*ast.Array)
			if n := wd.Len() - 1; n > 0 {
				// Only the input's own directories: the settings' follow them.
				sd, _ := get(cc.settings, keyWorkingDirectories).(*ast.Array)
				for i := 1; sd == nil && i < wd.Len() || sd != nil && i < wd.Len()-sd.Len(); i++ {
					inputDirs = append(inputDirs, wd.Elem(i))
				}
			}
			want := buildCallOptions(cc.settings, cwd, inputDirs, false, false, false, false)
			for key, w := range map[*ast.Term]*ast.Term{
				keyHome: want.home, keyWorkingDirectories: want.dirs, keyPathOpts: want.path,
				keyWriteOpts: want.write, keyBashOpts: want.bash, keyBypassSafety: want.bypassSafety,
				keyNetworkReads: want.networkReads,
			} {
				if g := obj.Get(key); g == nil || g.Value.Compare(w.Value) != 0 {
					t.Errorf("%v = %v, want %v", key, g, w)
				}
			}
			// And what a user's policy reads from them, spelled out.
			if g := obj.Get(keyBashOpts).Value.(ast.Object).Get(keyWorkingDirectories); g.Value.Compare(ast.MustParseTerm(c.dirs).Value) != 0 {
				t.Errorf("bash_opts.working_directories = %v, want %v", g, c.dirs)
			}
			if got := obj.Get(keyPathOpts).Value.(ast.Object).Get(keyCwd); got.Value.Compare(cwd.Value) != 0 {
				t.Errorf("path_opts.cwd = %v, want %v", got, cwd)
			}
			if p, s := obj.Get(keyWriteOpts).Value.(ast.Object).Get(keyProtectedPaths), get(cc.settings, keyProtectedPaths); s != nil && p.Value.Compare(s) != 0 {
				t.Errorf("write_opts.protected_paths = %v, want the settings' %v", p, s)
			}
			if h, s := obj.Get(keyBashOpts).Value.(ast.Object).Get(keyHome), get(cc.settings, keyHome); s != nil && h.Value.Compare(s) != 0 {
				t.Errorf("bash_opts.home = %v, want the settings' %v", h, s)
			}
		})
	}
}

// Writes into the settings document in place (OPA's data API patches the
// stored document where it lies) must be seen by the next call, however deep
// the change: the context kept for the earlier settings must not answer.
func TestCallContextSeesSettingsWrittenInPlace(t *testing.T) {
	ctx := context.Background()
	store := inmem.NewFromObjectWithOpts(map[string]any{"permopa": map[string]any{"settings": map[string]any{
		"home": "/h", "protected_paths": []any{"/h/.claude/settings.json"},
		"dangerous_paths": map[string]any{"dirs": []any{".git"}}, "working_directories": []any{"/extra"},
	}}}, inmem.OptReturnASTValuesOnRead(true))
	pq, err := rego.New(append(Options(),
		rego.Query(`c := permopa.call.context(input, data.permopa.settings, {})`),
		rego.Store(store),
	)...).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	input := ast.MustParseTerm(`{"tool_name":"Write","tool_input":{"file_path":"a"},"cwd":"/w"}`).Value
	eval := func() map[string]any {
		t.Helper()
		rs, err := pq.Eval(ctx, rego.EvalParsedInput(input))
		if err != nil || len(rs) != 1 {
			t.Fatal(rs, err)
		}
		return rs[0].Bindings["c"].(map[string]any)
	}
	write := func(op storage.PatchOp, path string, v any) {
		t.Helper()
		if err := storage.WriteOne(ctx, store, op, storage.MustParsePath(path), ast.MustInterfaceToValue(v)); err != nil {
			t.Fatal(err)
		}
	}
	opt := func(c map[string]any, opts, key string) string {
		if opts == "" {
			return fmt.Sprint(c[key])
		}
		return fmt.Sprint(c[opts].(map[string]any)[key])
	}
	eval() // kept
	eval() // found again
	steps := []struct {
		name      string
		op        storage.PatchOp
		path      string
		value     any
		opts, key string
		want      string
	}{
		{"a protected path replaced", storage.ReplaceOp, "/permopa/settings/protected_paths/0", "/other", "write_opts", "protected_paths", "[/other]"},
		{"a protected path added", storage.AddOp, "/permopa/settings/protected_paths/-", "/w/.claude/settings.json", "write_opts", "protected_paths", "[/other /w/.claude/settings.json]"},
		{"home replaced", storage.ReplaceOp, "/permopa/settings/home", "/h2", "bash_opts", "home", "/h2"},
		{"a dangerous directory added deep inside", storage.AddOp, "/permopa/settings/dangerous_paths/dirs/-", ".hg", "path_opts", "dangerous_paths", "map[dirs:[.git .hg]]"},
		{"a working directory replaced", storage.ReplaceOp, "/permopa/settings/working_directories/0", "/elsewhere", "bash_opts", "working_directories", "[/w /elsewhere]"},
		{"case-insensitive paths added", storage.AddOp, "/permopa/settings/case_insensitive_paths", true, "path_opts", "case_insensitive", "true"},
		{"bypass honours safety added", storage.AddOp, "/permopa/settings/bypass_honours_safety", true, "", "bypass_honours_safety", "true"},
		{"network reads asked", storage.AddOp, "/permopa/settings/network_reads", "ask", "", "network_reads", "ask"},
		{"the settings' cwd added (the input has its own)", storage.AddOp, "/permopa/settings/cwd", "/s", "bash_opts", "cwd", "/w"},
		{"protected paths removed", storage.RemoveOp, "/permopa/settings/protected_paths", nil, "write_opts", "protected_paths", "[]"},
	}
	for _, s := range steps {
		write(s.op, s.path, s.value)
		if got := opt(eval(), s.opts, s.key); got != s.want {
			t.Errorf("after %s: %s.%s = %s, want %s", s.name, s.opts, s.key, got, s.want)
		}
	}
}
