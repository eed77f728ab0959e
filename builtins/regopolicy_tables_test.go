package builtins_test

import (
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/builtins/paths"
	defaultpolicy "github.com/permopa/permopa/rego"
)

// TestToolSetLiteralsAreTheOneDefinition: the routes of the policy spell
// the file tool classes out literally, since a reference to a rule costs
// OPA an evaluation on every decision. The one definition is
// files.readers and files.writers (rego/permopa/policy/tools/files); the
// tools each argument field belongs to are call.schema.required and
// optional. Every set literal in the policy that names a file tool must be
// one of these views, and every alias object (tool → tool) may only map
// edit tools to edit tools, so that a tool added to a class and forgotten
// in one route fails here.
func TestToolSetLiteralsAreTheOneDefinition(t *testing.T) {
	t.Parallel()
	mods := policyModules(t)
	rule := func(path, name string) *ast.Term {
		for _, r := range mods[path].Rules {
			if r.Head.Name.String() == name && r.Head.Value != nil {
				return r.Head.Value
			}
		}
		t.Fatalf("%s: no rule %s", path, name)
		return nil
	}
	strs := func(s ast.Set) (map[string]bool, bool) {
		out := map[string]bool{}
		for _, e := range s.Slice() {
			v, ok := e.Value.(ast.String)
			if !ok {
				return nil, false
			}
			out[string(v)] = true
		}
		return out, true
	}
	const files = "permopa/policy/tools/files/files.rego"
	readers, _ := strs(rule(files, "readers").Value.(ast.Set))
	writers, _ := strs(rule(files, "writers").Value.(ast.Set))
	all := maps.Clone(readers)
	maps.Copy(all, writers)
	if len(readers) == 0 || len(writers) == 0 {
		t.Fatal("files.readers or files.writers is empty")
	}
	schema := rule("permopa/policy/call/call.rego", "schema").Value.(ast.Object)
	byField := func(table, field string) map[string]bool {
		out := map[string]bool{}
		tbl := schema.Get(ast.StringTerm(table)).Value.(ast.Object)
		for _, k := range tbl.Keys() {
			name := string(k.Value.(ast.String))
			if all[name] && arrayHas(tbl.Get(k).Value.(*ast.Array), field) {
				out[name] = true
			}
		}
		return out
	}
	searchers, _ := strs(rule(files, "searchers").Value.(ast.Set))
	for tool := range searchers {
		if !readers[tool] {
			t.Errorf("files.searchers names %s, which is not in files.readers", tool)
		}
	}
	views := map[string]map[string]bool{
		"files.readers":                readers,
		"files.searchers":              searchers,
		"files.writers":                writers,
		"files.tools":                  all,
		"file tools needing file_path": byField("required", "file_path"),
		"file tools with a path":       byField("optional", "path"),
	}
	// The tools whose path rules a Bash command meets: rules.rego's
	// _cross_targets["Bash"], first of each pair.
	bashCross := map[string]bool{}
	cross := rule("permopa/policy/rules/rules.rego", "_cross_targets").Value.(ast.Object)
	pairs := cross.Get(ast.StringTerm("Bash")).Value.(*ast.Array)
	for i := range pairs.Len() {
		bashCross[string(pairs.Elem(i).Value.(*ast.Array).Elem(0).Value.(ast.String))] = true
	}
	views["rule tools Bash meets (rules._cross_targets.Bash)"] = bashCross
	for name, v := range views {
		if len(v) == 0 {
			t.Fatalf("view %s is empty", name)
		}
	}
	// The views must still partition sensibly: every file tool has a path field.
	for tool := range all {
		if !views["file tools needing file_path"][tool] && !byField("required", "notebook_path")[tool] && !views["file tools with a path"][tool] {
			t.Errorf("file tool %s has no path argument in call.schema", tool)
		}
	}
	literals := 0
	for _, p := range slices.Sorted(maps.Keys(mods)) {
		ast.WalkTerms(mods[p], func(term *ast.Term) bool {
			switch v := term.Value.(type) {
			case ast.Set:
				set, ok := strs(v)
				if !ok || !anyIn(set, all) {
					return false
				}
				literals++
				for _, view := range views {
					if maps.Equal(set, view) {
						return false
					}
				}
				t.Errorf("%s:%d: tool set %v is none of %v: spell a class as files.readers/writers define it", p, term.Location.Row, slices.Sorted(maps.Keys(set)), slices.Sorted(maps.Keys(views)))
			case ast.Object:
				// An alias object: every key and value a file tool name.
				alias := true
				v.Foreach(func(k, x *ast.Term) {
					ks, ok1 := k.Value.(ast.String)
					xs, ok2 := x.Value.(ast.String)
					alias = alias && ok1 && ok2 && all[string(ks)] && all[string(xs)]
				})
				if alias && v.Len() > 0 {
					literals++
					v.Foreach(func(k, x *ast.Term) {
						if !writers[string(k.Value.(ast.String))] || !writers[string(x.Value.(ast.String))] {
							t.Errorf("%s:%d: alias %v maps beyond the edit tools (files.writers)", p, term.Location.Row, v)
						}
					})
					// Every edit tool but Edit and Write meets Edit's rules as its own.
					want := maps.Clone(writers)
					delete(want, "Edit")
					delete(want, "Write")
					got := map[string]bool{}
					v.Foreach(func(k, _ *ast.Term) { got[string(k.Value.(ast.String))] = true })
					if !maps.Equal(got, want) {
						t.Errorf("%s:%d: alias %v; want keys %v (files.writers but Edit and Write)", p, term.Location.Row, v, slices.Sorted(maps.Keys(want)))
					}
				}
			}
			return false
		})
	}
	if literals < 10 {
		t.Errorf("found %d tool literals; the walk no longer sees the routes", literals)
	}
}

