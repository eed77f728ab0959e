# The explanation of the decision for one call (docs/decision.md,
# "Explanations"): what each of the six decision points saw, from the same
# rules the decision reads. Evaluated only by `permopa explain` and other
# tools, never on the decision path.
package permopa.policy

import data.permopa.policy.call
import data.permopa.policy.modes
import data.permopa.policy.rules
import data.permopa.policy.tools
import data.permopa.policy.tools.bash

# METADATA
# title: explanation
# description: |
#   {decision, mode, input_errors, tool_check, bash_analysis,
#   network_read_asked, points}: the decision (the same document as
#   decision) and, per decision point 1 to 6 (a point 0 first when the call
#   is decided as an error), its step, status ("decided", "passed",
#   "skipped": the mode does not consult it, "not reached"), a detail for
#   people, the rule it matched, the Bash leaves that rule hits and, at
#   point 5 of a Bash call, what covers each leaf.
# entrypoint: true
explanation := {
	"decision": decision,
	"mode": _ex_mode,
	"input_errors": sort(call.errors),
	"tool_check": _ex_check,
	"bash_analysis": _ex_analysis,
	"network_read_asked": _ex_network_asked,
	"points": array.concat(_ex_error_point, [_ex_point(n) | some n in numbers.range(1, 6)]),
}

_ex_steps := ["deny_rule", "ask_rule", "read_only", "tool_check", "allow_rule", "mode_fallback"]

_ex_titles := {
	"deny_rule": "deny rule",
	"deny_rule_uncertain": "deny rule that could match",
	"ask_rule": "ask rule",
	"read_only": "read-only",
	"tool_check": "tool check",
	"allow_rule": "allow rule",
	"mode_fallback": "mode fallback",
}

# The point that decided: the decision's own step, 0 for an error. A deny
# rule that could match (deny_rule_uncertain) decides at point 1.
default _ex_at := 0

_ex_at := n + 1 if {
	some n, s in _ex_steps
	s == decision.step
}

_ex_at := 1 if decision.step == "deny_rule_uncertain"

# The step of point n: its own, or the decision's at point 1 when a deny
# rule could match.
_ex_step(1) := "deny_rule_uncertain" if decision.step == "deny_rule_uncertain"

else := _ex_steps[0]

_ex_step(n) := _ex_steps[n - 1] if n > 1

default _ex_mode := null

_ex_mode := call.mode

default _ex_check := null

_ex_check := tools.check

default _ex_analysis := null

_ex_analysis := bash.analysis if call.tool == "Bash"

default _ex_network_asked := false

_ex_network_asked if {
	call.tool == "Bash"
	bash.network_read_asked
}

_ex_consults if call.mode in modes.consults_tools

# The rules the decision matched, per behavior (none when the rules could
# not be read or the input is not valid).
default _ex_match := {}

_ex_match := rules.match if call.valid

_ex_rule("deny_rule") := object.get(_ex_match, "deny", null)

_ex_rule("deny_rule_uncertain") := object.get(_ex_match, "deny", null)

_ex_rule("ask_rule") := object.get(_ex_match, "ask", null)

_ex_rule("allow_rule") := object.get(_ex_match, "allow", null)

_ex_rule(s) := null if not s in {"deny_rule", "deny_rule_uncertain", "ask_rule", "allow_rule"}

default _ex_error_point := []

_ex_error_point := [{
	"point": 0,
	"step": "error",
	"status": "decided",
	"detail": sprintf("%s: %s", [decision.behavior, decision.message]),
	"rule": null,
	"leaves": [],
	"coverage": [],
}] if {
	decision.step == "error"
}

_ex_point(n) := {
	"point": n,
	"step": step,
	"status": status,
	"detail": _ex_detail(step, status),
	"rule": _ex_rule(step),
	"leaves": _ex_leaves(step),
	"coverage": _ex_coverage(step, status),
} if {
	step := _ex_step(n)
	status := _ex_status(n, step)
}

_ex_status(n, step) := "not reached" if {
	decision.step == "error"
} else := "decided" if {
	n == _ex_at
} else := "not reached" if {
	n > _ex_at
} else := "skipped" if {
	step in {"tool_check", "allow_rule"}
	not _ex_consults
} else := "passed"

_ex_detail(step, status) := "the input or the evaluation failed first" if {
	decision.step == "error"
} else := concat("", [decision.behavior, ": ", decision.message, _ex_network_note]) if {
	status == "decided"
	step == "read_only"
} else := sprintf("%s: %s", [decision.behavior, decision.message]) if {
	status == "decided"
} else := _ex_not_reached(step) if {
	status == "not reached"
} else := _ex_passed(step)

