# METADATA
# title: permopa
# description: |
#   The permission decision for one agent tool call: ALLOW, DENY or ASK.
#   Every call walks six decision points and the first decisive one wins
#   (docs/decision.md): 1 deny rule, 2 ask rule, 3 read-only fast path, 4 tool
#   check, 5 allow rule, 6 the mode's fallback. Input errors, and calls
#   beyond the analyser's limits, decide first, as DENY with step "error".
# schemas:
#   - input: schema.permopa.input
#   - data.permopa.settings: schema.permopa.settings
#   - data.permopa.rules: schema.permopa.rules
package permopa.policy

import data.permopa.policy.call
import data.permopa.policy.modes
import data.permopa.policy.rules
import data.permopa.policy.tools

# METADATA
# title: decision
# description: |
#   The decision object of docs/api.md: behavior, message, reason, step,
#   check (at tool_check and deny_rule_uncertain only), bypass_immune,
#   matched_rule, suggested_rules, tool_use_id. Never
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

# Each decision point's outcome is written out as an object rather than
# built by a helper function: OPA evaluates a function call with seven
# arguments at several times the cost of the literal, on every decision.
# The tool's name is read from the input (call.tool is the same value): a
# rule reference costs an evaluation.
_decided := {
	# Input errors decide first.
	"behavior": "DENY",
	"message": sprintf("invalid input: %s", [_input_errors]),
	"reason": "input_error",
	"step": "error",
	"bypass_immune": false,
	"matched_rule": null,
	"suggested_rules": [],
} if {
	not call.valid
} else := {
	# A settings file's deny or ask rules could not be read (the engine's
	# layers list them in settings.unreadable): no decision without them.
	"behavior": "DENY",
	"message": sprintf(
		"a deny or ask rule cannot be read, so no call is let through until it is fixed: %s",
		[concat("; ", data.permopa.settings.unreadable)],
	),
	"reason": "settings_unreadable",
	"step": "error",
	"bypass_immune": false,
	"matched_rule": null,
	"suggested_rules": [],
} if {
	count(data.permopa.settings.unreadable) > 0
} else := {
	# The call is beyond what the analyser does for one call
	# (builtins/bash/doc.go, "Limits"): denied whatever the mode and the rules.
	"behavior": "DENY",
	"message": sprintf(
		"%s call exceeds permopa's analysis limit %s; denied to fail closed (split the command)",
		[input.tool_name, tools.limit_exceeded],
	),
	"reason": "limit_exceeded",
	"step": "error",
	"bypass_immune": false,
	"matched_rule": null,
	"suggested_rules": [],
} if {
	tools.limit_exceeded
} else := {
	# The rules could not be read: no decision without them.
	"behavior": "DENY",
	"message": "the permission rules could not be read (a malformed rules document); denied to fail closed",
	"reason": "rules_unreadable",
	"step": "error",
	"bypass_immune": false,
	"matched_rule": null,
	"suggested_rules": [],
} if {
	not rules.deny_ask_match
} else := {
	# Point 1: a deny rule matches what the call shows.
	"behavior": "DENY",
	"message": sprintf("%s is denied by rule %s%s", [input.tool_name, _show(rules.deny_ask_match.deny), _why("deny")]),
	"reason": sprintf("deny rule %s (%s)%s", [_show(rules.deny_ask_match.deny), rules.deny_ask_match.deny.layer, _why("deny")]),
	"step": "deny_rule",
	"bypass_immune": false,
	"matched_rule": rules.deny_ask_match.deny,
	"suggested_rules": [],
} if {
	rules.deny_ask_match.deny
	not rules.uncertain.deny
} else := _uncertain_deny if {
	# Point 1: a deny rule could match, because permopa cannot read what
	# the command runs.
	rules.deny_ask_match.deny
} else := _ask_rule if {
	# Point 2: an ask rule.
	rules.deny_ask_match.ask
} else := {
	# Point 3: the read-only fast path.
	"behavior": "ALLOW",
	"message": sprintf("%s call is read-only", [input.tool_name]),
	"reason": "read-only call",
	"step": "read_only",
	"bypass_immune": false,
	"matched_rule": null,
	"suggested_rules": [],
} if {
	tools.read_only
} else := _tool_check_decision if {
	# Point 4: the tool check. PASSTHROUGH, the usual outcome, decides nothing.
	call.mode in modes.consults_tools
	tools.check.behavior != "PASSTHROUGH"
	_tool_check_decision
} else := {
	# Point 5: an allow rule.
	"behavior": "ALLOW",
	"message": sprintf("%s is allowed by rule %s", [input.tool_name, _show(rules.allow_match)]),
	"reason": sprintf("allow rule %s (%s)", [_show(rules.allow_match), rules.allow_match.layer]),
	"step": "allow_rule",
	"bypass_immune": false,
	"matched_rule": rules.allow_match,
	"suggested_rules": [],
} if {
	call.mode in modes.consults_tools
	rules.allow_match
} else := {
	# Point 6: the mode's fallback.
	"behavior": "ASK",
	"message": sprintf("%s needs approval (mode %s)%s", [input.tool_name, call.mode, _script_note]),
	"reason": "no rule or check decided; the mode asks",
	"step": "mode_fallback",
	"bypass_immune": false,
	"matched_rule": null,
	"suggested_rules": tools.suggestions,
} if {
	modes.fallback[call.mode] == "ASK"
} else := {
	"behavior": "ALLOW",
	"message": sprintf("%s is allowed by mode %s", [input.tool_name, call.mode]),
	"reason": "no rule or check decided; the mode allows",
	"step": "mode_fallback",
	"bypass_immune": false,
	"matched_rule": null,
	"suggested_rules": [],
} if {
	modes.fallback[call.mode] == "ALLOW"
} else := {
	"behavior": "DENY",
	"message": sprintf("%s is not allowed in mode %s without an allow rule", [input.tool_name, call.mode]),
	"reason": "no rule or check decided; the mode denies",
	"step": "mode_fallback",
	"bypass_immune": false,
	"matched_rule": null,
	"suggested_rules": tools.suggestions,
} if {
	call.mode in modes.unattended
} else := {
	"behavior": "DENY",
	"message": sprintf("%s is not read-only and mode %s only allows read-only calls", [input.tool_name, call.mode]),
	"reason": "no rule or check decided; the mode denies",
	"step": "mode_fallback",
	"bypass_immune": false,
	"matched_rule": null,
	"suggested_rules": [],
}

