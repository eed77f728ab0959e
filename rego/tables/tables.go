// Package tables reads the default policy's tables (mode names, what each
// mode falls back to, the file tool classes, the arguments each built-in
// tool requires) from the embedded Rego, for the Go code that needs them
// outside an evaluation: the settings (a rule's mode, a path rule's tool)
// and the engine and adapters. It parses the modules once and evaluates
// nothing (docs/architecture.md).
package tables

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/builtins"
	defaultpolicy "github.com/permopa/permopa/rego"
)

// The tables are policy (docs/decision.md): the names a mode goes by live
// in rego/permopa/policy/call/call.rego (schema.modes, every accepted
// spelling → its canonical mode; schema.required, the argument each
// built-in tool needs), what each canonical mode does in
// rego/permopa/policy/modes/modes.rego, and the file tools that read and
// that write in rego/permopa/policy/tools/files/files.rego (readers,
// searchers, writers), the web tools in
// rego/permopa/policy/tools/other/other.rego (web). Go keeps no copy: it reads them from the embedded default
// policy, once, by parsing those modules (no compilation, nothing on the
// decision path). TestModeTableIsThePolicys and TestToolTablesAreThePolicys
// hold the two sides together.

// modeTable is the policy's mode table as Go reads it.
type modeTable struct {
	// spellings maps every lower-cased name the policy accepts to its
	// canonical mode.
	spellings map[string]string
	// canonical lists the canonical modes in the order schema.modes first
	// names them (the order docs/decision.md and `permopa matrix` show).
	canonical []string
	// fallback is modes.fallback: decision point 6's behavior per mode.
	fallback map[string]string
	// readers and writers are files.readers and files.writers: the file
	// tools that read (Read, Glob, Grep) and that write (the edit tools).
	readers, writers map[string]bool
	// searchers is files.searchers: the readers that read a tree.
	searchers map[string]bool
	// files is readers and writers: every file tool.
	files map[string]bool
	// web is other.web: the tools that fetch from the network.
	web map[string]bool
	// required is schema.required: the arguments each built-in tool needs.
	required map[string][]string
}

var policyModes = sync.OnceValue(func() modeTable {
	// Register the built-ins before the parser first meets a call: OPA
	// indexes the built-in names once, on first use (ast.BuiltinNameFromRef),
	// and an index made without permopa's built-ins costs every later
	// decision allocations (BenchmarkDecide: +3 per Read decision).
	builtins.Register()
	t, err := readModeTable(defaultpolicy.FS)
	if err != nil {
		// The embedded policy is part of the binary: a table that cannot
		// be read is a build defect, caught by every test of this package.
		panic("tables: the embedded policy's mode table: " + err.Error())
	}
	return t
})

// readModeTable parses schema.modes of call.rego and fallback of modes.rego.
func readModeTable(fsys fs.FS) (modeTable, error) {
	mc := &moduleCache{FS: fsys, mods: map[string]*ast.Module{}}
	if fsys == fs.FS(defaultpolicy.FS) {
		// The engine's parse: a process that decides parses the policy once.
		mc.shared = true
	}
	fsys = mc
	schema, err := ruleValue(fsys, "permopa/policy/call/call.rego", "schema")
	if err != nil {
		return modeTable{}, err
	}
	obj, ok := schema.Value.(ast.Object)
	if !ok {
		return modeTable{}, fmt.Errorf("call.rego: schema is not an object")
	}
	modesTerm := obj.Get(ast.StringTerm("modes"))
	if modesTerm == nil {
		return modeTable{}, fmt.Errorf("call.rego: schema has no modes")
	}
	modes, ok := modesTerm.Value.(ast.Object)
	if !ok {
		return modeTable{}, fmt.Errorf("call.rego: schema.modes is not an object")
	}
	t := modeTable{spellings: map[string]string{}, fallback: map[string]string{}}
	type first struct {
		mode   string
		offset int
	}
	var order []first
	for _, k := range modes.Keys() {
		name, ok1 := k.Value.(ast.String)
		mode, ok2 := modes.Get(k).Value.(ast.String)
		if !ok1 || !ok2 {
			return modeTable{}, fmt.Errorf("call.rego: schema.modes[%v] is not a string to a string", k)
		}
		t.spellings[strings.ToLower(string(name))] = string(mode)
		off := 0
		if k.Location != nil {
			off = k.Location.Offset
		}
		i := slices.IndexFunc(order, func(f first) bool { return f.mode == string(mode) })
		if i < 0 {
			order = append(order, first{string(mode), off})
		} else if off < order[i].offset {
			order[i].offset = off
		}
	}
	slices.SortStableFunc(order, func(a, b first) int { return a.offset - b.offset })
	for _, f := range order {
		t.canonical = append(t.canonical, f.mode)
	}
	fb, err := ruleValue(fsys, "permopa/policy/modes/modes.rego", "fallback")
	if err != nil {
		return modeTable{}, err
	}
	fbo, ok := fb.Value.(ast.Object)
	if !ok {
		return modeTable{}, fmt.Errorf("modes.rego: fallback is not an object")
	}
	for _, k := range fbo.Keys() {
		m, ok1 := k.Value.(ast.String)
		b, ok2 := fbo.Get(k).Value.(ast.String)
		if !ok1 || !ok2 {
			return modeTable{}, fmt.Errorf("modes.rego: fallback[%v] is not a string to a string", k)
		}
		t.fallback[string(m)] = string(b)
	}
	if t.required, err = stringLists(schema, "required"); err != nil {
		return modeTable{}, err
	}
	if t.readers, err = stringSet(fsys, "permopa/policy/tools/files/files.rego", "readers"); err != nil {
		return modeTable{}, err
	}
	if t.writers, err = stringSet(fsys, "permopa/policy/tools/files/files.rego", "writers"); err != nil {
		return modeTable{}, err
	}
	if t.searchers, err = stringSet(fsys, "permopa/policy/tools/files/files.rego", "searchers"); err != nil {
		return modeTable{}, err
	}
	if t.web, err = stringSet(fsys, "permopa/policy/tools/other/other.rego", "web"); err != nil {
		return modeTable{}, err
	}
	t.files = map[string]bool{}
	maps.Copy(t.files, t.readers)
	maps.Copy(t.files, t.writers)
	return t, nil
}