func anyIn(set, in map[string]bool) bool {
	for k := range set {
		if in[k] {
			return true
		}
	}
	return false
}

func arrayHas(a *ast.Array, s string) bool {
	for i := range a.Len() {
		if a.Elem(i).Value.Compare(ast.String(s)) == 0 {
			return true
		}
	}
	return false
}

// TestPolicySpellsNoDangerousPath: the dangerous and credential path lists
// are Go's (builtins/paths dangerous.go, secrets.go, protected.go), which
// the policy reads through permopa.path.check; no string of the policy
// names such a path itself (a second list would drift from the first).
func TestPolicySpellsNoDangerousPath(t *testing.T) {
	t.Parallel()
	mods := policyModules(t)
	for _, p := range slices.Sorted(maps.Keys(mods)) {
		ast.WalkTerms(mods[p], func(term *ast.Term) bool {
			s, ok := term.Value.(ast.String)
			if !ok || strings.ContainsAny(string(s), " \n") {
				return false // messages, not paths
			}
			if dangerous, _, why := paths.Classify(string(s), nil); dangerous {
				t.Errorf("%s:%d: %q is a dangerous path (%s): leave the list to builtins/paths", p, term.Location.Row, string(s), why)
			}
			return false
		})
	}
}

// TestWebToolLiteralsAreTheOneDefinition: the web tools (other.web, never
// read-only, rules that name domains) are spelt out literally in the
// routes, as the file tool classes are. Every set literal that names a web
// tool must be other.web, and no rule may name a web tool outside such a
// set (a `call.tool == "WebFetch"` would not follow a tool added to the
// class) but the call schema, which gives each tool its arguments.
func TestWebToolLiteralsAreTheOneDefinition(t *testing.T) {
	const other = "permopa/policy/tools/other/other.rego"
	mods := policyModules(t)
	web := map[string]bool{}
	for _, r := range mods[other].Rules {
		if r.Head.Name.String() == "web" && r.Head.Value != nil {
			set, _ := r.Head.Value.Value.(ast.Set)
			for _, e := range set.Slice() {
				if s, ok := e.Value.(ast.String); ok {
					web[string(s)] = true
				}
			}
		}
	}
	if len(web) == 0 {
		t.Fatal("other.web is missing or empty")
	}
	literals := 0
	for _, p := range slices.Sorted(maps.Keys(mods)) {
		for _, r := range mods[p].Rules {
			name := r.Head.Name.String()
			if (p == other && name == "web") || (p == "permopa/policy/call/call.rego" && name == "schema") {
				continue
			}
			ast.WalkTerms(r, func(term *ast.Term) bool {
				switch v := term.Value.(type) {
				case ast.Set:
					got := map[string]bool{}
					names := false
					for _, e := range v.Slice() {
						if s, ok := e.Value.(ast.String); ok {
							got[string(s)] = true
							names = names || web[string(s)]
						}
					}
					if names {
						literals++
						if !maps.Equal(got, web) {
							t.Errorf("%s:%d: tool set %v is not other.web %v", p, term.Location.Row, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(web)))
						}
					}
					return true
				case ast.String:
					if web[string(v)] {
						t.Errorf("%s:%d: %q named outside a set literal of other.web", p, term.Location.Row, string(v))
					}
				}
				return false
			})
		}
	}
	if literals < 3 {
		t.Errorf("found %d web tool literals; the walk no longer sees the routes", literals)
	}
}

// policyModules parses every module of the embedded default policy, by path.
func policyModules(t *testing.T) map[string]*ast.Module {
	t.Helper()
	mods := map[string]*ast.Module{}
	err := fs.WalkDir(defaultpolicy.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") {
			return err
		}
		src, err := fs.ReadFile(defaultpolicy.FS, p)
		if err != nil {
			return err
		}
		mods[p], err = ast.ParseModuleWithOpts(p, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return mods
}