_ex_not_reached(step) := sprintf("%s %s would also match: %s", [
	_ex_article(_ex_titles[step]),
	_ex_titles[step],
	_ex_rule_text(_ex_rule(step)),
]) if {
	step in {"deny_rule", "ask_rule"}
	_ex_rule(step) != null
} else := "the call is read-only" if {
	step == "read_only"
	tools.read_only
} else := "the call is not read-only" if {
	step == "read_only"
} else := sprintf("the mode %s does not consult tool checks", [call.mode]) if {
	step == "tool_check"
	not _ex_consults
} else := concat("", [_ex_check_says, _ex_check_text]) if {
	step == "tool_check"
} else := concat("", ["an allow rule would also match: ", _ex_rule_text(_ex_rule(step))]) if {
	step == "allow_rule"
	_ex_rule(step) != null
} else := ""

# "an ask rule", "a deny rule".
_ex_article(title) := "an" if {
	substring(title, 0, 1) in {"a", "e", "i", "o", "u"}
} else := "a"

_ex_passed("deny_rule") := "no deny rule matches"

_ex_passed("ask_rule") := "no ask rule matches"

_ex_passed("read_only") := concat("", ["not read-only: ", _ex_not_read_only])

_ex_passed("tool_check") := sprintf("the mode %s does not consult tool checks", [call.mode]) if {
	not _ex_consults
} else := concat("", [_ex_check_says, _ex_check_text, "; BYPASS ignores it (bypass_honours_safety is off)"]) if {
	call.mode == "BYPASS"
	tools.check.bypass_immune == true
} else := concat("", [_ex_check_says, _ex_check_text]) if {
	tools.check.behavior == "ASK"
} else := concat("", [_ex_check_says, _ex_check_text, "; not decisive here"])

_ex_passed("allow_rule") := sprintf("the mode %s does not consult allow rules (%s would match)", [
	call.mode,
	_ex_rule_text(_ex_rule("allow_rule")),
]) if {
	not _ex_consults
	_ex_rule("allow_rule") != null
} else := sprintf("the mode %s does not consult allow rules", [call.mode]) if {
	not _ex_consults
} else := "no set of allow rules covers every leaf that is not read-only" if {
	call.tool == "Bash"
} else := "no allow rule matches"

_ex_passed("mode_fallback") := ""

_ex_not_read_only := concat("; ", bash.not_read_only_because) if {
	call.tool == "Bash"
	count(bash.not_read_only_because) > 0
} else := "see the analysis" if {
	call.tool == "Bash"
} else := tools.check.message if {
	tools.check.bypass_immune == true
} else := sprintf("%s is not a read-only tool (or the host did not say read_only)", [call.tool])

# For a read-only Bash command: the leaves that read from a service
# configured outside the command, and the caches they may write.
_ex_network_note := concat("", [_ex_network_reads, _ex_cache_writes])

default _ex_network_reads := ""

_ex_network_reads := sprintf(
	"; a network read (%s talks to a service configured outside the command; network_reads: allow)",
	[concat(", ", bash.network_leaves)],
) if {
	call.tool == "Bash"
	count(bash.network_leaves) > 0
}

default _ex_cache_writes := ""

_ex_cache_writes := concat("", ["; may write only its own cache and logs: ", concat(" ", bash.analysis.cache_writes)]) if {
	call.tool == "Bash"
	count(bash.analysis.cache_writes) > 0
}

_ex_check_text := concat("", [tools.check.behavior, _ex_check_kind, _ex_check_message])

# "the tool check credential_read says ": the check's id (docs/api.md,
# "Check ids") when it has one.
default _ex_check_says := "the tool check says "

_ex_check_says := sprintf("the tool check %s says ", [tools.check.id]) if is_string(tools.check.id)

default _ex_check_kind := ""

_ex_check_kind := " (safety, bypass-immune)" if {
	tools.check.bypass_immune == true
} else := " (plain ASK, treated as PASSTHROUGH)" if {
	tools.check.behavior == "ASK"
}

default _ex_check_message := ""

_ex_check_message := concat("", [": ", tools.check.message]) if {
	is_string(tools.check.message)
	tools.check.message != ""
}

_ex_rule_text(r) := concat("", [_show(r), _ex_layer(r), _ex_source(r)])

_ex_layer(r) := concat("", [" from ", r.layer]) if {
	is_string(r.layer)
	r.layer != ""
} else := ""

_ex_source(r) := sprintf(" (%s)", [r.source]) if {
	is_string(r.source)
	r.source != ""
	r.source != object.get(r, "layer", "")
} else := ""

_ex_leaves(step) := rules.leaves_hit[b] if {
	b := {"deny_rule": "deny", "deny_rule_uncertain": "deny", "ask_rule": "ask"}[step]
	call.valid
} else := []

_ex_coverage(step, status) := rules.coverage if {
	step == "allow_rule"
	status in {"decided", "passed"}
	decision.step != "error"
} else := []
