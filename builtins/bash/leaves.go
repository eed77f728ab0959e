package bash

// Per-leaf views of the rule matching, for explanations (docs/decision.md,
// "Explanations"): the same matching as MatchAny and CoveredLists, reported
// per leaf instead of once per command.

// LeavesHit returns the indexes of the leaves a deny or ask rule hits, as
// MatchAny matches it: through every wrapper and flag-aware. When the rule
// hits the command only because permopa cannot tell what it runs, the
// leaves that run something unknown are returned (none when no leaf shows
// it, such as a command that does not parse).
func (a *Analysis) LeavesHit(p *Pattern) []int {
	if a == nil || p == nil {
		return nil
	}
	var hits []int
	for i := range a.Leaves {
		if a.views(&a.Leaves[i], p.Match) || a.canonHit(i, p) {
			hits = append(hits, i)
		}
	}
	if len(hits) > 0 || a.uncertain() == "" {
		return hits
	}
	for i := range a.Leaves {
		if a.Leaves[i].RunsUnknown != "" {
			hits = append(hits, i)
		}
	}
	return hits
}

// LeafCover is what covers one leaf for allow rules: nothing needed (a
// read-only leaf), or the first rule (list, index) that covers it, -1 when
// none does.
type LeafCover struct {
	NeedsRule bool
	List      int
	Index     int
}

// LeafCoverage says, for each leaf, which allow rule of lists covers it, as
// CoveredListsIndexed decides (lists in order, then index; sets as there). A
// command no rule can cover (not analysable, truncated, not read-only for a
// reason of no leaf) has no leaf covered.
func (a *Analysis) LeafCoverage(lists [][]*Pattern, sets []*PatternSet) []LeafCover {
	if a == nil {
		return nil
	}
	whole := a.Analysable && !a.Truncated && !a.uncoverable
	firsts := firstMatchers(lists, sets)
	out := make([]LeafCover, len(a.Leaves))
	for i := range a.Leaves {
		lf := &a.Leaves[i]
		c := LeafCover{NeedsRule: lf.needsRule(), List: -1, Index: -1}
		if c.NeedsRule && whole {
			for j, first := range firsts {
				if idx := lf.coveredBy(first); idx >= 0 {
					c.List, c.Index = j, idx
					break
				}
			}
		}
		out[i] = c
	}
	return out
}
