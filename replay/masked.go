package replay

import (
	"strconv"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/internal/decisionlog"
)

// A decision log erases some input fields (by default what carries file
// contents and edits; docs/opa.md, "Masking"). Replaying such a call is
// exact only when the candidate policy decided it without reading an
// erased field. This file tells, per decision, whether it could have:
// every compiled rule is read once for the input paths it can reach, and
// a decision is evaluated with a tracer that reports the rules it entered
// (engine.DecideTraced: rule indexing off, so that no rule is skipped by
// an index lookup on an input value). A decision that entered a rule that
// reads an erased field, or a container holding one as a whole value, is
// reported as depending on the masked field instead of being trusted.
//
// The analysis errs on the side of "depends": a ref with a variable key, a
// container passed to a function or compared, a rule that is not a plain
// alias all count as reading everything below them. Built-ins that only
// look at a container's shape (type, size, keys) do not, and permopa's
// built-ins that take the whole input are modelled by what they read
// (builtinReads).

// seg is one step of an input path: a key, or any key (a variable),
// or any key but one.
type seg struct {
	key    string
	any    bool
	except string // with any: every key but this one
}

func (s seg) matches(key string) bool {
	if s.any {
		return s.except == "" || key != s.except
	}
	return s.key == key
}

// read is an input path a rule reads: the value at path (and all below it),
// or only its shape (type, size, keys) when shape.
type read struct {
	path  []seg
	shape bool
	// rule is where the read is, for the report.
	rule *ast.Rule
}

// reaches reports whether r can see the value at the erased path p
// (segments under input).
func (r read) reaches(p []string) bool {
	n := min(len(r.path), len(p))
	for i := 0; i < n; i++ {
		if !r.path[i].matches(p[i]) {
			return false
		}
	}
	if r.shape && len(r.path) < len(p) {
		return false // only the shape of a container holding p
	}
	return true
}

// binding is what a local variable stands for: an input path, or a data
// reference (kept to look constants up).
type binding struct {
	input []seg
	data  ast.Ref
	isIn  bool
}

// analysis is the input reads of every rule of one compiler.
type analysis struct {
	compiler *ast.Compiler
	// aliases are rules whose value is an input path as a whole
	// (tool_input := input.tool_input), by their data ref.
	aliases map[string]aliasRule
	mu      sync.Mutex
	reads   map[*ast.Rule][]read
}

type aliasRule struct {
	ref  ast.Ref
	path []seg
}

func newAnalysis(c *ast.Compiler) *analysis {
	a := &analysis{compiler: c, aliases: map[string]aliasRule{}, reads: map[*ast.Rule][]read{}}
	a.findAliases()
	return a
}

// readsOf returns the input reads of a rule (analysed on first use).
func (a *analysis) readsOf(r *ast.Rule) []read {
	a.mu.Lock()
	defer a.mu.Unlock()
	if rs, ok := a.reads[r]; ok {
		return rs
	}
	w := &ruleWalk{a: a, rule: r, env: map[ast.Var]binding{}, seen: map[ast.Var]bool{}}
	for _, arg := range r.Head.Args {
		w.markVars(arg)
	}
	if !a.isAlias(r) {
		w.body(r.Body)
		for _, t := range []*ast.Term{r.Head.Key, r.Head.Value} {
			if t != nil {
				w.value(t)
			}
		}
		for _, t := range r.Head.Ref()[1:] {
			w.value(t)
		}
	} else {
		w.body(r.Body)
	}
	a.reads[r] = w.reads
	return w.reads
}

// findAliases finds the rules whose only definition is a plain alias of
// an input path, to a fixpoint (an alias of an alias).
func (a *analysis) findAliases() {
	byRef := map[string][]*ast.Rule{}
	for _, m := range a.compiler.Modules {
		for _, r := range m.Rules {
			if r.Module == nil {
				continue
			}
			byRef[r.Ref().String()] = append(byRef[r.Ref().String()], r)
		}
	}
	for range 8 {
		changed := false
		for key, rules := range byRef {
			if _, done := a.aliases[key]; done || len(rules) != 1 {
				continue
			}
			r := rules[0]
			if r.Default || r.Else != nil || len(r.Head.Args) > 0 || r.Head.Key != nil || r.Head.Value == nil || !r.Head.Ref().IsGround() {
				continue
			}
			w := &ruleWalk{a: a, rule: r, env: map[ast.Var]binding{}, seen: map[ast.Var]bool{}}
			if !w.onlyAliases(r.Body) {
				continue
			}
			if p, ok := w.resolve(r.Head.Value); ok {
				a.aliases[key] = aliasRule{ref: r.Ref(), path: p}
				changed = true
			}
		}
		if !changed {
			break
		}
	}
}

