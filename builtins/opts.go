package builtins

import (
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/permopa/permopa/builtins/internal/lru"
)

// Option keys, shared by every built-in that takes an opts object.
var (
	keyCwd                = ast.StringTerm("cwd")
	keyHome               = ast.StringTerm("home")
	keyWorkingDirectories = ast.StringTerm("working_directories")
	keyMaxLength          = ast.StringTerm("max_length")
	keyMaxLeaves          = ast.StringTerm("max_leaves")
	keyShellPerCall       = ast.StringTerm("shell_per_call")
	keyStdinTerminal      = ast.StringTerm("stdin_terminal")
	keyPositionalEmpty    = ast.StringTerm("positional_empty")
	keyGitPagerCat        = ast.StringTerm("git_pager_cat")
	keyProjectEnv         = ast.StringTerm("project_env")
	keyName               = ast.StringTerm("name")
	keyDangerousPaths     = ast.StringTerm("dangerous_paths")
	keyMode               = ast.StringTerm("mode")
	keyCaseInsensitive    = ast.StringTerm("case_insensitive")
	keyCertain            = ast.StringTerm("certain")
	keyFiles              = ast.StringTerm("files")
	keyDirectories        = ast.StringTerm("directories")
	keyAdd                = ast.StringTerm("add")
	keyRemove             = ast.StringTerm("remove")
)

// optsType is the declared type of every opts operand: any object with
// string keys. Unknown keys are ignored.
var optsType = types.NewObject(nil, types.NewDynamicProperty(types.S, types.A))

func namedOpts(desc string) types.Type {
	return types.Named("opts", optsType).Description(desc)
}

func stringArray() types.Type { return types.NewArray(nil, types.S) }

// opts reads the options object that is operand pos (1-based, for errors).
type opts struct {
	obj ast.Object
	pos int
}

func optsOperand(t *ast.Term, pos int) (opts, error) {
	obj, err := builtins.ObjectOperand(t.Value, pos)
	return opts{obj: obj, pos: pos}, err
}

// str returns the string option key ("" when absent or null).
func (o opts) str(key *ast.Term) (string, error) {
	t := o.obj.Get(key)
	if t == nil {
		return "", nil
	}
	switch v := t.Value.(type) {
	case ast.String:
		return string(v), nil
	case ast.Null:
		return "", nil
	}
	return "", builtins.NewOperandErr(o.pos, "option %v must be a string, got %s", key, ast.ValueName(t.Value))
}

// bool returns the boolean option key (false when absent or null).
func (o opts) bool(key *ast.Term) (bool, error) {
	t := o.obj.Get(key)
	if t == nil {
		return false, nil
	}
	switch v := t.Value.(type) {
	case ast.Boolean:
		return bool(v), nil
	case ast.Null:
		return false, nil
	}
	return false, builtins.NewOperandErr(o.pos, "option %v must be a boolean, got %s", key, ast.ValueName(t.Value))
}

// int returns the integer option key (0 when absent or null).
func (o opts) int(key *ast.Term) (int, error) {
	t := o.obj.Get(key)
	if t == nil {
		return 0, nil
	}
	if _, ok := t.Value.(ast.Null); ok {
		return 0, nil
	}
	n, ok := t.Value.(ast.Number)
	if ok {
		if i, ok := n.Int(); ok && i >= 0 {
			return i, nil
		}
	}
	return 0, builtins.NewOperandErr(o.pos, "option %v must be a non-negative integer, got %v", key, t)
}

// strings returns the array-of-strings option key (nil when absent or null).
func (o opts) strings(key *ast.Term) ([]string, error) {
	t := o.obj.Get(key)
	if t == nil {
		return nil, nil
	}
	return stringsOf(t.Value, func() error {
		return builtins.NewOperandErr(o.pos, "option %v must be an array of strings, got %v", key, t)
	})
}

// stringsOf converts an array (or null) of strings; bad calls mkErr.
func stringsOf(v ast.Value, mkErr func() error) ([]string, error) {
	switch v := v.(type) {
	case ast.Null:
		return nil, nil
	case *ast.Array:
		out := make([]string, v.Len())
		for i := range out {
			s, ok := v.Elem(i).Value.(ast.String)
			if !ok {
				return nil, mkErr()
			}
			out[i] = string(s)
		}
		return out, nil
	}
	return nil, mkErr()
}

