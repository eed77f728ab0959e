# METADATA
# title: permopa
# description: |
#   The permission decision for one agent tool call: ALLOW, DENY or ASK.
#   Every call walks six decision points and the first decisive one wins
#   (contract §2): 1 deny rule, 2 ask rule, 3 read-only fast path, 4 tool
#   check, 5 allow rule, 6 the mode's fallback. Input errors decide first,
#   as DENY with step "error".
package permopa.policy

import data.permopa.policy.call
import data.permopa.policy.modes
import data.permopa.policy.rules
import data.permopa.policy.tools

# METADATA
# title: decision
# description: |
#   The decision object of contract §5: behavior, message, reason, step,
#   bypass_immune, matched_rule, suggested_rules, tool_use_id. Never
#   undefined: anything the chain below does not decide is DENY.
# entrypoint: true
default decision := {
	"behavior": "DENY",
	"message": "permopa could not decide this call; denied to fail closed",
	"reason": "undefined_decision",
	"step": "error",
	"bypass_immune": false,
	"matched_rule": null,
	"suggested_rules": [],
	"tool_use_id": null,
}

decision := object.union(_decided, {"tool_use_id": object.get(input, "tool_use_id", null)}) if is_object(input)

_decided := _deny(
	"error",
	sprintf("invalid input: %s", [_input_errors]),
	"input_error",
	null,
) if {
	not call.valid
} else := _deny(
	"deny_rule",
	sprintf("%s is denied by rule %s", [call.tool, _show(rules.match.deny)]),
	sprintf("deny rule %s (%s)", [_show(rules.match.deny), rules.match.deny.layer]),
	rules.match.deny,
) if {
	rules.match.deny
} else := _ask_rule if {
	rules.match.ask
} else := _decision(
	"ALLOW",
	"read_only",
	sprintf("%s call is read-only", [call.tool]),
	"read-only call",
	false,
	null,
	[],
) if {
	tools.read_only
} else := _tool_check_decision if {
	call.mode in modes.consults_tools
	_tool_check_decision
} else := _decision(
	"ALLOW",
	"allow_rule",
	sprintf("%s is allowed by rule %s", [call.tool, _show(rules.match.allow)]),
	sprintf("allow rule %s (%s)", [_show(rules.match.allow), rules.match.allow.layer]),
	false,
	rules.match.allow,
	[],
) if {
	call.mode in modes.consults_tools
	rules.match.allow
} else := _fallback

default _input_errors := "input: not understood"

_input_errors := concat("; ", sort(call.errors)) if count(call.errors) > 0

_decision(behavior, step, message, reason, immune, rule, suggested) := {
	"behavior": behavior,
	"message": message,
	"reason": reason,
	"step": step,
	"bypass_immune": immune,
	"matched_rule": rule,
	"suggested_rules": suggested,
}

_deny(step, message, reason, rule) := _decision("DENY", step, message, reason, false, rule, [])

_show(r) := sprintf("%s(%s)", [r.tool_name, r.rule_content]) if {
	is_string(r.rule_content)
	r.rule_content != ""
} else := r.tool_name

# Point 2: an ask rule asks; with nobody to ask (DONT_ASK) it denies.
_ask_rule := _decision(
	"DENY",
	"ask_rule",
	sprintf("%s needs approval by rule %s, and mode %s has nobody to ask", [call.tool, _show(rules.match.ask), call.mode]),
	sprintf("ask rule %s (%s)", [_show(rules.match.ask), rules.match.ask.layer]),
	false,
	rules.match.ask,
	tools.suggestions,
) if {
	call.mode in modes.unattended
} else := _decision(
	"ASK",
	"ask_rule",
	sprintf("%s needs approval by rule %s", [call.tool, _show(rules.match.ask)]),
	sprintf("ask rule %s (%s)", [_show(rules.match.ask), rules.match.ask.layer]),
	false,
	rules.match.ask,
	tools.suggestions,
)

# Point 4: ALLOW and DENY decide; a safety ASK (bypass_immune) asks, is
# denied when nobody can answer, and is skipped in BYPASS unless
# bypass_honours_safety. A plain ASK is treated like PASSTHROUGH.
_tool_check_decision := _decision("ALLOW", "tool_check", tools.check.message, "tool check allowed", false, null, []) if {
	tools.check.behavior == "ALLOW"
} else := _decision("DENY", "tool_check", tools.check.message, "tool check denied", false, null, []) if {
	tools.check.behavior == "DENY"
} else := _decision(
	"DENY",
	"tool_check",
	sprintf("%s; mode %s has nobody to ask", [tools.check.message, call.mode]),
	"safety check",
	true,
	null,
	[],
) if {
	_safety_ask
	call.mode in modes.unattended
} else := _decision("ASK", "tool_check", tools.check.message, "safety check", true, null, []) if {
	_safety_ask
	call.mode != "BYPASS"
} else := _decision("ASK", "tool_check", tools.check.message, "safety check (bypass_honours_safety)", true, null, []) if {
	_safety_ask
	call.mode == "BYPASS"
	call.bypass_honours_safety
}

_safety_ask if {
	tools.check.behavior == "ASK"
	tools.check.bypass_immune == true
}

# Point 6: the mode's fallback.
_fallback := _decision(
	"ASK",
	"mode_fallback",
	sprintf("%s needs approval (mode %s)", [call.tool, call.mode]),
	"no rule or check decided; the mode asks",
	false,
	null,
	tools.suggestions,
) if {
	modes.fallback[call.mode] == "ASK"
} else := _decision(
	"ALLOW",
	"mode_fallback",
	sprintf("%s is allowed by mode %s", [call.tool, call.mode]),
	"no rule or check decided; the mode allows",
	false,
	null,
	[],
) if {
	modes.fallback[call.mode] == "ALLOW"
} else := _decision(
	"DENY",
	"mode_fallback",
	sprintf("%s is not allowed in mode %s without an allow rule", [call.tool, call.mode]),
	"no rule or check decided; the mode denies",
	false,
	null,
	tools.suggestions,
) if {
	call.mode in modes.unattended
} else := _deny(
	"mode_fallback",
	sprintf("%s is not read-only and mode %s only allows read-only calls", [call.tool, call.mode]),
	"no rule or check decided; the mode denies",
	null,
)