# What the scripts a Bash command runs hold, for the person asked
# (docs/shell.md, "Scripts"): "; it runs package.json:6 script test: jest".
default _script_note := ""

_script_note := sprintf("; %s", [tools.bash.script_note]) if {
	input.tool_name == "Bash"
	tools.bash.script_note != ""
}

default _input_errors := "input: not understood"

_input_errors := concat("; ", sort(call.errors)) if count(call.errors) > 0

_show(r) := sprintf("%s(%s)", [r.tool_name, r.rule_content]) if {
	is_string(r.rule_content)
	r.rule_content != ""
} else := r.tool_name

# Why a deny or ask rule matched when not by its words (a flag-aware
# match, a command permopa cannot see through, a tree too large to check):
# appended to the message.
_why(b) := sprintf(" (it could match: %s; permopa cannot tell whether it runs `%s`)", [
	rules.uncertain[b],
	_rule_words(rules.deny_ask_match[b].rule_content),
]) if {
	rules.uncertain_check[b] == "unseen_code"
} else := sprintf(" (it could match: %s; %s)", [rules.uncertain[b], _beyond_walk]) if {
	rules.uncertain_check[b] == "unseen_tree"
} else := sprintf(": %s", [rules.why[b]]) if rules.why[b]

else := ""

_beyond_walk := "a path beyond the walk, or where a link in the tree leads, may be one the rule names"

