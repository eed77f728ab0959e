package builtins

import (
	"slices"
	"strings"

	"github.com/gobwas/glob"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
	"github.com/open-policy-agent/opa/v1/types"
)

// GlobFirst is permopa.glob.first.
var GlobFirst = &ast.Builtin{
	Name: "permopa.glob.first",
	Description: "The index of the first pattern that matches a string, or -1: what `glob.match` would say of " +
		"each pattern in turn, for a long list at the cost of a few. Syntax `glob` (the default) is `glob.match`'s " +
		"(`*`, `?`, `[...]`, `{a,b}`, `\\\\` escapes; `*` and `?` do not cross a delimiter, `**` does); syntax `stars` " +
		"makes `*` the only wildcard, every other character literal. `delimiters` lists single characters " +
		"(absent or `[]`: none, unlike `glob.match`, where `[]` means `[\".\"]`). With `prefix`, only patterns " +
		"that start with it count, matched without it (`domain:`); with `lower`, patterns are lower-cased " +
		"first. The list is compiled once and indexed by its patterns' literal beginnings and ends (cached with " +
		"the list, so a list stored in the data is compiled once per data revision). A pattern that does not " +
		"compile is an error.",
	Categories: []string{"permopa", "permopa.glob"},
	Decl: types.NewFunction(
		types.Args(
			types.Named("patterns", stringArray()).Description("the patterns, in order"),
			types.Named("subject", types.S).Description("the string to match"),
			namedOpts("options: `syntax` (`\"glob\"` or `\"stars\"`), `delimiters` (array of single characters), "+
				"`prefix` (string), `lower` (boolean)"+unknownKeys),
		),
		types.Named("index", types.N).Description("index of the first matching pattern, or -1"),
	),
	CanSkipBctx: true,
}

var (
	keySyntax     = ast.StringTerm("syntax")
	keyDelimiters = ast.StringTerm("delimiters")
	keyPrefix     = ast.StringTerm("prefix")
	keyLower      = ast.StringTerm("lower")
)

// globSpec is how the patterns of a list are read.
type globSpec struct {
	stars  bool // only "*" is a wildcard
	delims []rune
	prefix string
	lower  bool
}

func (s globSpec) key() string {
	var b strings.Builder
	if s.stars {
		b.WriteString("s")
	} else {
		b.WriteString("g")
	}
	if s.lower {
		b.WriteString("l")
	}
	b.WriteString(string(s.delims))
	b.WriteByte(0)
	b.WriteString(s.prefix)
	return b.String()
}

var globSets = newValueCache[*globSet](1 << 18)

func globFirst(_ topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	pats, err := builtins.ArrayOperand(ops[0].Value, 1)
	if err != nil {
		return nil, err
	}
	subject, err := builtins.StringOperand(ops[1].Value, 2)
	if err != nil {
		return nil, err
	}
	o, err := optsOperand(ops[2], 3)
	if err != nil {
		return nil, err
	}
	var spec globSpec
	switch syn, err := o.str(keySyntax); {
	case err != nil:
		return nil, err
	case syn == "stars":
		spec.stars = true
	case syn != "" && syn != "glob":
		return nil, builtins.NewOperandErr(3, "option syntax must be \"glob\" or \"stars\", got %q", syn)
	}
	ds, err := o.strings(keyDelimiters)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		r := []rune(d)
		if len(r) != 1 {
			return nil, builtins.NewOperandErr(3, "option delimiters must hold single characters, got %q", d)
		}
		spec.delims = append(spec.delims, r[0])
	}
	if spec.prefix, err = o.str(keyPrefix); err != nil {
		return nil, err
	}
	if spec.lower, err = o.bool(keyLower); err != nil {
		return nil, err
	}
	set, err := globSets.get(pats, spec.key(), "", func() (*globSet, error) {
		ss, err := stringsOf(pats, func() error {
			_, err := stringArrayOperand(ops[0], 1)
			return err
		})
		if err != nil {
			return nil, err
		}
		set, err := newGlobSet(ss, spec)
		if err != nil {
			return nil, builtins.NewOperandErr(1, "%v", err)
		}
		return set, nil
	})
	if err != nil {
		return nil, err
	}
	return indexTerm(set.first(string(subject))), nil
}

