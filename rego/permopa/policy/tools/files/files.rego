# METADATA
# title: File tools
# description: |
#   Read, Glob and Grep read; Write and Edit write. Reads are read-only unless
#   they touch a credential path (a safety ASK). Writes to dangerous paths are
#   safety ASKs; in ACCEPT_EDITS and DONT_ASK a write inside a working
#   directory is allowed by the tool check.
package permopa.policy.tools.files

import data.permopa.policy.call
import data.permopa.policy.modes

_path_field := {
	"Read": "file_path",
	"Write": "file_path",
	"Edit": "file_path",
	"Glob": "path",
	"Grep": "path",
}

_writers := {"Write", "Edit"}

# METADATA
# description: The call is one of the file tools.
handles if _path_field[call.tool]

# METADATA
# description: The path the tool reads or writes (Glob and Grep default to the cwd).
path := p if {
	p := call.tool_input[_path_field[call.tool]]
	is_string(p)
	p != ""
} else := call.cwd if handles

# METADATA
# description: |
#   Every path the call touches: the path, and for Glob also the directory
#   its pattern names before the first wildcard (a Glob of "/root/.ssh/*"
#   with no path lists ~/.ssh, not the cwd). Checks and rules see them all.
targets := [path, _glob_root] if {
	call.tool == "Glob"
	_glob_root
} else := [path]

# The pattern's segments before the first one with a wildcard; a pattern
# without wildcards names a file, so its directory is taken.
_glob_root := root if {
	segs := split(call.tool_input.pattern, "/")
	wild := {i | some i, seg in segs; regex.match(`[*?\[{]`, seg)}
	n := min(wild | {count(segs) - 1})
	n > 0
	prefix := concat("/", array.slice(segs, 0, n))
	root := _anchor(prefix)
}

_anchor(prefix) := prefix if startswith(prefix, "/")

_anchor(prefix) := prefix if startswith(prefix, "~")

_anchor(prefix) := concat("/", [path, prefix]) if {
	not startswith(prefix, "/")
	not startswith(prefix, "~")
}

_check := permopa.path.check(targets, call.path_opts)

# METADATA
# description: Reads of anything but a credential path are read-only.
read_only if {
	handles
	not call.tool in _writers
	count(_check.credential) == 0
}

# METADATA
# description: The tool check of decision point 4 for file tools.
# scope: document
default check := {"behavior": "PASSTHROUGH", "bypass_immune": false, "message": ""}

check := _safety(sprintf("%s of a credential path: %s (%s)", [call.tool, hit.path, hit.reason])) if {
	not call.tool in _writers
	some hit in _check.credential
} else := _safety(sprintf("%s to a dangerous path: %s (%s)", [call.tool, hit.path, hit.reason])) if {
	call.tool in _writers
	some hit in _check.dangerous
} else := {
	"behavior": "ALLOW",
	"bypass_immune": false,
	"message": sprintf("%s inside a working directory", [call.tool]),
} if {
	call.tool in _writers
	call.mode in modes.auto_edits
	permopa.path.inside([path], call.working_directories, call.path_opts)
}

_safety(msg) := {"behavior": "ASK", "bypass_immune": true, "message": msg}

# METADATA
# description: |
#   The suggested allow rule: the parent directory of the path, recursively.
suggestions := [{
	"tool_name": call.tool,
	"rule_content": concat("", [_parent, "/**"]),
	"behavior": "ALLOW",
	"source": "suggested",
}]

_abs := permopa.path.resolve(path, call.path_opts).abs

_parent := "" if regex.match(`^/[^/]*$`, _abs)

_parent := trim_suffix(_abs, concat("", ["/", _base])) if not regex.match(`^/[^/]*$`, _abs)

_base := parts[count(parts) - 1] if parts := split(_abs, "/")
