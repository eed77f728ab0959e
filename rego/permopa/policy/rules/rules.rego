# METADATA
# title: Permission rules
# description: |
#   Finds the first deny, ask or allow rule that matches the call (docs/decision.md).
#   Rules come from an organisation's rules data bundle (data.permopa.rules,
#   a document made by `permopa rules export`), from the settings layers
#   (data.permopa.settings.index, keyed by behavior and tool, merged by the
#   engine in layer order), from the input's
#   AgentScope permission_context (keyed by tool) and from tool-name patterns
#   such as mcp__github__*. Lookups are keyed by tool name: no rule of another
#   tool is ever visited, and matching of rule contents against commands and
#   paths is one built-in call per rule list.
# schemas:
#   - input: schema.permopa.input
#   - data.permopa.settings: schema.permopa.settings
#   - data.permopa.rules: schema.permopa.rules
package permopa.policy.rules

import data.permopa.policy.call
import data.permopa.policy.tools.bash
import data.permopa.policy.tools.files
import data.permopa.policy.tools.other

default _settings := {}

_settings := data.permopa.settings

# An organisation's rules, shipped as an OPA data bundle with root
# permopa/rules: the same shape as the settings document (see
# `permopa rules export`), indexed when the bundle was built.
default _org := {}

_org := data.permopa.rules

_context_key := {"deny": "deny_rules", "ask": "ask_rules", "allow": "allow_rules"}

# METADATA
# description: The three rule behaviors, in the order the decision consults them.
behaviors := ["deny", "ask", "allow"]

# Managed settings may allow only managed rules: the input's allow rules are then ignored.
_context_rules(b, name) := [] if {
	b == "allow"
	_settings.allow_managed_rules_only == true
} else := object.get(input, ["permission_context", _context_key[b], name], [])

_in_context(r) := object.union({"layer": "permission_context", "source": "permission_context"}, r) if is_object(r)

# A rule without content covers every call of its tool. A deny or ask rule
# whose content is not a string cannot be understood and is treated as
# covering every call (fail closed); such an allow rule covers nothing.
_tool_wide(r, _) if object.get(r, "rule_content", null) in {null, ""}

_tool_wide(r, b) if {
	b != "allow"
	not is_string(object.get(r, "rule_content", null))
}

_with_content(rs) := [r | some r in rs; is_string(r.rule_content); r.rule_content != ""]

# Claude Code's MultiEdit and NotebookEdit meet Edit's rules as their own
# (Claude Code applies Edit rules to every tool that edits files), besides
# the rules written for them by name: ["Edit", "own"] in _cross_targets for
# the indexed lists, _alias for the small ones.
_alias := {"MultiEdit": "Edit", "NotebookEdit": "Edit"}

_own_names := [_alias[input.tool_name], input.tool_name] if _alias[input.tool_name]

_own_names := [input.tool_name] if not _alias[input.tool_name]

# The rule lists the call meets, in order: the organisation's bundle, the
# settings layers', the call's project's (settings.projects keyed by the
# input's project_dir, set by a hook when the call's cwd is not the
# directory whose settings apply, else its cwd, exactly as written) and the
# session's (settings.session_rules keyed by session_id), indexed per data
# revision (index[b][tool]: wide, rules, contents) and looked up by one
# built-in;
# then the input's permission_context and the tool-name pattern rules that
# match the call's tool or a guarding tool (found by the same built-in in a
# glob set compiled per data revision), small lists indexed here, only when
# there are any. No list is rebuilt per call
# and no rule of another tool is visited. The tool name is read from the
# input directly (input.tool_name is the same value): one rule lookup fewer.
_lists := permopa.rules.lists(_org, _settings, input, object.get(_cross_targets, input.tool_name, []))

# Per behavior, the lists for the call's own tool that hold any rule, and
# [what, list] for the guarding tools' lists with contents.
_own := _lists.own if _no_small_lists