// globSet is a list of compiled patterns indexed so that a subject is
// matched only against the patterns it could match: those without
// wildcards by equality, the others by their literal beginning, else their
// literal end; only patterns with neither are tried on every subject.
type globSet struct {
	globs      []*glob.Pattern  // nil: the pattern never matches (it lacks the prefix)
	exact      map[string][]int // ascending
	byPrefix   map[string][]int
	prefixLens []int
	bySuffix   map[string][]int
	suffixLens []int
	rest       []int
}

// globSpecials are the characters glob.QuoteMeta escapes: outside them a
// pattern is literal text (",", "!" and "-" are special only inside "{}"
// and "[]").
const globSpecials = `*?\[]{}`

func newGlobSet(patterns []string, spec globSpec) (*globSet, error) {
	s := &globSet{globs: make([]*glob.Pattern, len(patterns)), exact: map[string][]int{}, byPrefix: map[string][]int{}, bySuffix: map[string][]int{}}
	specials := globSpecials
	if spec.stars {
		specials = "*"
	}
	prefixLens, suffixLens := map[int]bool{}, map[int]bool{}
	for i, p := range patterns {
		if !strings.HasPrefix(p, spec.prefix) {
			continue
		}
		p = p[len(spec.prefix):]
		if spec.lower {
			p = strings.ToLower(p)
		}
		src := p
		if spec.stars {
			parts := strings.Split(p, "*")
			for j, part := range parts {
				parts[j] = glob.QuoteMeta(part)
			}
			src = strings.Join(parts, "*")
		}
		g, err := glob.Compile(src, spec.delims...)
		if err != nil {
			return nil, err
		}
		s.globs[i] = g
		start := strings.IndexAny(p, specials)
		switch {
		case start < 0:
			s.exact[p] = append(s.exact[p], i)
		case start > 0:
			s.byPrefix[p[:start]] = append(s.byPrefix[p[:start]], i)
			prefixLens[start] = true
		default:
			end := strings.LastIndexAny(p, specials) + 1
			if end < len(p) {
				s.bySuffix[p[end:]] = append(s.bySuffix[p[end:]], i)
				suffixLens[len(p)-end] = true
			} else {
				s.rest = append(s.rest, i)
			}
		}
	}
	for n := range prefixLens {
		s.prefixLens = append(s.prefixLens, n)
	}
	for n := range suffixLens {
		s.suffixLens = append(s.suffixLens, n)
	}
	return s, nil
}

// all are the indexes of every pattern matching subject, ascending.
func (s *globSet) all(subject string) []int {
	out := slices.Clone(s.exact[subject])
	try := func(ids []int) {
		for _, i := range ids {
			if s.globs[i].Match(subject) {
				out = append(out, i)
			}
		}
	}
	for _, n := range s.prefixLens {
		if n <= len(subject) {
			try(s.byPrefix[subject[:n]])
		}
	}
	for _, n := range s.suffixLens {
		if n <= len(subject) {
			try(s.bySuffix[subject[len(subject)-n:]])
		}
	}
	try(s.rest)
	slices.Sort(out)
	return slices.Compact(out)
}

// first is the lowest index of a pattern matching subject, or -1.
func (s *globSet) first(subject string) int {
	best := -1
	if ids := s.exact[subject]; len(ids) > 0 {
		best = ids[0]
	}
	try := func(ids []int) {
		for _, i := range ids {
			if best >= 0 && i >= best {
				return // ids ascend
			}
			if s.globs[i].Match(subject) {
				best = i
				return
			}
		}
	}
	for _, n := range s.prefixLens {
		if n <= len(subject) {
			try(s.byPrefix[subject[:n]])
		}
	}
	for _, n := range s.suffixLens {
		if n <= len(subject) {
			try(s.bySuffix[subject[len(subject)-n:]])
		}
	}
	try(s.rest)
	return best
}
