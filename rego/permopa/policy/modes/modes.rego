# METADATA
# title: Permission modes
# description: |
#   The five modes of the AgentScope permission system and what each mode
#   does at the decision points that differ between modes (docs/decision.md). The
#   names each mode goes by (AgentScope and Claude Code spellings) are read
#   with the input: permopa.policy.call.schema.modes.
# schemas:
#   - input: schema.permopa.input
#   - data.permopa.settings: schema.permopa.settings
#   - data.permopa.rules: schema.permopa.rules
package permopa.policy.modes

# METADATA
# description: The behavior of decision point 6 (nothing else decided), per mode.
fallback := {
	"DEFAULT": "ASK",
	"ACCEPT_EDITS": "ASK",
	"EXPLORE": "DENY",
	"BYPASS": "ALLOW",
	"DONT_ASK": "DENY",
}

# METADATA
# description: |
#   Modes that consult tool checks (point 4) and allow rules (point 5).
#   EXPLORE skips both: only read-only calls run without a human.
consults_tools := {"DEFAULT", "ACCEPT_EDITS", "BYPASS", "DONT_ASK"}

# METADATA
# description: Modes where edits and filesystem commands inside working directories are allowed by the tool check.
auto_edits := {"ACCEPT_EDITS", "DONT_ASK"}

# METADATA
# description: |
#   Modes with nobody to ask: every ASK becomes DENY.
unattended := {"DONT_ASK"}
