package builtins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/util"
)

// The conformance cases live in testdata/cases/*.yaml, in the shape of OPA's
// own built-in tests:
//
//	cases:
//	  - note: path/resolve tilde          # unique
//	    query: x := permopa.path.resolve("~/a", {"home": "/h"})
//	    modules: [...]                     # optional Rego modules
//	    data: {...}                        # optional
//	    input: {...}                       # optional
//	    want_result: [{x: ...}]            # results in order, the bindings to check; [] for undefined
//	    want_error_code: eval_builtin_error
//	    want_error: substring of the message
//	    strict_error: true                 # evaluate with StrictBuiltinErrors
//
// Every case runs through the real rego package with the built-ins
// registered. "${ROOT}" anywhere in a file is replaced by the root of a
// fixture tree built in a temporary directory (see fixture), so cases can
// exercise real symlinks.
type testCase struct {
	Note          string            `json:"note"`
	Query         string            `json:"query"`
	Modules       []string          `json:"modules"`
	Data          map[string]any    `json:"data"`
	Input         *any              `json:"input"`
	WantResult    *[]map[string]any `json:"want_result"`
	WantErrorCode string            `json:"want_error_code"`
	WantError     string            `json:"want_error"`
	StrictError   bool              `json:"strict_error"`
}

type caseFile struct {
	Cases []testCase `json:"cases"`
}

// fixture builds the tree the cases refer to as ${ROOT} and returns its root:
//
//	home/.ssh/id_rsa, home/.ssh/id_rsa.pub, home/.bashrc
//	proj/src/main.go, proj/.env, proj/.env.example
//	proj/keys        -> home/.ssh      (a symlink in the project pointing out)
//	proj/key         -> home/.ssh/id_rsa
//	proj/out         -> outside
//	proj/alias       -> proj/src       (inside → inside)
//	outside/file, proj-evil/x
//	work             -> data/work      (a working directory that is a symlink)
//	repo/.git/{HEAD,objects,refs}      (a work tree)
//	repo/bare/{HEAD,objects,refs,config} (a bare repository inside it)
//	repo/half/{objects,refs}           (two thirds of one)
//	repo/.permopa/settings.yaml        (permopa's project settings)
//	scripts/package.json, scripts/clean.sh (scripts a command runs)
//	scripts/key.sh   -> home/.ssh/id_rsa
func fixture(t testing.TB) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"home/.ssh", "proj/src", "outside", "proj-evil", "data/work", "repo/.git/objects",
		"repo/.git/refs", "repo/bare/objects", "repo/bare/refs", "repo/half/objects", "repo/half/refs", "repo/src", "repo/.permopa",
		"scripts"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"home/.ssh/id_rsa", "home/.ssh/id_rsa.pub", "home/.bashrc", "proj/src/main.go",
		"proj/.env", "proj/.env.example", "outside/file", "proj-evil/x", "data/work/f", "repo/.git/HEAD",
		"repo/bare/HEAD", "repo/bare/config", "repo/.permopa/settings.yaml"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for f, body := range map[string]string{
		"scripts/package.json": `{"scripts": {"clean": "rm -rf dist", "lint": "eslint ."}}`,
		"scripts/clean.sh":     "#!/bin/sh\ngit push --force\n",
	} {
		if err := os.WriteFile(filepath.Join(root, f), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"scripts/key.sh": "home/.ssh/id_rsa",
		"proj/keys":      "home/.ssh", "proj/key": "home/.ssh/id_rsa", "proj/out": "outside",
		"proj/alias": "proj/src", "work": "data/work",
	} {
		if err := os.Symlink(filepath.Join(root, target), filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func loadCases(t *testing.T, root string) map[string][]testCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "cases", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no case files: %v", err)
	}
	out := map[string][]testCase{}
	notes := map[string]string{}
	for _, f := range files {
		bs, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bs = []byte(strings.ReplaceAll(string(bs), "${ROOT}", root))
		var cf caseFile
		if err := util.Unmarshal(bs, &cf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range cf.Cases {
			if prev, dup := notes[c.Note]; dup || c.Note == "" {
				t.Fatalf("%s: note %q empty or already used in %s", f, c.Note, prev)
			}
			notes[c.Note] = f
		}
		out[filepath.Base(f)] = cf.Cases
	}
	return out
}

func TestCases(t *testing.T) {
	Register()
	root := fixture(t)
	files := loadCases(t, root)
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	})
	for _, file := range names {
		t.Run(strings.TrimSuffix(file, ".yaml"), func(t *testing.T) {
			for _, c := range files[file] {
				t.Run(c.Note, func(t *testing.T) {
					runCase(t, c)
				})
			}
		})
	}
}

func runCase(t *testing.T, c testCase) {
	ctx := context.Background()
	opts := []func(*rego.Rego){rego.Query(c.Query), rego.StrictBuiltinErrors(c.StrictError)}
	for i, m := range c.Modules {
		opts = append(opts, rego.Module(fmt.Sprintf("case%d.rego", i), m))
	}
	if c.Data != nil {
		opts = append(opts, rego.Store(inmem.NewFromObject(c.Data)))
	}
	pq, err := rego.New(opts...).PrepareForEval(ctx)
	var rs rego.ResultSet
	if err == nil {
		var evalOpts []rego.EvalOption
		if c.Input != nil {
			evalOpts = append(evalOpts, rego.EvalInput(*c.Input))
		}
		rs, err = pq.Eval(ctx, evalOpts...)
	}

	if c.WantErrorCode != "" || c.WantError != "" {
		if err == nil {
			t.Fatalf("want error %s %q, got result %v", c.WantErrorCode, c.WantError, rs)
		}
		code, msg := errorCode(err), err.Error()
		if c.WantErrorCode != "" && code != c.WantErrorCode {
			t.Errorf("error code %q, want %q (%v)", code, c.WantErrorCode, err)
		}
		if !strings.Contains(msg, c.WantError) {
			t.Errorf("error %q does not contain %q", msg, c.WantError)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if c.WantResult == nil {
		t.Fatal("case wants neither a result nor an error")
	}
	want := *c.WantResult
	if len(rs) != len(want) {
		t.Fatalf("got %d results %v, want %d %v", len(rs), rs, len(want), want)
	}
	for i, r := range rs {
		for k, wv := range want[i] {
			gv, ok := r.Bindings[k]
			if !ok {
				t.Errorf("result %d: no binding %s in %v", i, k, r.Bindings)
				continue
			}
			if !equalJSON(t, gv, wv) {
				t.Errorf("result %d: %s = %v, want %v", i, k, mustValue(t, gv), mustValue(t, wv))
			}
		}
	}
}

func errorCode(err error) string {
	var te *topdown.Error
	if errors.As(err, &te) {
		return te.Code
	}
	var ae ast.Errors
	if errors.As(err, &ae) && len(ae) > 0 {
		return ae[0].Code
	}
	return ""
}

func mustValue(t *testing.T, x any) ast.Value {
	t.Helper()
	v, err := ast.InterfaceToValue(x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func equalJSON(t *testing.T, a, b any) bool {
	return mustValue(t, a).Compare(mustValue(t, b)) == 0
}

// Every built-in has cases.
func TestCasesCoverEveryBuiltin(t *testing.T) {
	files := loadCases(t, "/root")
	var text strings.Builder
	for _, cs := range files {
		for _, c := range cs {
			text.WriteString(c.Query)
			for _, m := range c.Modules {
				text.WriteString(m)
			}
		}
	}
	for _, d := range Declarations() {
		if !strings.Contains(text.String(), d.Name+"(") {
			t.Errorf("no case calls %s", d.Name)
		}
	}
}