_own := {b: array.concat(_lists.own[b], [ix | some name in _own_names; ix := _small_index(b, name); _holds(ix)]) |
	some b in behaviors
} if {
	not _no_small_lists
}

_cross_lists := _lists.cross if _no_small_lists

_cross_lists := {b: array.concat(_lists.cross[b], [[what, ix] |
	some [name, what] in object.get(_cross_targets, input.tool_name, [])
	what != "own"
	ix := _small_index(b, name)
	count(ix.contents) > 0
]) |
	some b in ["deny", "ask"]
} if {
	not _no_small_lists
}

_no_small_lists if {
	not _lists.patterns
	not input.permission_context
}

_holds(ix) if count(ix.wide) > 0

_holds(ix) if count(ix.contents) > 0

# The permission_context's rules are AgentScope objects: their path rules
# match as AgentScope matches them (fnmatch, "*" crossing "/", on the path
# as written; permopa.glob.match_any's "fnmatch:" patterns, docs/rules.md).
# Tool-name pattern rules come from settings, where the engine has read a
# path rule's content into the patterns it stands for (path_contents);
# permopa.rules.lists has picked those whose tool name matches (glob.match
# with its default delimiter ".") from the lists' compiled tool names.
_small_index(b, name) := {
	"wide": [r | some r in array.concat(ctx, pats); _tool_wide(r, b)],
	"rules": [p[0] | some p in pairs],
	"contents": [p[1] | some p in pairs],
} if {
	ctx := [_in_context(r) | some r in _context_rules(b, name)]
	pats := object.get(_lists.pattern_rules, [name, b], [])
	pairs := array.concat(
		[[r, c] | some r in _with_content(ctx); some c in _context_contents(r, name)],
		[[r, c] | some r in _with_content(pats); some c in _pattern_contents(r, name)],
	)
}

_context_contents(r, name) := [concat("", ["fnmatch:", r.rule_content])] if {
	name in {"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep"}
} else := [r.rule_content]

_pattern_contents(r, name) := r.path_contents if {
	name in {"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep"}
	is_array(r.path_contents)
} else := [r.rule_content]

# METADATA
# description: |
#   match[b]: the first rule of behavior b ("deny", "ask", "allow") that
#   matches the call, with its tool_name, rule_content, behavior, source and
#   layer; a behavior is missing when none matches. A rule that matches for
#   certain comes before one that only could (uncertain[b]). One object
#   computed once per call (a partial rule would evaluate again on every
#   reference that misses). Undefined when the rule documents cannot be read
#   (a malformed rules document where built-in errors do not stop the query,
#   as in OPA's data API): the decision then denies instead of deciding
#   without the rules.
match := object.union(deny_ask_match, {"allow": allow_match}) if allow_match

else := deny_ask_match

# METADATA
# description: |
#   match without its allow rule, for decision points 1 and 2: a call
#   decided before point 5 (read-only, a tool check) never looks for its
#   allow rule (docs/decision.md). Undefined exactly when match is.
deny_ask_match := {} if {
	# The common case: no rule list at all (_no_lists, written out).
	_lists.none
	_no_small_lists
} else := {b: f[0] | # regal ignore:prefer-set-or-object-rule
	some b, f in _found
} if {
	is_object(_found)
}

# Per deny and ask behavior, [rule, how]: the first rule matches "certain",
# or only could: "tree" (a tree read is too large to walk to its end) or
# "code" (the Bash command runs what permopa cannot read).
_found := {b: f |
	some b in ["deny", "ask"]
	_candidates(b)
	f := _first(b)
} if {
	is_object(_own)
	is_object(_cross_lists)
}

# METADATA
# description: match.allow, looked up only by decision point 5 and later.
allow_match := f[0] if {
	not _no_lists
	_candidates("allow")
	f := _first("allow")
}

# The call meets no rule list at all.
_no_lists if {
	_lists.none
	_no_small_lists
}

