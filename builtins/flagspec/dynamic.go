package flagspec

import (
	"reflect"
	"slices"
	"strings"
)

// Words only known at run time where an option may stand (docs/shell.md,
// "Values and where they come from"). A word an expansion fills ($x,
// $(cmd), `cmd`) may be no word, several, "--", or any option of the
// program. When the program's spec lists every option it has (complete)
// and has no subcommands, each of those can be tried in the word's place:
// if every one leaves the call read-only with the same effects, the word
// cannot change what the call does, whatever it holds.

// maxDynamicWords bounds the dynamic words of one argv that are tried.
const maxDynamicWords = 4

// dynamicOperand stands for a dynamic word taken as an operand (or an
// option's value): it holds Dynamic, so it is never a static path, and
// does not start with "-".
const dynamicOperand = "x" + Dynamic

// DynamicWordsHarmless judges argv whose words at the indexes at are only
// known at run time (they may be options; splits[i] says the word at[i] is
// unquoted, so it may also be no word or several). Each such word is tried
// as an operand (the verdict returned), as nothing and as two operands
// when it splits, as "--", and as each option of the program: alone, with
// its value glued (--opt=V, -oV), and taking the next word as its value;
// when it splits, an option without a value also followed by an operand.
// ok is true when every try is read-only, runs nothing, reaches no network,
// prints no environment, and reads, writes and recursively reads nothing
// the operand try does not (a dynamic path is never static, so a read of
// one already fails the caller). A combination of several options in one
// word (-ud, or two fields "-d" "-u") is not tried: each option's effect
// alone is, and a spec's hooks combine marks, not words.
func DynamicWordsHarmless(argv []string, at []int, splits []bool) (Verdict, bool) {
	if len(argv) < 2 || len(at) == 0 || len(at) > maxDynamicWords || len(splits) != len(at) {
		return Verdict{}, false
	}
	s := lookup(argv[0])
	if s == nil || !s.complete || s.subs != nil || s.anyArgs || s.never != "" || s.fs || s.writer ||
		s.runs > 0 || s.hasCmd {
		return Verdict{}, false
	}
	for _, i := range at {
		if i < 1 || i >= len(argv) {
			return Verdict{}, false
		}
	}
	base := slices.Clone(argv)
	for _, i := range at {
		base[i] = dynamicOperand
	}
	main := Judge(base)
	if !main.ReadOnly || !calm(main) {
		return Verdict{}, false
	}
	// One spelling per option: synonyms and abbreviations parse the same.
	var opts []*flagDef
	seen := map[string]bool{}
	for k := range s.defs {
		d := &s.defs[k]
		if d.parseOnly || seen[d.canon] {
			continue
		}
		seen[d.canon] = true
		opts = append(opts, d)
	}
	for n, i := range at {
		var tries [][]string
		with := func(ws ...string) {
			t := slices.Concat(base[:i], ws, base[i+1:])
			tries = append(tries, t)
		}
		with("--")
		if splits[n] {
			with()
			with(dynamicOperand, dynamicOperand)
		}
		last := i == len(base)-1
		for _, d := range opts {
			if d.arity == argNone || !last || d.arity == argOpt || d.arity == argLast {
				// Last, an option that needs a value is an error: the
				// program stops before doing anything.
				with(d.name)
			}
			if d.arity == argNone {
				if splits[n] {
					// Split, the word may be the option and an operand
					// after it ("-B dir": whereis then lists dir).
					with(d.name, dynamicOperand)
				}
				continue
			}
			if strings.HasPrefix(d.name, "--") || s.single {
				with(d.name + "=" + dynamicOperand)
			} else {
				with(d.name + dynamicOperand)
			}
		}
		for _, t := range tries {
			v := Judge(t)
			if !v.ReadOnly || !calm(v) || !subset(v.Reads, main.Reads) || !subset(v.Writes, main.Writes) ||
				!treesWithin(v.RecursiveReads, main.RecursiveReads) || v.Environment != main.Environment ||
				v.Terminal != "" && main.Terminal == "" {
				// An option that turns the terminal use on counts too.
				return Verdict{}, false
			}
		}
	}
	return main, true
}

// calm reports whether a verdict runs nothing, reaches no network and
// names no path only known at run time.
func calm(v Verdict) bool {
	for _, p := range slices.Concat(v.Reads, v.Writes) {
		if strings.Contains(p, Dynamic) {
			return false
		}
	}
	for _, tr := range v.RecursiveReads {
		if strings.Contains(tr.Path, Dynamic) {
			return false
		}
	}
	return v.RunsUnknown == "" && v.RunsData == "" && len(v.Commands) == 0 && v.Runs == 0 &&
		v.Network == "" && !v.Unplaced && len(v.Links) == 0
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func treesWithin(a, b []Tree) bool {
	for _, t := range a {
		if !slices.ContainsFunc(b, func(u Tree) bool { return reflect.DeepEqual(u, t) }) {
			return false
		}
	}
	return true
}
