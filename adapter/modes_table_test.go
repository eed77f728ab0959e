package adapter_test

import (
	"slices"
	"testing"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/rego/tables"
)

// TestHostModesMapToPolicyModes holds the hosts' mode tables
// (adapter/hookproto/modes.go, which links no OPA and so cannot read the
// policy) to the policy's mode table (tables.Modes, read from
// rego/permopa/policy/call): every host mode maps to a mode the policy
// accepts, and every name the policy accepts that a host's table does not
// redefine means, as a --mode value, the policy's own mode.
func TestHostModesMapToPolicyModes(t *testing.T) {
	t.Parallel()
	for _, host := range hookproto.Hosts {
		known := hookproto.KnownModes(host)
		for _, name := range known {
			hm := hookproto.ResolveMode(host, name, "", false)
			if hm.Unknown || !tables.ValidMode(hm.Mode) {
				t.Errorf("%s mode %q maps to %q, which the policy does not accept", host, name, hm.Mode)
			}
		}
		for _, name := range tables.ModeSpellings() {
			if slices.Contains(known, name) {
				continue // the host's own meaning of the name wins
			}
			hm := hookproto.ResolveMode(host, "", name, false)
			want, _ := tables.CanonicalMode(name)
			got, ok := tables.CanonicalMode(hm.Mode)
			if hm.Unknown || !ok || got != want {
				t.Errorf("%s --mode %s: runs as %q (unknown %v); the policy's mode is %s", host, name, hm.Mode, hm.Unknown, want)
			}
		}
	}
}

// TestMatrixColumnsAreThePolicysModes: the matrix shows every canonical
// mode of the policy, once, in the policy's order.
func TestMatrixColumnsAreThePolicysModes(t *testing.T) {
	t.Parallel()
	if !slices.Equal(adapter.MatrixModes(), tables.Modes()) {
		t.Errorf("MatrixModes = %v; the policy's modes are %v", adapter.MatrixModes(), tables.Modes())
	}
	want := []string{"DEFAULT", "ACCEPT_EDITS", "EXPLORE", "BYPASS", "DONT_ASK"} // docs/decision.md's column order
	if !slices.Equal(adapter.MatrixModes(), want) {
		t.Errorf("MatrixModes = %v; docs/decision.md shows %v", adapter.MatrixModes(), want)
	}
}
