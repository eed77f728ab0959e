# METADATA
# title: Permission modes
# description: |
#   The five modes of the AgentScope permission system, the names they go by
#   (AgentScope and Claude Code spellings), and what each mode does at the
#   decision points that differ between modes (contract §2).
package permopa.policy.modes

# METADATA
# description: |
#   Mode names accepted (lower-cased) and their canonical form. An unknown
#   name is an input error (so: DENY), never a silent default.
canonical := {
	"default": "DEFAULT",
	"accept_edits": "ACCEPT_EDITS",
	"acceptedits": "ACCEPT_EDITS",
	"explore": "EXPLORE",
	"plan": "EXPLORE",
	"bypass": "BYPASS",
	"bypasspermissions": "BYPASS",
	"bypass_permissions": "BYPASS",
	"dont_ask": "DONT_ASK",
	"dontask": "DONT_ASK",
}

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