func (a *analysis) isAlias(r *ast.Rule) bool {
	if r.Module == nil {
		return false
	}
	al, ok := a.aliases[r.Ref().String()]
	return ok && al.ref.Equal(r.Ref())
}

// ruleWalk collects the reads of one rule.
type ruleWalk struct {
	a     *analysis
	rule  *ast.Rule
	env   map[ast.Var]binding
	seen  map[ast.Var]bool
	reads []read
}

func (w *ruleWalk) add(p []seg, shape bool) {
	w.reads = append(w.reads, read{path: p, shape: shape, rule: w.rule})
}

func (w *ruleWalk) markVars(t *ast.Term) {
	ast.WalkVars(t, func(v ast.Var) bool { w.seen[v] = true; return false })
}

// onlyAliases walks a body made only of `var = input path` expressions,
// binding them; false for anything else.
func (w *ruleWalk) onlyAliases(body ast.Body) bool {
	for _, e := range body {
		if e.Negated || len(e.With) > 0 {
			return false
		}
		if t, ok := e.Terms.(*ast.Term); ok && ast.Boolean(true).Equal(t.Value) {
			continue
		}
		if !e.IsEquality() {
			return false
		}
		ops := e.Operands()
		v, ok := ops[0].Value.(ast.Var)
		if !ok || w.seen[v] {
			return false
		}
		p, ok := w.resolve(ops[1])
		if !ok {
			return false
		}
		w.env[v] = binding{input: p, isIn: true}
		w.seen[v] = true
	}
	return true
}

// resolve returns the input path a term stands for: a ref rooted at input,
// at a variable bound to an input path, or at an alias rule.
func (w *ruleWalk) resolve(t *ast.Term) ([]seg, bool) {
	switch x := t.Value.(type) {
	case ast.Var:
		if x.Equal(ast.InputRootDocument.Value) {
			return []seg{}, true
		}
		if b, ok := w.env[x]; ok && b.isIn {
			return b.input, true
		}
	case ast.Ref:
		head, ok := x[0].Value.(ast.Var)
		if !ok {
			return nil, false
		}
		var base []seg
		rest := x[1:]
		switch {
		case head.Equal(ast.InputRootDocument.Value):
			base = []seg{}
		case head.Equal(ast.DefaultRootDocument.Value):
			al, n, ok := w.a.aliasFor(x)
			if !ok {
				return nil, false
			}
			base, rest = al.path, x[n:]
		default:
			b, ok := w.env[head]
			if !ok || !b.isIn {
				return nil, false
			}
			base = b.input
		}
		p := append([]seg(nil), base...)
		for _, k := range rest {
			p = append(p, keySeg(k))
		}
		return p, true
	}
	return nil, false
}

// aliasFor finds the alias rule a data ref goes through, and how many of
// the ref's terms it covers.
func (a *analysis) aliasFor(ref ast.Ref) (aliasRule, int, bool) {
	for n := len(ref); n > 1; n-- {
		if !ref[:n].IsGround() {
			continue
		}
		if al, ok := a.aliases[ref[:n].String()]; ok {
			return al, n, true
		}
	}
	return aliasRule{}, 0, false
}

func keySeg(k *ast.Term) seg {
	switch v := k.Value.(type) {
	case ast.String:
		return seg{key: string(v)}
	case ast.Number:
		return seg{key: v.String()}
	}
	return seg{any: true}
}

// body walks the expressions of a body in order.
func (w *ruleWalk) body(body ast.Body) {
	for _, e := range body {
		w.expr(e)
	}
}

func (w *ruleWalk) expr(e *ast.Expr) {
	defer func() { w.markVars(exprTerm(e)) }()
	for _, with := range e.With {
		w.value(with.Value)
	}
	switch terms := e.Terms.(type) {
	case *ast.Term:
		w.value(terms)
		return
	case *ast.Every:
		w.value(terms.Domain)
		inner := w.child()
		inner.markVars(terms.Key)
		inner.markVars(terms.Value)
		inner.body(terms.Body)
		w.reads = append(w.reads, inner.reads...)
		return
	}
	if !e.IsCall() {
		return
	}
	ops := e.Operands()
	if e.IsEquality() || e.IsAssignment() {
		for i := range 2 {
			v, ok := ops[i].Value.(ast.Var)
			if !ok || w.seen[v] || v.IsWildcard() {
				continue
			}
			if p, ok := w.resolve(ops[1-i]); ok {
				// An alias: reading the variable later is reading the path.
				w.env[v] = binding{input: p, isIn: true}
				return
			}
			if r, ok := ops[1-i].Value.(ast.Ref); ok && r[0].Equal(ast.DefaultRootDocument) {
				w.env[v] = binding{data: r}
			}
		}
		w.value(ops[0])
		w.value(ops[1])
		return
	}
	name := e.Operator().String()
	if w.builtin(name, ops) {
		return
	}
	for _, op := range ops {
		w.value(op)
	}
}

