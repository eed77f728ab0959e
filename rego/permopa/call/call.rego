# METADATA
# title: The call
# description: |
#   Reads and validates the input of contract §5 (a Claude Code PreToolUse
#   payload is valid as is) and derives what the other packages need: the
#   canonical mode, the cwd, the working directories and the options passed
#   to permopa's built-ins. Every input problem is an entry in errors, naming
#   the field; the decision turns any error into DENY.
package permopa.call

import data.permopa.modes

default _settings := {}

_settings := data.permopa.settings

# METADATA
# description: The tool's name.
tool := input.tool_name

# METADATA
# description: The tool's arguments.
tool_input := input.tool_input

# METADATA
# description: |
#   The mode as given: the input's permission_mode, else the permission_context's mode, else the settings' default mode.
raw_mode := input.permission_mode if {
	is_string(input.permission_mode)
	input.permission_mode != ""
} else := input.permission_context.mode if {
	is_string(input.permission_context.mode)
	input.permission_context.mode != ""
} else := _settings.default_mode if {
	is_string(_settings.default_mode)
	_settings.default_mode != ""
} else := "default"

_named_mode := modes.canonical[lower(raw_mode)]

# METADATA
# description: |
#   The canonical mode. Managed settings may disable BYPASS
#   (disable_bypass_mode): a BYPASS request then runs as DEFAULT.
mode := "DEFAULT" if {
	_named_mode == "BYPASS"
	_settings.disable_bypass_mode == true
} else := _named_mode

# METADATA
# description: The call's working directory (the settings' cwd when the input has none).
cwd := input.cwd if {
	is_string(input.cwd)
	input.cwd != ""
} else := _settings.cwd if {
	is_string(_settings.cwd)
} else := "/"

# METADATA
# description: The user's home directory, for ~ in paths and rules.
home := object.get(_settings, "home", "")

_context_dirs := [d |
	some key, v in object.get(input, ["permission_context", "working_directories"], {})
	d := _context_dir(key, v)
]

# Note: `not f(x.y)` is undefined, not true, when x.y is undefined; hence object.get.
_context_dir(key, v) := object.get(v, "path", key) if is_string(object.get(v, "path", key))

_input_dirs := [d | some d in input.working_directories; is_string(d)]

_settings_dirs := [d | some d in object.get(_settings, "working_directories", []); is_string(d)]

# METADATA
# description: |
#   Every working directory: the cwd, the input's, the permission_context's and the settings'.
working_directories := array.concat(array.concat([cwd], _input_dirs), array.concat(_context_dirs, _settings_dirs))

# METADATA
# description: Options for the path built-ins.
path_opts := {
	"cwd": cwd,
	"home": home,
	"dangerous_paths": object.get(_settings, "dangerous_paths", {}),
}

# METADATA
# description: Options for the bash built-ins.
bash_opts := {
	"cwd": cwd,
	"home": home,
	"working_directories": working_directories,
}

# METADATA
# description: Whether safety ASKs stay ASK in BYPASS (the Java docs' behaviour); default false.
bypass_honours_safety := object.get(_settings, "bypass_honours_safety", false) == true

# METADATA
# description: Input problems, each naming the field. Any entry makes the decision DENY with step error.
errors := _problems

# METADATA
# description: |
#   The input is well formed. The decision asks for this rule to hold rather
#   than for errors to be empty, so that anything undefined here fails closed.
valid if count(errors) == 0

_problems contains "input: must be a JSON object" if not is_object(input)

_problems contains "tool_name: missing" if {
	is_object(input)
	not input.tool_name
}

_problems contains "tool_name: must be a non-empty string" if {
	input.tool_name
	not _non_empty_string(input.tool_name)
}

_problems contains "tool_input: missing" if {
	is_object(input)
	not "tool_input" in object.keys(input)
}

_problems contains "tool_input: must be an object" if {
	"tool_input" in object.keys(input)
	not is_object(input.tool_input)
}

_problems contains sprintf("permission_mode: unknown mode %q", [raw_mode]) if {
	is_string(raw_mode)
	not modes.canonical[lower(raw_mode)]
}

_problems contains "permission_mode: must be a string" if {
	"permission_mode" in object.keys(input)
	not is_string(input.permission_mode)
	not is_null(input.permission_mode)
}

_problems contains "cwd: must be a string" if {
	"cwd" in object.keys(input)
	not is_string(input.cwd)
	not is_null(input.cwd)
}

_problems contains "working_directories: must be an array of strings" if {
	"working_directories" in object.keys(input)
	not _string_array(input.working_directories)
}

_problems contains "permission_context: must be an object" if {
	"permission_context" in object.keys(input)
	not is_object(input.permission_context)
	not is_null(input.permission_context)
}

_problems contains "read_only: must be a boolean" if {
	"read_only" in object.keys(input)
	not is_boolean(input.read_only)
	not is_null(input.read_only)
}

_problems contains "tool_check: must be an object with a behavior of ALLOW, DENY, ASK or PASSTHROUGH" if {
	"tool_check" in object.keys(input)
	not is_null(input.tool_check)
	not _valid_tool_check(input.tool_check)
}

# Built-in tools need their path or command argument as a string.
_problems contains sprintf("tool_input.%s: %s needs a non-empty string", [field, tool]) if {
	some field in _required_field[tool]
	is_object(input.tool_input)
	not _non_empty_string(object.get(input.tool_input, field, null))
}

_problems contains sprintf("tool_input.%s: must be a string", [field]) if {
	some field in _optional_field[tool]
	is_object(input.tool_input)
	field in object.keys(input.tool_input)
	not is_string(input.tool_input[field])
	not is_null(input.tool_input[field])
}

_required_field := {
	"Bash": ["command"],
	"Read": ["file_path"],
	"Write": ["file_path"],
	"Edit": ["file_path"],
	"Glob": ["pattern"],
	"Grep": ["pattern"],
	"WebFetch": ["url"],
}

_optional_field := {
	"Glob": ["path"],
	"Grep": ["path"],
}

_non_empty_string(x) if {
	is_string(x)
	x != ""
}

_string_array(xs) if {
	is_array(xs)
	count([x | some x in xs; not is_string(x)]) == 0
}

_valid_tool_check(tc) if {
	is_object(tc)
	tc.behavior in {"ALLOW", "DENY", "ASK", "PASSTHROUGH"}
}