// stringLists reads obj[key], an object of arrays of strings.
func stringLists(obj *ast.Term, key string) (map[string][]string, error) {
	o, _ := obj.Value.(ast.Object)
	var v *ast.Term
	if o != nil {
		v = o.Get(ast.StringTerm(key))
	}
	lists, ok := (ast.Object)(nil), false
	if v != nil {
		lists, ok = v.Value.(ast.Object)
	}
	if !ok {
		return nil, fmt.Errorf("call.rego: schema.%s is not an object", key)
	}
	out := map[string][]string{}
	for _, k := range lists.Keys() {
		arr, ok1 := lists.Get(k).Value.(*ast.Array)
		name, ok2 := k.Value.(ast.String)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("call.rego: schema.%s[%v] is not an array", key, k)
		}
		var fields []string
		for i := range arr.Len() {
			f, ok := arr.Elem(i).Value.(ast.String)
			if !ok {
				return nil, fmt.Errorf("call.rego: schema.%s[%v] holds a non-string", key, k)
			}
			fields = append(fields, string(f))
		}
		out[string(name)] = fields
	}
	return out, nil
}

// stringSet reads the constant rule name, a set of strings, of the module at path.
func stringSet(fsys fs.FS, path, name string) (map[string]bool, error) {
	v, err := ruleValue(fsys, path, name)
	if err != nil {
		return nil, err
	}
	set, ok := v.Value.(ast.Set)
	if !ok {
		return nil, fmt.Errorf("%s: %s is not a set", path, name)
	}
	out := map[string]bool{}
	for _, e := range set.Slice() {
		s, ok := e.Value.(ast.String)
		if !ok {
			return nil, fmt.Errorf("%s: %s holds a non-string", path, name)
		}
		out[string(s)] = true
	}
	return out, nil
}

// FileTools are the policy's file tools (files.readers and files.writers).
// The maps these functions return are shared: read them, never modify them.
func FileTools() map[string]bool { return policyModes().files }

// FileReadTools are the policy's file tools that read (files.readers).
func FileReadTools() map[string]bool { return policyModes().readers }

// FileEditTools are the policy's file tools that write (files.writers).
func FileEditTools() map[string]bool { return policyModes().writers }

// FileSearchTools are the policy's file tools that read a tree
// (files.searchers, among FileReadTools).
func FileSearchTools() map[string]bool { return policyModes().searchers }

// WebTools are the policy's tools that fetch from the network, whose rules
// name domains (other.web).
func WebTools() map[string]bool { return policyModes().web }

// RequiredArguments are the arguments the policy requires of a built-in
// tool as non-empty strings (call.schema.required); nil for other tools.
func RequiredArguments(tool string) []string {
	return slices.Clone(policyModes().required[tool])
}

// moduleCache parses each module of the policy once while the tables are
// read; shared: the modules come from defaultpolicy.ParsedModules.
type moduleCache struct {
	fs.FS
	mods   map[string]*ast.Module
	shared bool
}

// ruleValue is the value term of the constant rule name in the module at path.
func ruleValue(fsys fs.FS, path, name string) (*ast.Term, error) {
	mc, _ := fsys.(*moduleCache)
	var mod *ast.Module
	if mc != nil {
		mod = mc.mods[path]
	}
	if mod == nil && mc != nil && mc.shared {
		m, err := defaultpolicy.ParsedModule(path)
		if err != nil {
			return nil, err
		}
		mod = m
	}
	if mod == nil {
		src, err := fs.ReadFile(fsys, path)
		if err != nil {
			return nil, err
		}
		mod, err = ast.ParseModuleWithOpts(path, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, err
		}
		if mc != nil {
			mc.mods[path] = mod
		}
	}
	for _, r := range mod.Rules {
		if r.Head.Name.String() == name && r.Head.Value != nil {
			return r.Head.Value, nil
		}
	}
	return nil, fmt.Errorf("%s: no rule %s", path, name)
}

// ValidMode reports whether name is a mode of docs/decision.md, in any
// spelling the policy accepts (case-insensitive).
func ValidMode(name string) bool {
	_, ok := CanonicalMode(name)
	return ok
}

// CanonicalMode is the canonical form of the mode name (DEFAULT,
// ACCEPT_EDITS, ...), as the policy's permopa.call.context computes it.
func CanonicalMode(name string) (string, bool) {
	m, ok := policyModes().spellings[strings.ToLower(name)]
	return m, ok
}

// Modes lists the canonical modes in the policy's order (the columns of
// the decision matrix). The caller owns the slice.
func Modes() []string { return slices.Clone(policyModes().canonical) }

// ModeSpellings lists every name the policy accepts for a mode, lower-cased
// and sorted.
func ModeSpellings() []string {
	out := make([]string, 0, len(policyModes().spellings))
	for k := range policyModes().spellings {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