func exprTerm(e *ast.Expr) *ast.Term {
	switch t := e.Terms.(type) {
	case *ast.Term:
		return t
	case []*ast.Term:
		return ast.ArrayTerm(t...)
	case *ast.Every:
		return ast.ArrayTerm(t.Key, t.Value, t.Domain)
	}
	return ast.NullTerm()
}

func (w *ruleWalk) child() *ruleWalk {
	c := &ruleWalk{a: w.a, rule: w.rule, env: map[ast.Var]binding{}, seen: map[ast.Var]bool{}}
	for k, v := range w.env {
		c.env[k] = v
	}
	for k := range w.seen {
		c.seen[k] = true
	}
	return c
}

// shapeBuiltins look only at a value's type, size or keys: a container
// holding an erased field keeps its keys (replay puts a placeholder back).
var shapeBuiltins = map[string]bool{
	"is_object": true, "is_array": true, "is_set": true, "is_string": true, "is_number": true,
	"is_boolean": true, "is_null": true, "type_name": true, "count": true, "object.keys": true,
}

// builtin handles the calls whose reads are known more precisely than
// "every operand as a whole"; false when name is not one of them.
func (w *ruleWalk) builtin(name string, ops []*ast.Term) bool {
	switch {
	case shapeBuiltins[name]:
		if p, ok := w.resolve(ops[0]); ok {
			w.add(p, true)
		} else {
			w.value(ops[0])
		}
		for _, op := range ops[1:] {
			w.value(op)
		}
		return true
	case name == "object.get" && len(ops) >= 3:
		base, ok := w.resolve(ops[0])
		if !ok {
			return false
		}
		var keys []*ast.Term
		if arr, ok := ops[1].Value.(*ast.Array); ok {
			arr.Foreach(func(t *ast.Term) { keys = append(keys, t) })
		} else {
			keys = []*ast.Term{ops[1]}
		}
		p := append([]seg(nil), base...)
		for _, k := range keys {
			p = append(p, keySeg(k))
			w.value(k)
		}
		w.value(ops[2])
		if len(ops) == 4 {
			if v, ok := ops[3].Value.(ast.Var); ok && !w.seen[v] {
				// Whether the key is there is known (replay puts erased
				// keys back); its value is read where v is used.
				w.env[v] = binding{input: p, isIn: true}
				return true
			}
			w.value(ops[3])
		}
		w.add(p, false)
		return true
	}
	if model, ok := builtinReads[name]; ok {
		return model(w, ops)
	}
	return false
}

func init() {
	builtinReads = map[string]func(w *ruleWalk, ops []*ast.Term) bool{
		"permopa.call.context": (*ruleWalk).callContext,
		"permopa.rules.lists":  (*ruleWalk).rulesLists,
	}
}

// builtinReads model permopa's built-ins that take the whole input by
// what they read of it (builtins/call.go, builtins/rules.go; the test
// TestBuiltinReadModels checks the models against the built-ins).
var builtinReads map[string]func(w *ruleWalk, ops []*ast.Term) bool

// callContext: permopa.call.context(input, settings, schema) reads every
// top-level field but tool_input, the shape of tool_input, and the
// tool_input fields the schema names (required and optional, any tool).
func (w *ruleWalk) callContext(ops []*ast.Term) bool {
	if len(ops) < 3 {
		return false
	}
	base, ok := w.resolve(ops[0])
	fields, known := w.schemaFields(ops[2])
	if !ok || len(base) != 0 || !known {
		return false
	}
	w.add([]seg{{any: true, except: "tool_input"}}, false)
	w.add([]seg{{key: "tool_input"}}, true)
	for _, f := range fields {
		w.add([]seg{{key: "tool_input"}, {key: f}}, false)
	}
	for _, op := range ops[1:] {
		w.value(op)
	}
	return true
}

// rulesLists: permopa.rules.lists(org, settings, call, guards) reads the
// call's tool_name, project_dir, cwd and session_id.
func (w *ruleWalk) rulesLists(ops []*ast.Term) bool {
	if len(ops) < 4 {
		return false
	}
	base, ok := w.resolve(ops[2])
	if !ok {
		return false
	}
	w.add(base, true)
	for _, k := range []string{"tool_name", "project_dir", "cwd", "session_id"} {
		w.add(append(append([]seg(nil), base...), seg{key: k}), false)
	}
	for i, op := range ops {
		if i != 2 {
			w.value(op)
		}
	}
	return true
}

