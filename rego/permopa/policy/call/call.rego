# METADATA
# title: The call
# description: |
#   Reads and validates the input of docs/api.md (a Claude Code PreToolUse
#   payload is valid as is) and derives what the other packages need: the
#   canonical mode, the cwd, the working directories and the options passed
#   to permopa's built-ins. The input's fields are validated and the
#   options derived by one built-in call (permopa.call.context); the mode is
#   resolved here, from the tables below and in permopa.policy.modes.
#   Every input problem is an entry in errors, naming the field; the decision
#   turns any error into DENY.
# schemas:
#   - input: schema.permopa.input
#   - data.permopa.settings: schema.permopa.settings
#   - data.permopa.rules: schema.permopa.rules
package permopa.policy.call

# METADATA
# description: |
#   The call's tables. modes: the mode names accepted
#   (lower-cased; AgentScope and Claude Code spellings) and their canonical
#   form; an unknown name is an input error (so: DENY), never a silent
#   default. This is permopa's one table of mode names: Go reads it from
#   here (tables.ValidMode, tables.Modes in rego/tables: the canonical modes in the order
#   first named below, the columns of `permopa matrix`), and
#   permopa.policy.modes keys what each mode does by its values (mode,
#   below, resolves the call's). required: the arguments each built-in
#   tool needs as non-empty strings; optional: strings when present
#   (permopa.call.context checks them). Kept free of references (a
#   ground constant) so that OPA does not copy it on every decision.
schema := {
	"modes": {
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
	},
	"required": {
		"Bash": ["command"],
		"Read": ["file_path"],
		"Write": ["file_path"],
		"Edit": ["file_path"],
		"MultiEdit": ["file_path"],
		"NotebookEdit": ["notebook_path"],
		"Glob": ["pattern"],
		"Grep": ["pattern"],
		"WebFetch": ["url"],
	},
	"optional": {
		"Glob": ["path"],
		"Grep": ["path"],
	},
}

# METADATA
# description: |
#   The call context, from one permopa.call.context call: errors (of the
#   input's fields), valid, tool, cwd, home, working_directories,
#   path_opts, write_opts, bash_opts, bypass_honours_safety (each also a
#   rule below). The policy's packages read it directly: a lookup in one
#   cached document costs OPA less than a rule per field. The settings
#   document is optional (plain `opa eval` has none). The mode is not in
#   it: mode, below.
context := c if {
	c := permopa.call.context(input, data.permopa.settings, schema)
} else := permopa.call.context(input, {}, schema)

# METADATA
# description: Input problems, each naming the field. Any entry makes the decision DENY with step error.
# scope: document
errors contains e if some e in context.errors

errors contains sprintf("permission_mode: unknown mode %q", [requested_mode]) if not mode

# METADATA
# description: |
#   The input is well formed and names a known mode. The decision asks for
#   this rule to hold rather than for errors to be empty, so that anything
#   undefined fails closed.
valid if {
	context.valid == true
	mode
}

# METADATA
# description: The tool's name.
tool := input.tool_name

# METADATA
# description: The tool's arguments.
tool_input := input.tool_input

# METADATA
# description: |
#   The mode the call runs in, as named (any spelling of schema.modes): the
#   input's permission_mode, else the permission_context's mode, else the
#   mode switched at runtime for the call's session
#   (settings.session_modes[session_id]), else the settings' default_mode,
#   else "default". A source counts when it is a non-empty string; one of
#   another type is an input error (permopa.call.context names it) and the
#   next source counts.
# scope: document
default requested_mode := "default"

requested_mode := m if {
	m := input.permission_mode
	is_string(m)
	m != ""
} else := m if {
	m := input.permission_context.mode
	is_string(m)
	m != ""
} else := m if {
	is_object(data.permopa.settings.session_modes)
	m := data.permopa.settings.session_modes[input.session_id]
	is_string(m)
	m != ""
} else := m if {
	m := data.permopa.settings.default_mode
	is_string(m)
	m != ""
}

# METADATA
# description: |
#   The canonical mode (a value of schema.modes, a key of
#   permopa.policy.modes' tables); undefined for a name the table does not
#   hold (an input error: DENY, never a silent default). Managed settings
#   may disable BYPASS (disable_bypass_mode): a BYPASS request then runs as
#   DEFAULT. The managed setting is looked at first: it is rarely set, and
#   the common call then needs a single lookup in the table.
mode := "DEFAULT" if {
	data.permopa.settings.disable_bypass_mode == true
	schema.modes[lower(requested_mode)] == "BYPASS"
} else := schema.modes[lower(requested_mode)]

# METADATA
# description: The call's working directory (the settings' cwd when the input has none).
cwd := context.cwd

# METADATA
# description: The user's home directory, for ~ in paths and rules.
home := context.home

# METADATA
# description: Every working directory, the cwd first, then the input's, the permission_context's and the settings'.
working_directories := context.working_directories

# METADATA
# description: Options for the path built-ins.
path_opts := context.path_opts

# METADATA
# description: |
#   Options for the path built-ins on paths a call writes: path_opts, plus
#   writes (look on disk: git repositories, directories holding protected
#   settings) and the settings files the engine reads (protected_paths).
write_opts := context.write_opts

# METADATA
# description: Options for the bash built-ins.
bash_opts := context.bash_opts

# METADATA
# description: Whether safety ASKs stay ASK in BYPASS (the Java docs' behaviour); default false.
bypass_honours_safety := context.bypass_honours_safety