# Most calls meet no rule list for most behaviors and stop here.
_candidates(b) if count(_own[b]) > 0

_candidates(b) if count(_cross_lists[b]) > 0

_first(b) := [wide[0], "certain"] if {
	wide := [r | some ix in _own[b]; some r in ix.wide]
	count(wide) > 0
} else := _pick(hits) if {
	# The call's own lists, then the guarding tools' (Read rules guard
	# Grep, Glob and what a Bash command reads): a rule that matches for
	# certain first; else one that matches only because a tree the call
	# reads is too large to walk to its end, so that what lies beyond the
	# walk (a link's target, for a program that follows links) could match
	# (docs/decision.md, point 1).
	b != "allow"
	hits := array.concat(_own_hits(b), _cross_hits(b))
	count(hits) > 0
} else := [hits[0], "certain"] if {
	# An allow list that covers the call on its own (the usual case: one
	# layer's rules) is enough.
	b == "allow"
	hits := [rule |
		some ix in _own[b]
		count(ix.contents) > 0
		i := _own_index(b, ix.contents)
		i >= 0
		rule := ix.rules[i]
	]
	count(hits) > 0
} else := [rule, "certain"] if {
	# Allow rules cover a Bash call together (each leaf by any rule), so
	# lists from several sources are also matched as one, without joining
	# them per call.
	b == "allow"
	input.tool_name == "Bash"
	lists := [ix | some ix in _own[b]; count(ix.contents) > 0]
	count(lists) > 1
	cov := permopa.bash.covered_lists([l.contents | some l in lists], bash.command, call.bash_opts)
	cov.covered
	cov.index >= 0
	rule := lists[cov.list].rules[cov.index]
} else := [rule, "code"] if {
	# No rule matches what the command shows, but it runs what permopa
	# cannot read (inline code, a package's program, a script from stdin):
	# any deny or ask rule could match. The first rule with content, in
	# list order (organisation, settings layers, project, session), stands
	# for them; uncertain[b] says so (docs/decision.md, point 1).
	b != "allow"
	input.tool_name == "Bash"
	_uncertain_because != ""
	rules := [ix.rules[0] | some ix in _own[b]; count(ix.contents) > 0]
	count(rules) > 0
	rule := rules[0]
}

# [rule, how] for the first of hits ([rule, certain]) that is certain, else
# the first.
_pick(hits) := [sure[0], "certain"] if {
	sure := [h[0] | some h in hits; h[1]]
	count(sure) > 0
} else := [hits[0][0], "tree"]

# Why the Bash command runs what permopa cannot read; "" when it does not.
default _uncertain_because := ""

_uncertain_because := permopa.bash.uncertain(bash.command, call.bash_opts) if input.tool_name == "Bash"

# Why a tree read cannot be walked to its end (the credential check's walk).
default _tree_because := "reads a tree too large to check"

_tree_because := concat("; ", sort({sprintf("reads a tree too large to check: %s (%s)", [
	h.path,
	trim_prefix(h.reason, "recursive read that cannot be checked for credential files: "),
]) |
	some h in _unknown_trees
})) if {
	count(_unknown_trees) > 0
}

_unknown_trees := bash.unknown_trees if input.tool_name == "Bash"

else := files.unknown_trees

# METADATA
# scope: document
# description: |
#   uncertain[b]: for the deny or ask rule of match[b], when it matches only
#   because permopa cannot see all the call does: why. Either a Bash command
#   runs what permopa cannot read (`npx runs a package's program`), or the
#   call reads a tree too large to walk to its end (`reads a tree too large
#   to check: /w (more than 20000 entries)`), and no rule matches what it
#   shows. Missing for a certain match. The decision denies on a certain
#   deny match and asks on an uncertain one where someone can answer
#   (docs/decision.md, point 1); uncertain_check[b] names the check.
uncertain[b] := _uncertain_because if {
	some b, f in _found
	f[1] == "code"
}

uncertain[b] := _tree_because if {
	some b, f in _found
	f[1] == "tree"
}

