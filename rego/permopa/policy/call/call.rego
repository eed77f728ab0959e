# METADATA
# title: The call
# description: |
#   Reads and validates the input of contract §5 (a Claude Code PreToolUse
#   payload is valid as is) and derives what the other packages need: the
#   canonical mode, the cwd, the working directories and the options passed
#   to permopa's built-ins. The mechanics are one built-in call
#   (permopa.call.context); the tables it applies are policy and live here.
#   Every input problem is an entry in errors, naming the field; the decision
#   turns any error into DENY.
package permopa.policy.call

import data.permopa.policy.modes

default _settings := {}

_settings := data.permopa.settings

# METADATA
# description: |
#   The tables permopa.call.context applies: mode names, and the arguments
#   each built-in tool needs (required: non-empty strings; optional: strings
#   when present).
schema := {
	"modes": modes.canonical,
	"required": {
		"Bash": ["command"],
		"Read": ["file_path"],
		"Write": ["file_path"],
		"Edit": ["file_path"],
		"Glob": ["pattern"],
		"Grep": ["pattern"],
		"WebFetch": ["url"],
	},
	"optional": {
		"Glob": ["path"],
		"Grep": ["path"],
	},
}

_context := permopa.call.context(input, _call_settings, schema)

# A mode switched at runtime for the call's session (session_modes) stands in
# for the settings' default mode; a mode named in the input still wins.
_call_settings := object.union(_settings, {"default_mode": m}) if {
	m := _settings.session_modes[input.session_id]
	is_string(m)
	m != ""
} else := _settings

# METADATA
# description: Input problems, each naming the field. Any entry makes the decision DENY with step error.
errors := {e | some e in _context.errors}

# METADATA
# description: |
#   The input is well formed. The decision asks for this rule to hold rather
#   than for errors to be empty, so that anything undefined fails closed.
valid if _context.valid == true

# METADATA
# description: The tool's name.
tool := input.tool_name

# METADATA
# description: The tool's arguments.
tool_input := input.tool_input

# METADATA
# description: |
#   The canonical mode: the input's permission_mode, else the
#   permission_context's mode, else the settings' default mode, else
#   DEFAULT. Managed settings may disable BYPASS (disable_bypass_mode): a
#   BYPASS request then runs as DEFAULT.
mode := _context.mode

# METADATA
# description: The call's working directory (the settings' cwd when the input has none).
cwd := _context.cwd

# METADATA
# description: The user's home directory, for ~ in paths and rules.
home := _context.home

# METADATA
# description: Every working directory, the cwd first, then the input's, the permission_context's and the settings'.
working_directories := _context.working_directories

# METADATA
# description: Options for the path built-ins.
path_opts := _context.path_opts

# METADATA
# description: Options for the bash built-ins.
bash_opts := _context.bash_opts

# METADATA
# description: Whether safety ASKs stay ASK in BYPASS (the Java docs' behaviour); default false.
bypass_honours_safety := _context.bypass_honours_safety