// stringArrayOperand checks that operand pos is an array of strings.
func stringArrayOperand(t *ast.Term, pos int) (*ast.Array, error) {
	a, err := builtins.ArrayOperand(t.Value, pos)
	if err != nil {
		return nil, err
	}
	for i := range a.Len() {
		if _, ok := a.Elem(i).Value.(ast.String); !ok {
			return nil, builtins.NewOperandElementErr(pos, a, a.Elem(i).Value, "string")
		}
	}
	return a, nil
}

// valueCache caches what is compiled from an OPA value (a list of rules, a
// settings object) together with a few strings it was compiled for. The key
// is the value's hash, which OPA keeps in every array and object, so a hit
// costs no walk of the value when the very same value comes back (data read
// from an AST store), and one comparison otherwise.
type valueCache[T any] struct {
	c *lru.Cache[valueKey, valueEntry[T]]
}

type valueKey struct {
	hash int
	a, b string
	n    int // elements in the value
}

type valueEntry[T any] struct {
	v ast.Value
	t T
}

// newValueCache returns a cache holding values of at most max elements in all.
func newValueCache[T any](max int) valueCache[T] {
	return valueCache[T]{c: lru.New[valueKey, valueEntry[T]](max)}
}

func keyOf(v ast.Value, a, b string) valueKey {
	n := 0
	switch v := v.(type) {
	case *ast.Array:
		n = v.Len()
	case ast.Object:
		n = v.Len()
	}
	return valueKey{hash: v.Hash(), a: a, b: b, n: n}
}

// get returns what was stored for v, a and b, compiling and storing it on a
// miss. An entry weighs as many as v has elements, so the cache is bounded
// by rules rather than by lists.
func (c valueCache[T]) get(v ast.Value, a, b string, compile func() (T, error)) (T, error) {
	k := keyOf(v, a, b)
	if e, ok := c.c.Get(k); ok && same(e.v, v) {
		if e.v != v {
			// An equal value, not the same one (another copy of the same
			// data): keep this one, so the next call finds it by identity
			// instead of comparing every element again.
			c.c.PutWeighted(k, valueEntry[T]{v: v, t: e.t}, k.n)
		}
		return e.t, nil
	}
	t, err := compile()
	if err != nil {
		return t, err
	}
	c.c.PutWeighted(k, valueEntry[T]{v: v, t: t}, k.n)
	return t, nil
}

// same reports whether x and y are equal, by identity first. Arrays of
// strings (rule lists) are compared in a tight loop: a list rebuilt on every
// evaluation (a comprehension, a store that converts data on read) costs a
// few nanoseconds per rule, not a generic comparison.
func same(x, y ast.Value) bool {
	switch xv := x.(type) {
	case *ast.Array:
		yv, ok := y.(*ast.Array)
		if !ok || xv.Len() != yv.Len() {
			return false
		}
		if xv == yv {
			return true
		}
		for i := range xv.Len() {
			a, b := xv.Elem(i), yv.Elem(i)
			if a == b {
				continue
			}
			as, ok1 := a.Value.(ast.String)
			bs, ok2 := b.Value.(ast.String)
			if !ok1 || !ok2 {
				return x.Compare(y) == 0
			}
			if as != bs {
				return false
			}
		}
		return true
	case ast.Object:
		if yv, ok := y.(ast.Object); ok && xv == yv {
			return true
		}
	}
	return x.Compare(y) == 0
}

// Result terms shared by every call.
var (
	termTrue     = ast.InternedTerm(true)
	termFalse    = ast.InternedTerm(false)
	termMinusOne = ast.InternedTerm(-1)
)

func boolTerm(b bool) *ast.Term {
	if b {
		return termTrue
	}
	return termFalse
}

func indexTerm(i int) *ast.Term {
	if i < 0 {
		return termMinusOne
	}
	return ast.InternedTerm(i)
}

// stringsTerm converts a string slice to an array term (never null).
func stringsTerm(ss []string) *ast.Term {
	if len(ss) == 0 {
		return ast.InternedEmptyArray
	}
	ts := make([]*ast.Term, len(ss))
	for i, s := range ss {
		ts[i] = ast.StringTerm(s)
	}
	return ast.ArrayTerm(ts...)
}