// schemaFields are the tool_input fields a call.context schema names: the
// schema must be a data rule with one constant definition.
func (w *ruleWalk) schemaFields(t *ast.Term) ([]string, bool) {
	var ref ast.Ref
	switch x := t.Value.(type) {
	case ast.Ref:
		ref = x
	case ast.Var:
		b, ok := w.env[x]
		if !ok || b.data == nil {
			return nil, false
		}
		ref = b.data
	case ast.Object:
		return fieldsOf(x)
	default:
		return nil, false
	}
	rules := w.a.compiler.GetRulesExact(ref)
	if len(rules) != 1 || rules[0].Head.Value == nil || !rules[0].Head.Value.IsGround() || len(rules[0].Body) != 1 {
		return nil, false
	}
	obj, ok := rules[0].Head.Value.Value.(ast.Object)
	if !ok {
		return nil, false
	}
	return fieldsOf(obj)
}

func fieldsOf(schema ast.Object) ([]string, bool) {
	var out []string
	ok := true
	for _, part := range []string{"required", "optional"} {
		t := schema.Get(ast.StringTerm(part))
		if t == nil {
			continue
		}
		tools, isObj := t.Value.(ast.Object)
		if !isObj {
			return nil, false
		}
		tools.Foreach(func(_, v *ast.Term) {
			arr, isArr := v.Value.(*ast.Array)
			if !isArr {
				ok = false
				return
			}
			arr.Foreach(func(f *ast.Term) {
				s, isStr := f.Value.(ast.String)
				if !isStr {
					ok = false
					return
				}
				out = append(out, string(s))
			})
		})
	}
	return out, ok
}

// value walks a term used as a value: every input path in it is read as a
// whole.
func (w *ruleWalk) value(t *ast.Term) {
	if t == nil {
		return
	}
	if p, ok := w.resolve(t); ok {
		w.add(p, false)
		if r, isRef := t.Value.(ast.Ref); isRef {
			for _, k := range r[1:] {
				if _, isStr := k.Value.(ast.String); !isStr {
					w.value(k)
				}
			}
		}
		return
	}
	switch x := t.Value.(type) {
	case ast.Ref:
		for _, k := range x {
			w.value(k)
		}
		if x[0].Equal(ast.DefaultRootDocument) {
			w.dataRef(x)
		}
	case *ast.Array:
		x.Foreach(w.value)
	case ast.Set:
		x.Foreach(w.value)
	case ast.Object:
		x.Foreach(func(k, v *ast.Term) { w.value(k); w.value(v) })
	case ast.Call:
		for _, op := range x[1:] {
			w.value(op)
		}
	case *ast.ArrayComprehension:
		c := w.child()
		c.body(x.Body)
		c.value(x.Term)
		w.reads = append(w.reads, c.reads...)
	case *ast.SetComprehension:
		c := w.child()
		c.body(x.Body)
		c.value(x.Term)
		w.reads = append(w.reads, c.reads...)
	case *ast.ObjectComprehension:
		c := w.child()
		c.body(x.Body)
		c.value(x.Key)
		c.value(x.Value)
		w.reads = append(w.reads, c.reads...)
	}
}

// dataRef: a data ref that is not below an alias but may hold one (data.p,
// data.p[x]) reads the aliased input paths as a whole; one that may go
// through one (data.p[x].content) reads below it.
func (w *ruleWalk) dataRef(ref ast.Ref) {
	for _, al := range w.a.aliases {
		n := min(len(ref), len(al.ref))
		match := true
		for i := 0; i < n && match; i++ {
			if ref[i].IsGround() {
				match = ref[i].Equal(al.ref[i])
			}
		}
		switch {
		case !match:
		case len(ref) <= len(al.ref):
			w.add(al.path, false)
		default:
			p := append([]seg(nil), al.path...)
			for _, k := range ref[len(al.ref):] {
				p = append(p, keySeg(k))
			}
			w.add(p, false)
		}
	}
}

// erasedPaths parses the erased pointers into segments under input.
func erasedPaths(pointers []string) [][]string {
	out := make([][]string, 0, len(pointers))
	for _, p := range pointers {
		if segs, err := decisionlog.ParsePointer(p); err == nil {
			out = append(out, segs)
		}
	}
	return out
}

// where names a rule's place for the report.
func where(r *ast.Rule) string {
	if r == nil || r.Location == nil {
		return "a rule"
	}
	return r.Location.File + ":" + strconv.Itoa(r.Location.Row)
}
