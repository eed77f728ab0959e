package flagspec

import "strings"

// Short and long spellings of one option (docs/rules.md, "Spellings rules
// see through"). A GNU program reads "-i" and "--in-place" (and every
// unambiguous prefix, "--in-pl") as the same option; a spec that lists them
// as two options would let a deny rule "sed -i:*" miss "sed --in-place".
// gnuSynonyms, generated from the programs' own --help and git's
// subcommands' -h (synonyms_table.go, TestGNUSynonymsTable; keyed by the
// node's name, "sed", "git branch"), joins them when a node is compiled:
//   - both spellings listed: they get one canonical name (Parse reports
//     it), each keeping its own verdict for Judge;
//   - one listed: the other becomes a spelling only Parse knows
//     (parseOnly), so that a rule written either way reads the same, while
//     Judge still treats the unlisted one as unknown.

// joinSynonyms applies pairs ("-a --all -n --quiet": short, long, short,
// long, ...) to a program's compiled options.
func joinSynonyms(defs []flagDef, pairs string) []flagDef {
	if pairs == "" {
		return defs
	}
	f := strings.Fields(pairs)
	find := func(n string) int {
		for i := range defs {
			if defs[i].name == n {
				return i
			}
		}
		return -1
	}
	for k := 0; k+1 < len(f); k += 2 {
		a, b := find(f[k]), find(f[k+1])
		switch {
		case a >= 0 && b >= 0:
			from, to := defs[a].canon, defs[b].canon
			if from == to {
				continue
			}
			for i := range defs {
				if defs[i].canon == from {
					defs[i].canon = to
				}
				for j, im := range defs[i].implies {
					if im == from {
						defs[i].implies[j] = to
					}
				}
			}
		case a >= 0 || b >= 0:
			known, missing := a, f[k+1]
			if a < 0 {
				known, missing = b, f[k]
			}
			d := defs[known]
			d.name, d.parseOnly = missing, true
			defs = append(defs, d)
		}
	}
	return defs
}
