# METADATA
# title: File tools
# description: |
#   Read, Glob and Grep read; Write, Edit and Claude Code's MultiEdit and
#   NotebookEdit write. Reads are read-only unless they touch a credential
#   path (a safety ASK). Writes to permission settings and to dangerous
#   paths are safety ASKs; in ACCEPT_EDITS and DONT_ASK a write inside a
#   working directory is allowed by the tool check.
# schemas:
#   - input: schema.permopa.input
#   - data.permopa.settings: schema.permopa.settings
#   - data.permopa.rules: schema.permopa.rules
package permopa.policy.tools.files

import data.permopa.policy.call
import data.permopa.policy.modes

# METADATA
# description: |
#   The file tools that read. These sets are the one list of file tools.
#   The routes (here, in tools and in rules) spell them out literally, since
#   a reference to a rule costs OPA an evaluation on every decision;
#   TestToolSetLiteralsAreTheOneDefinition (rego_test/tables_test.go)
#   holds every literal to these sets; Go reads them from here
#   (tables.FileReadTools, FileSearchTools, FileEditTools in rego/tables), held by
#   TestToolTablesAreThePolicys (engine/tables_test.go).
readers := {"Read", "Glob", "Grep"}

# METADATA
# description: |
#   The file tools that search: they read a tree, not a file (a recursive
#   read: every file under the path meets the Read rules and the credential
#   check, docs/shell.md). A subset of readers.
searchers := {"Glob", "Grep"}

# METADATA
# description: |
#   The file tools that write: every edit tool is an edit tool everywhere
#   (Claude Code's MultiEdit and NotebookEdit meet the checks and the
#   Edit and Write rules like Edit does).
writers := {"Write", "Edit", "MultiEdit", "NotebookEdit"}

# METADATA
# description: Every file tool.
tools := readers | writers

# METADATA
# description: The call is one of the file tools.
handles if input.tool_name in {"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep"}

# METADATA
# description: |
#   The path the tool reads or writes: file_path for Read, Write, Edit and
#   MultiEdit; notebook_path for NotebookEdit; path for Glob and Grep, which
#   default to the cwd.
path := p if {
	input.tool_name in {"Read", "Write", "Edit", "MultiEdit"}
	p := input.tool_input.file_path
	is_string(p)
	p != ""
} else := p if {
	input.tool_name == "NotebookEdit"
	p := input.tool_input.notebook_path
	is_string(p)
	p != ""
} else := p if {
	input.tool_name in {"Glob", "Grep"}
	p := input.tool_input.path
	is_string(p)
	p != ""
} else := call.context.cwd if handles

# METADATA
# description: |
#   Every path the call touches: the path, and for Glob also the directory
#   its pattern names before the first wildcard (a Glob of "/root/.ssh/*"
#   with no path lists ~/.ssh, not the cwd). Checks and rules see them all.
targets := [path, _glob_root] if {
	input.tool_name == "Glob"
	_glob_root
} else := [path]

# The pattern's segments before the first one with a wildcard; a pattern
# without wildcards names a file, so its directory is taken. A ".." in or
# after a segment with a wildcard ("*/../../.ssh/*", "{src,..}/x") leaves
# the directory the pattern starts in, to where is not known statically (a
# globber that resolves ".." lexically goes up from each match, one that
# asks the kernel goes to the parent of a matched link's target): such a
# pattern is read as starting at "/" (docs/reads.md, "Grep and Glob tools").
_glob_root := "/" if {
	segs := split(input.tool_input.pattern, "/")
	some i, seg in segs
	regex.match(`[*?\[{]`, seg)
	some j, up in segs
	j >= i
	contains(up, "..")
} else := root if {
	segs := split(input.tool_input.pattern, "/")
	wild := {i | some i, seg in segs; regex.match(`[*?\[{]`, seg)}
	n := min(wild | {count(segs) - 1})
	n > 0
	prefix := concat("/", array.slice(segs, 0, n))
	root := _anchor(prefix)
}

_anchor(prefix) := prefix if startswith(prefix, "/")

# "/**/x" starts at the file system's root.
_anchor("") := "/" if startswith(input.tool_input.pattern, "/")

_anchor(prefix) := prefix if startswith(prefix, "~")

_anchor(prefix) := concat("/", [path, prefix]) if {
	not startswith(prefix, "/")
	not startswith(prefix, "~")
	not _rooted_empty(prefix)
}

_rooted_empty(prefix) if {
	prefix == ""
	startswith(input.tool_input.pattern, "/")
}

# METADATA
# description: |
#   The trees the call reads recursively (see docs/reads.md, "Recursive
#   reads"): Grep reads the contents of every file below its path, hidden
#   ones included (a host's Grep may skip them, permopa does not count on
#   it), minus what .gitignore files exclude (as ripgrep-based Grep tools
#   do) unless a glob selects files, and then only those files; Glob lists
#   the names below the directory its pattern starts in, hidden ones
#   included. Read, Write and Edit read no tree.
# scope: document
default trees := []