# METADATA
# scope: document
# description: |
#   uncertain_check[b]: the check id of uncertain[b] (docs/api.md, "Check
#   ids"): unseen_code for code permopa cannot read, unseen_tree for a tree
#   too large to check.
uncertain_check[b] := "unseen_code" if {
	some b, f in _found
	f[1] == "code"
}

uncertain_check[b] := "unseen_tree" if {
	some b, f in _found
	f[1] == "tree"
}

# METADATA
# description: |
#   uncertain_others[b]: how many more rules of behavior b (with content)
#   could match the command of uncertain[b] (code permopa cannot read),
#   besides match[b].
uncertain_others[b] := n - 1 if {
	some b, f in _found
	f[1] == "code"
	n := sum([count(ix.contents) | some ix in _own[b]])
}

# METADATA
# description: |
#   why[b]: for the Bash deny or ask rule of match[b], why it matches the
#   command when not by its words (docs/usage.md "Rules"): a leaf carries its
#   options in another spelling, or permopa cannot tell what the command
#   runs (every deny and ask rule hits then). Missing for a literal match.
why[b] := w if {
	input.tool_name == "Bash"
	some b in ["deny", "ask"]
	r := deny_ask_match[b]
	not r.tool_name in {"Read", "Edit", "Write"}
	is_string(r.rule_content)
	r.rule_content != ""
	w := permopa.bash.match_reason(r.rule_content, bash.command, call.bash_opts)
	w != ""
}

# For a deny or ask behavior, [rule, certain] for each of the call's own rule
# lists that a rule of hits, in list order: one built-in call per list (a
# second one for a list hit by a tree the call reads).
_own_hits(b) := [[ix.rules[h[0]], h[1]] |
	some ix in _own[b]
	count(ix.contents) > 0
	i := _own_index(b, ix.contents)
	i >= 0
	h := _own_sure(b, ix.contents, i)
] if {
	b != "allow"
}

_own_sure(b, contents, i) := _sure(i, contents, files.rule_paths, b) if files.handles

else := [i, true]

# [index, certain] for the first pattern of contents that hits paths (deny
# and ask rules), index i. A hit only because a tree's walk cannot finish
# is not certain; a later pattern that hits for certain (a path named, an
# entry the walk found) is then taken instead.
_sure(i, contents, paths, b) := [c, true] if {
	c := permopa.glob.match_any(contents, paths, object.union(_glob_opts(b), {"certain": true}))
	c >= 0
} else := [i, false]

# Own-tool content matching, one built-in call per rule list.
_own_index(b, contents) := permopa.bash.match_certain(contents, bash.command, call.bash_opts) if {
	input.tool_name == "Bash"
	b != "allow"
} else := cov.index if {
	input.tool_name == "Bash"
	cov := permopa.bash.covered(contents, bash.command, call.bash_opts)
	cov.covered
} else := permopa.glob.match_any(contents, files.targets, _glob_opts(b)) if {
	files.handles
	b == "allow"
} else := permopa.glob.match_any(contents, files.rule_paths, _glob_opts(b)) if {
	files.handles
} else := other.match_index(contents, b) if {
	input.tool_name != "Bash"
	not input.tool_name in {"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep"}
} else := -1

_glob_opts("allow") := object.union(call.path_opts, {"mode": "all"})

_glob_opts(b) := object.union(call.path_opts, {"mode": "any"}) if b != "allow"

# Path rules cut across tools (deny and ask only): Read(...) rules also
# guard Glob, Grep and every path a Bash command reads; Edit(...) and
# Write(...) rules guard each other, MultiEdit and NotebookEdit (which meet
# Edit's rules as their own) and every path a Bash command writes.