# Point 1, uncertain: no deny rule matches what the call shows, but a Bash
# command runs what permopa cannot read (inline interpreter code, a
# package's program, a script from stdin; check unseen_code) or the call
# reads a tree too large to walk to its end (check unseen_tree), so the
# deny rule of rules.deny_ask_match could match. A safety ASK where someone
# can answer (no allow rule skips it); DENY where nobody can (DONT_ASK; BYPASS unless bypass_honours_safety) and
# in EXPLORE, which allows only read-only calls (docs/decision.md).
_uncertain_deny := {
	"behavior": "ASK",
	"message": sprintf("%s: approve only if %s (no allow rule skips this question)", [
		_uncertain_head,
		_approve_if[rules.uncertain_check.deny],
	]),
	"reason": _uncertain_reason,
	"step": "deny_rule_uncertain",
	"check": rules.uncertain_check.deny,
	"bypass_immune": true,
	"matched_rule": rules.deny_ask_match.deny,
	"suggested_rules": [],
} if {
	_someone_answers
} else := {
	"behavior": "DENY",
	"message": sprintf("%s, and %s", [_uncertain_head, _nobody_answers[call.mode]]),
	"reason": _uncertain_reason,
	"step": "deny_rule_uncertain",
	"check": rules.uncertain_check.deny,
	"bypass_immune": true,
	"matched_rule": rules.deny_ask_match.deny,
	"suggested_rules": [],
}

_someone_answers if call.mode in {"DEFAULT", "ACCEPT_EDITS"}

_someone_answers if {
	call.mode == "BYPASS"
	call.context.bypass_honours_safety
}

_approve_if := {
	"unseen_code": "it does not",
	"unseen_tree": "the call reads no such path",
}

_nobody_answers := {
	"DONT_ASK": "mode DONT_ASK has nobody to ask",
	"BYPASS": "mode BYPASS asks nothing (with bypass_honours_safety: true it asks)",
	"EXPLORE": "mode EXPLORE allows only read-only calls",
}

# "npx runs a package's program; permopa cannot tell whether it runs
# `rm -rf`, which deny rule Bash(rm -rf:*) forbids": why first. "Grep
# reads a tree too large to check: /w (more than 20000 entries); a path
# beyond the walk, or where a link in the tree leads, may be what deny rule
# Read(~/.ssh/**) forbids".
_uncertain_head := sprintf("%s; permopa cannot tell whether it runs `%s`, which deny rule %s forbids%s", [
	rules.uncertain.deny,
	_rule_words(rules.deny_ask_match.deny.rule_content),
	_show(rules.deny_ask_match.deny),
	_uncertain_more,
]) if {
	rules.uncertain_check.deny == "unseen_code"
} else := sprintf("%s %s; a path beyond the walk, or where a link in the tree leads, may be what deny rule %s forbids", [
	input.tool_name,
	rules.uncertain.deny,
	_show(rules.deny_ask_match.deny),
])

# The other deny rules that could match too.
default _uncertain_more := ""

_uncertain_more := sprintf(" (nor what %d other deny rule forbids)", [rules.uncertain_others.deny]) if {
	rules.uncertain_others.deny == 1
} else := sprintf(" (nor what %d other deny rules forbid)", [rules.uncertain_others.deny]) if {
	rules.uncertain_others.deny > 1
}

_uncertain_reason := sprintf("deny rule %s (%s) could match: %s", [
	_show(rules.deny_ask_match.deny),
	rules.deny_ask_match.deny.layer,
	rules.uncertain.deny,
])

# A Bash rule's words without its trailing wildcard: `rm -rf` for rm -rf:*.
_rule_words(c) := trim_suffix(c, ":*") if endswith(c, ":*")

else := trim_suffix(c, " *") if endswith(c, " *")

else := c