trees := [{
	"path": path, "hidden": true, "names_only": false, "ignores": _grep_ignores,
	"include": _grep_include, "include_first": _grep_glob,
}] if {
	input.tool_name == "Grep"
} else := [{"path": _glob_tree_root, "hidden": true, "names_only": true}] if {
	input.tool_name == "Glob"
}

default _glob_tree_root := ""

_glob_tree_root := _glob_root if {
	_glob_root
} else := path

# A Grep glob that selects files (not "!x") overrides ripgrep's hidden and
# ignore filters.
default _grep_glob := false

_grep_glob if {
	g := input.tool_input.glob
	is_string(g)
	g != ""
	not startswith(g, "!")
}

default _grep_ignores := true

_grep_ignores := false if _grep_glob

# The files such a glob selects, by base name ("*" for a glob of a path).
default _grep_include := []

_grep_include := [input.tool_input.glob] if {
	_grep_glob
	not contains(input.tool_input.glob, "/")
} else := ["*"] if {
	_grep_glob
}

# METADATA
# description: |
#   What deny and ask rules match: the targets and the trees.
rule_paths := array.concat(targets, trees)

# The writers check with the write options (protected settings, git
# repositories on disk).
_check := permopa.path.check(rule_paths, call.context.path_opts) if {
	input.tool_name in {"Glob", "Grep"}
} else := permopa.path.check([path], call.context.write_opts) if {
	input.tool_name in {"Write", "Edit", "MultiEdit", "NotebookEdit"}
} else := permopa.path.check([path], call.context.path_opts)

# METADATA
# scope: document
# description: |
#   The trees the call reads that are too large to check ({path, reason}):
#   a deny or ask rule could match beyond the walk (docs/decision.md, point 1).
default unknown_trees := []

unknown_trees := _check.unknown if input.tool_name in {"Glob", "Grep"}

# METADATA
# description: |
#   Reads of anything but a credential path (or a tree holding one, or too
#   large to check) are read-only.
read_only if {
	input.tool_name in {"Read", "Glob", "Grep"}
	count(_check.credential) == 0
	count(_check.unknown) == 0
}

# METADATA
# description: The tool check of decision point 4 for file tools.
# scope: document
default check := {"behavior": "PASSTHROUGH", "bypass_immune": false, "message": ""}

# Each outcome is written out, with its stable id (docs/api.md, "Check
# ids"): a helper function would cost OPA more than the object on every
# call that reaches it. Writing permission settings is
# the one safety ASK that BYPASS does not skip (self_protection).
check := {
	"id": "self_protection",
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf(
		"%s to permission settings, which the agent may not change on its own: %s",
		[input.tool_name, _hits(_check.protected)],
	),
} if {
	input.tool_name in {"Write", "Edit", "MultiEdit", "NotebookEdit"}
	count(_check.protected) > 0
} else := {
	"id": "credential_read",
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf("%s of a credential path: %s", [input.tool_name, _hits(_check.credential)]),
} if {
	input.tool_name in {"Read", "Glob", "Grep"}
	count(_check.credential) > 0
} else := {
	"id": "dangerous_write",
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf("%s to a dangerous path: %s", [input.tool_name, _hits(_check.dangerous)]),
} if {
	input.tool_name in {"Write", "Edit", "MultiEdit", "NotebookEdit"}
	count(_check.dangerous) > 0
} else := {
	"id": "edits_inside",
	"behavior": "ALLOW",
	"bypass_immune": false,
	"message": sprintf("%s inside a working directory", [input.tool_name]),
} if {
	input.tool_name in {"Write", "Edit", "MultiEdit", "NotebookEdit"}
	call.mode in modes.auto_edits
	permopa.path.inside([path], call.context.working_directories, call.context.path_opts)
}

# Every hit in one message, sorted: the check yields one value however many
# paths the call touches.
_hits(hits) := concat("; ", sort({sprintf("%s (%s)", [h.path, h.reason]) | some h in hits}))

# METADATA
# description: |
#   The suggested allow rule: the directory the tool works in, recursively:
#   the file's parent directory for Read, Write and Edit, the searched
#   directory itself for Glob and Grep (their path, or the directory a Glob
#   pattern names). MultiEdit and NotebookEdit calls are covered by Edit
#   rules, so an Edit rule is suggested for them.
suggestions := [{
	"tool_name": object.get({"MultiEdit": "Edit", "NotebookEdit": "Edit"}, input.tool_name, input.tool_name),
	"rule_content": concat("", [_dir, "/**"]),
	"behavior": "ALLOW",
	"source": "suggested",
}]

# The directory of the resolved path ("" for an entry of /); for Glob and
# Grep the searched directory ("" for /).
_dir := trim_suffix(permopa.path.resolve(_searched, call.context.path_opts).abs, "/") if {
	input.tool_name in {"Glob", "Grep"}
} else := concat("/", array.slice(parts, 0, count(parts) - 1)) if {
	parts := split(permopa.path.resolve(path, call.context.path_opts).abs, "/")
}

_searched := _glob_root if {
	input.tool_name == "Glob"
	_glob_root
} else := path
