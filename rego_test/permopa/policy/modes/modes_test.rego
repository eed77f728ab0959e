# METADATA
# title: Mode table tests
# description: |
#   The mode tables are one table: every canonical mode named by
#   call.schema.modes has a fallback, and every per-mode set of
#   permopa.policy.modes names only canonical modes (docs/decision.md).
#   Go reads the same tables (engine.TestModeTableIsThePolicys).
package permopa.policy.modes_test

import data.permopa.policy.call
import data.permopa.policy.modes

_canonical := {m | some m in call.schema.modes}

test_every_canonical_mode_has_a_fallback if {
	object.keys(modes.fallback) == _canonical
}

test_mode_sets_name_canonical_modes if {
	every s in [modes.consults_tools, modes.auto_edits, modes.unattended] {
		s - _canonical == set()
	}
}

test_every_canonical_mode_is_its_own_spelling if {
	every m in _canonical {
		call.schema.modes[lower(m)] == m
	}
}

test_spellings_are_lower_case if {
	every name, _ in call.schema.modes {
		name == lower(name)
	}
}