_cross_targets := {
	"Bash": [["Read", "reads"], ["Edit", "writes"], ["Write", "writes"]],
	"Glob": [["Read", "path"]],
	"Grep": [["Read", "path"]],
	"Write": [["Edit", "path"]],
	"Edit": [["Write", "path"]],
	"MultiEdit": [["Edit", "own"], ["Write", "path"]],
	"NotebookEdit": [["Edit", "own"], ["Write", "path"]],
}

# For a deny or ask behavior, [rule, certain] for each guarding tool's list
# that a rule of hits, in list order.
_cross_hits(b) := [[ix.rules[h[0]], h[1]] |
	some [what, ix] in _cross_lists[b]
	paths := _cross_paths(what)
	count(paths) > 0
	i := permopa.glob.match_any(ix.contents, paths, _glob_opts(b))
	i >= 0
	h := _sure(i, ix.contents, paths, b)
] if {
	b != "allow"
}

# Operands of programs the vocabulary cannot place (touches) may be read or
# written: deny and ask rules see them on both sides. Trees read
# recursively are read below their roots (Read(~/.ssh/**) stops grep -r x ~).
_cross_paths("reads") := array.flatten([bash.analysis.reads, bash.analysis.touches, bash.analysis.recursive_reads])

_cross_paths("writes") := array.concat(bash.analysis.writes, bash.analysis.touches)

_cross_paths("path") := files.rule_paths

# METADATA
# description: |
#   leaves_hit[b]: for a Bash call, the leaves (0-based) that the deny or
#   ask rule of match[b] hits, for explanations (docs/decision.md,
#   "Explanations"): a Bash rule by permopa.bash.leaves_hit, the matching
#   of permopa.bash.match_any; a Read, Edit or Write rule on the paths a
#   leaf reads or writes, with the contents and options the decision
#   matched them with. Not evaluated by the decision.
# scope: document
leaves_hit[b] := permopa.bash.leaves_hit(_content(r), bash.command, call.bash_opts) if {
	input.tool_name == "Bash"
	some b in ["deny", "ask"]
	r := deny_ask_match[b]
	not r.tool_name in {"Read", "Edit", "Write"}
}

leaves_hit[b] := [i |
	some i, leaf in bash.analysis.leaves
	paths := _leaf_paths(what, leaf)
	count(paths) > 0
	permopa.glob.match_any(contents, paths, _glob_opts(b)) >= 0
] if {
	input.tool_name == "Bash"
	some b in ["deny", "ask"]
	r := deny_ask_match[b]
	r.tool_name in {"Read", "Edit", "Write"}
	some [what, ix] in _cross_lists[b]
	contents := [ix.contents[i] | some i, x in ix.rules; x == r]
	count(contents) > 0
}

# A rule whose content is not a string covers every call (_tool_wide).
_content(r) := r.rule_content if is_string(r.rule_content)

else := ""

_leaf_paths("reads", leaf) := array.flatten([leaf.reads, leaf.touches, leaf.recursive_reads])

_leaf_paths("writes", leaf) := array.concat(leaf.writes, leaf.touches)

# METADATA
# description: |
#   coverage: for a Bash call, per leaf, what covers it for the allow-rule
#   point, for explanations: {"leaf", "needs_rule", "rule"}, rule null when
#   the leaf is read-only or no allow rule covers it. The decision's allow
#   rule lists (a tool-wide rule first, then every list with contents taken
#   together, by permopa.bash.leaf_coverage, the matching of
#   permopa.bash.covered_lists). Not evaluated by the decision.
coverage := [{"leaf": i, "needs_rule": c.needs_rule, "rule": _covering(c, wide, lists)} |
	some i, c in permopa.bash.leaf_coverage([l.contents | some l in lists], bash.command, call.bash_opts)
] if {
	input.tool_name == "Bash"
	wide := [r | some ix in _own.allow; some r in ix.wide]
	lists := [ix | some ix in _own.allow; count(ix.contents) > 0]
}

_covering(c, wide, lists) := null if not c.needs_rule

else := wide[0] if count(wide) > 0

else := lists[c.list].rules[c.index] if c.list >= 0

else := null