# Point 2: an ask rule asks; with nobody to ask (DONT_ASK) it denies. An
# ask rule comes before every allow rule, so no allow rule can stop its
# question: the decision says so and suggests no rule (docs/decision.md, "Suggested rules").
_ask_rule := {
	"behavior": "DENY",
	"message": sprintf(
		"%s needs approval by rule %s%s, and mode %s has nobody to ask; %s",
		[input.tool_name, _show(rules.deny_ask_match.ask), _why("ask"), call.mode, _ask_rule_note],
	),
	"reason": sprintf("ask rule %s (%s)%s", [_show(rules.deny_ask_match.ask), rules.deny_ask_match.ask.layer, _why("ask")]),
	"step": "ask_rule",
	"bypass_immune": false,
	"matched_rule": rules.deny_ask_match.ask,
	"suggested_rules": [],
} if {
	call.mode in modes.unattended
} else := {
	"behavior": "ASK",
	"message": sprintf(
		"%s needs approval by rule %s%s%s; %s",
		[input.tool_name, _show(rules.deny_ask_match.ask), _why("ask"), _script_note, _ask_rule_note],
	),
	"reason": sprintf("ask rule %s (%s)%s", [_show(rules.deny_ask_match.ask), rules.deny_ask_match.ask.layer, _why("ask")]),
	"step": "ask_rule",
	"bypass_immune": false,
	"matched_rule": rules.deny_ask_match.ask,
	"suggested_rules": [],
}

_ask_rule_note := sprintf(
	"an ask rule asks every time and no allow rule overrides it (to stop the question, remove or narrow the ask rule%s)",
	[_ask_rule_layer],
)

# The layer holding the ask rule, when the match names one.
default _ask_rule_layer := ""

_ask_rule_layer := sprintf(" in %s", [rules.deny_ask_match.ask.layer]) if {
	rules.deny_ask_match.ask.layer != ""
}

# Point 4: ALLOW and DENY decide; a safety ASK (bypass_immune) asks, is
# denied when nobody can answer, and is skipped in BYPASS unless
# bypass_honours_safety or it protects permission settings
# (self_protection). A plain ASK is treated like PASSTHROUGH.
_tool_check_decision := {
	"behavior": "ALLOW",
	"message": tools.check.message,
	"reason": "tool check allowed",
	"step": "tool_check",
	"check": _check_id,
	"bypass_immune": false,
	"matched_rule": null,
	"suggested_rules": [],
} if {
	tools.check.behavior == "ALLOW"
} else := {
	"behavior": "DENY",
	"message": tools.check.message,
	"reason": "tool check denied",
	"step": "tool_check",
	"check": _check_id,
	"bypass_immune": false,
	"matched_rule": null,
	"suggested_rules": [],
} if {
	tools.check.behavior == "DENY"
} else := {
	"behavior": "DENY",
	"message": sprintf("%s; mode %s has nobody to ask", [tools.check.message, call.mode]),
	"reason": "safety check",
	"step": "tool_check",
	"check": _check_id,
	"bypass_immune": true,
	"matched_rule": null,
	"suggested_rules": [],
} if {
	_safety_ask
	call.mode in modes.unattended
} else := {
	"behavior": "ASK",
	"message": tools.check.message,
	"reason": "safety check",
	"step": "tool_check",
	"check": _check_id,
	"bypass_immune": true,
	"matched_rule": null,
	"suggested_rules": [],
} if {
	_safety_ask
	call.mode != "BYPASS"
} else := {
	"behavior": "ASK",
	"message": tools.check.message,
	"reason": "safety check (bypass_honours_safety)",
	"step": "tool_check",
	"check": _check_id,
	"bypass_immune": true,
	"matched_rule": null,
	"suggested_rules": [],
} if {
	_safety_ask
	call.mode == "BYPASS"
	call.context.bypass_honours_safety
} else := {
	# Self-protection holds in BYPASS too: BYPASS still honours deny rules,
	# and an agent that could rewrite its settings would lift them.
	"behavior": "ASK",
	"message": tools.check.message,
	"reason": "safety check (self-protection)",
	"step": "tool_check",
	"check": _check_id,
	"bypass_immune": true,
	"matched_rule": null,
	"suggested_rules": [],
} if {
	_safety_ask
	call.mode == "BYPASS"
	tools.check.id == "self_protection"
}

# The tool check's stable id (docs/api.md, "Check ids"); null for a check
# of an extended policy that names none, so that the decision is never
# lost for want of an id.
default _check_id := null

_check_id := tools.check.id if is_string(tools.check.id)

_safety_ask if {
	tools.check.behavior == "ASK"
	tools.check.bypass_immune == true
}
