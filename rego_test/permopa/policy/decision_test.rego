# METADATA
# title: Decision matrix tests
# description: Every cell of the matrix of docs/decision.md, on a custom tool whose read-only verdict and tool check come from the input.
package permopa.policy_test

_settings := {"home": "/home/u", "cwd": "/w", "rules": {}, "tool_pattern_rules": {}}

_call(mode, extra) := object.union(
	{"tool_name": "deploy", "tool_input": {"target": "prod"}, "permission_mode": mode, "cwd": "/w", "tool_use_id": "t1"},
	extra,
)

_rule(b) := {sprintf("%s_rules", [b]): {"deploy": [{"tool_name": "deploy", "rule_content": null, "behavior": upper(b)}]}}

_rules(bs) := {"permission_context": object.union_n([_rule(b) | some b in bs])}

_safety := {"tool_check": {"behavior": "ASK", "bypass_immune": true, "message": "dangerous"}}

_decide(call_input) := d if {
	d := data.permopa.policy.decision with input as call_input with data.permopa.settings as _settings
}

# Each case: [mode, extra input, expected behavior, expected step].
matrix_cases := {
	"deny rule/DEFAULT": ["default", _rules(["deny", "allow"]), "DENY", "deny_rule"],
	"deny rule/ACCEPT_EDITS": ["acceptEdits", _rules(["deny"]), "DENY", "deny_rule"],
	"deny rule/EXPLORE": ["plan", _rules(["deny"]), "DENY", "deny_rule"],
	"deny rule/BYPASS": ["bypassPermissions", _rules(["deny", "allow"]), "DENY", "deny_rule"],
	"deny rule/DONT_ASK": ["dontAsk", _rules(["deny"]), "DENY", "deny_rule"],
	"deny beats read-only": ["default", object.union(_rules(["deny"]), {"read_only": true}), "DENY", "deny_rule"],
	"ask rule/DEFAULT": ["DEFAULT", _rules(["ask", "allow"]), "ASK", "ask_rule"],
	"ask rule/ACCEPT_EDITS": ["ACCEPT_EDITS", _rules(["ask"]), "ASK", "ask_rule"],
	"ask rule/EXPLORE": ["EXPLORE", _rules(["ask"]), "ASK", "ask_rule"],
	"ask rule/BYPASS": ["BYPASS", _rules(["ask"]), "ASK", "ask_rule"],
	"ask rule/DONT_ASK": ["DONT_ASK", _rules(["ask", "allow"]), "DENY", "ask_rule"],
	"ask beats read-only": ["default", object.union(_rules(["ask"]), {"read_only": true}), "ASK", "ask_rule"],
	"read-only/DEFAULT": ["default", {"read_only": true}, "ALLOW", "read_only"],
	"read-only/ACCEPT_EDITS": ["accept_edits", {"read_only": true}, "ALLOW", "read_only"],
	"read-only/EXPLORE": ["explore", {"read_only": true}, "ALLOW", "read_only"],
	"read-only/BYPASS": ["bypass", {"read_only": true}, "ALLOW", "read_only"],
	"read-only/DONT_ASK": ["dont_ask", {"read_only": true}, "ALLOW", "read_only"],
	"read-only beats safety ask": ["default", object.union(_safety, {"read_only": true}), "ALLOW", "read_only"],
	"check ALLOW/DEFAULT": ["default", {"tool_check": {"behavior": "ALLOW"}}, "ALLOW", "tool_check"],
	"check ALLOW/EXPLORE skipped": ["plan", {"tool_check": {"behavior": "ALLOW"}}, "DENY", "mode_fallback"],
	"check DENY/DEFAULT": ["default", object.union(_rules(["allow"]), {"tool_check": {"behavior": "DENY"}}), "DENY", "tool_check"],
	"check DENY/BYPASS": ["bypassPermissions", {"tool_check": {"behavior": "DENY"}}, "DENY", "tool_check"],
	"check DENY/EXPLORE skipped": ["plan", {"tool_check": {"behavior": "DENY"}}, "DENY", "mode_fallback"],
	"safety ask/DEFAULT": ["default", _safety, "ASK", "tool_check"],
	"safety ask survives allow rules": ["default", object.union(_rules(["allow"]), _safety), "ASK", "tool_check"],
	"safety ask/ACCEPT_EDITS": ["acceptEdits", object.union(_rules(["allow"]), _safety), "ASK", "tool_check"],
	"safety ask/EXPLORE skipped": ["plan", _safety, "DENY", "mode_fallback"],
	"safety ask/BYPASS skipped": ["bypassPermissions", _safety, "ALLOW", "mode_fallback"],
	"safety ask/BYPASS then allow rule": ["bypassPermissions", object.union(_rules(["allow"]), _safety), "ALLOW", "allow_rule"],
	"safety ask/DONT_ASK": ["dontAsk", object.union(_rules(["allow"]), _safety), "DENY", "tool_check"],
	"plain ask is passthrough/DEFAULT": ["default", {"tool_check": {"behavior": "ASK"}}, "ASK", "mode_fallback"],
	"plain ask is passthrough/allow rule": ["default", object.union(_rules(["allow"]), {"tool_check": {"behavior": "ASK"}}), "ALLOW", "allow_rule"],
	"plain ask is passthrough/BYPASS": ["bypassPermissions", {"tool_check": {"behavior": "ASK"}}, "ALLOW", "mode_fallback"],
	"plain ask is passthrough/DONT_ASK": ["dontAsk", {"tool_check": {"behavior": "ASK"}}, "DENY", "mode_fallback"],
	"allow rule/DEFAULT": ["default", _rules(["allow"]), "ALLOW", "allow_rule"],
	"allow rule/ACCEPT_EDITS": ["acceptEdits", _rules(["allow"]), "ALLOW", "allow_rule"],
	"allow rule/EXPLORE skipped": ["plan", _rules(["allow"]), "DENY", "mode_fallback"],
	"allow rule/BYPASS": ["bypassPermissions", _rules(["allow"]), "ALLOW", "allow_rule"],
	"allow rule/DONT_ASK": ["dontAsk", _rules(["allow"]), "ALLOW", "allow_rule"],
	"fallback/DEFAULT": ["default", {}, "ASK", "mode_fallback"],
	"fallback/ACCEPT_EDITS": ["acceptEdits", {}, "ASK", "mode_fallback"],
	"fallback/EXPLORE": ["plan", {}, "DENY", "mode_fallback"],
	"fallback/BYPASS": ["bypassPermissions", {}, "ALLOW", "mode_fallback"],
	"fallback/DONT_ASK": ["dontAsk", {}, "DENY", "mode_fallback"],
}

# Tool-check behaviors in any case: AgentScope Java's wire form is
# lower-case, and a Java safety ASK says so in decision_reason.
interop_cases := {
	"lower-case allow": [{"tool_check": {"behavior": "allow"}}, "ALLOW", "tool_check", false],
	"mixed-case deny": [{"tool_check": {"behavior": "Deny"}}, "DENY", "tool_check", false],
	"lower-case passthrough": [{"tool_check": {"behavior": "passthrough"}}, "ASK", "mode_fallback", false],
	"PassThrough": [{"tool_check": {"behavior": "PassThrough"}}, "ASK", "mode_fallback", false],
	"lower-case plain ask": [{"tool_check": {"behavior": "ask"}}, "ASK", "mode_fallback", false],
	"Java safety ask": [{"tool_check": {"behavior": "ask", "message": "m", "decision_reason": "Safety check: dangerous path"}}, "ASK", "tool_check", true],
	"lower-case safety ask": [{"tool_check": {"behavior": "ask", "bypass_immune": true}}, "ASK", "tool_check", true],
	"unknown behavior": [{"tool_check": {"behavior": "maybe"}}, "DENY", "error", false],
}

test_tool_check_interop[name] if {
	some name, [extra, behavior, step, immune] in interop_cases
	d := _decide(_call("default", extra))
	d.behavior == behavior
	d.step == step
	d.bypass_immune == immune
}

# A custom check (a policy package) whose behavior is not one of the four
# denies: it must not fall through to the allow rules.
test_custom_check_unknown_behavior_denies if {
	d := _decide(_call("default", _rules(["allow"]))) with data.permopa.custom.deploy.check as {"behavior": "sometimes"}
	d.behavior == "DENY"
	d.step == "tool_check"
	d.check == "invalid_behavior"
}

test_custom_check_lower_case if {
	d := _decide(_call("default", {})) with data.permopa.custom.deploy.check as {"behavior": "allow"}
	d.behavior == "ALLOW"
	d.step == "tool_check"
	d.check == "custom_policy"
}

# The check id (docs/api.md, "Check ids") names whose check decided, and
# stays when the mode turns a safety ASK into DENY; a check cannot name
# its own id. Decisions at other steps carry none.
test_check_id_names_the_check if {
	_decide(_call("default", _safety)).check == "host_check"
	_decide(_call("dontAsk", _safety)).check == "host_check"
	_decide(_call("default", {"tool_check": {"behavior": "ALLOW", "id": "self_protection"}})).check == "host_check"
	not "check" in object.keys(_decide(_call("default", {"tool_check": {"behavior": "ASK"}})))
	not "check" in object.keys(_decide(_call("default", {"read_only": true})))
	not "check" in object.keys(_decide(_call("bypassPermissions", _safety)))
}

# A check of an extended policy that names no id still decides (a safety
# ASK is never lost for want of an id): the decision's check is null.
test_check_without_id_still_decides if {
	d := _decide(_call("default", {})) with data.permopa.policy.tools.check as {"behavior": "ASK", "bypass_immune": true, "message": "m"}
	d.behavior == "ASK"
	d.step == "tool_check"
	d.check == null
}

test_matrix[name] if {
	some name, [mode, extra, behavior, step] in matrix_cases
	d := _decide(_call(mode, extra))
	d.behavior == behavior
	d.step == step
	d.tool_use_id == "t1"
}

test_bypass_honours_safety if {
	d := data.permopa.policy.decision with input as _call("bypassPermissions", _safety)
		with data.permopa.settings as object.union(_settings, {"bypass_honours_safety": true})
	d.behavior == "ASK"
	d.step == "tool_check"
	d.bypass_immune == true
}

test_disable_bypass_mode_runs_as_default if {
	d := data.permopa.policy.decision with input as _call("bypassPermissions", {})
		with data.permopa.settings as object.union(_settings, {"disable_bypass_mode": true})
	d.behavior == "ASK"
	d.step == "mode_fallback"
}

test_safety_ask_has_no_suggestions if {
	d := _decide(_call("default", _safety))
	d.suggested_rules == []
}

# An ask rule comes before every allow rule: its ASK (and its DENY with
# nobody to ask) suggests no allow rule, and says why.
test_ask_rule_suggests_nothing_and_says_why[mode] if {
	some mode in ["default", "acceptEdits", "bypassPermissions", "dontAsk"]
	d := _decide(_call(mode, _rules(["ask"])))
	d.step == "ask_rule"
	d.suggested_rules == []
	contains(d.message, "no allow rule overrides it")
	contains(d.message, "remove or narrow the ask rule in permission_context")
}

test_fallback_ask_suggests_tool_wide_rule if {
	d := _decide(_call("default", {}))
	d.suggested_rules == [{"tool_name": "deploy", "rule_content": null, "behavior": "ALLOW", "source": "suggested"}]
}

test_dont_ask_keeps_original_reason if {
	d := _decide(_call("dontAsk", _safety))
	contains(d.message, "dangerous")
	d.bypass_immune == true
}

test_matched_rule_names_layer if {
	d := _decide(_call("default", _rules(["deny"])))
	d.matched_rule.layer == "permission_context"
	d.matched_rule.tool_name == "deploy"
}

test_settings_rule_layer if {
	rule := {
		"tool_name": "deploy", "rule_content": null, "behavior": "DENY",
		"source": "projectSettings", "layer": ".permopa/settings.yaml",
	}
	s := object.union(_settings, {"index": {"deny": {"deploy": {"wide": [rule], "rules": [], "contents": []}}}})
	d := data.permopa.policy.decision with input as _call("default", {}) with data.permopa.settings as s
	d.behavior == "DENY"
	d.matched_rule.layer == ".permopa/settings.yaml"
	contains(d.reason, ".permopa/settings.yaml")
}

test_tool_pattern_rules if {
	s := object.union(_settings, {"tool_pattern_rules": {"deny": [{
		"tool_name": "mcp__github__*", "rule_content": null, "behavior": "DENY",
		"source": "userSettings", "layer": "user",
	}]}})
	d := data.permopa.policy.decision with input as object.union(_call("default", {}), {"tool_name": "mcp__github__create_issue"})
		with data.permopa.settings as s
	d.behavior == "DENY"
	other := data.permopa.policy.decision with input as object.union(_call("default", {}), {"tool_name": "mcp__gitlab__create_issue"})
		with data.permopa.settings as s
	other.behavior == "ASK"
}

test_custom_rule_content_matches_canonical_json if {
	rule := {"allow_rules": {"deploy": [{"tool_name": "deploy", "rule_content": `{"target":"prod"}`, "behavior": "ALLOW"}]}}
	d := _decide(_call("default", {"permission_context": rule}))
	d.step == "allow_rule"
	glob_rule := {"allow_rules": {"deploy": [{"tool_name": "deploy", "rule_content": `{"target":"stag*"}`, "behavior": "ALLOW"}]}}
	e := _decide(_call("default", {"permission_context": glob_rule}))
	e.step == "mode_fallback"
}

test_custom_policy_package_check if {
	d := data.permopa.policy.decision with input as _call("default", {})
		with data.permopa.settings as _settings
		with data.permopa.custom.deploy.check as {"behavior": "DENY", "message": "no deploys on Fridays"}
	d.behavior == "DENY"
	d.step == "tool_check"
	d.message == "no deploys on Fridays"
}

# A settings file whose deny or ask rules could not be read denies every
# call, in every mode and even a read-only one, naming the file.
test_unreadable_settings_deny_every_call if {
	s := object.union(_settings, {"unreadable": ["/p/.permopa/settings.yaml: permissions.deny: rule Bash(rm: unclosed"]})
	every mode in ["default", "bypassPermissions", "plan", "dontAsk"] {
		d := data.permopa.policy.decision with input as _call(mode, {"read_only": true})
			with data.permopa.settings as s
		d.behavior == "DENY"
		d.step == "error"
		d.reason == "settings_unreadable"
		contains(d.message, "/p/.permopa/settings.yaml")
	}
}

test_empty_unreadable_list_decides if {
	d := data.permopa.policy.decision with input as _call("default", {"read_only": true})
		with data.permopa.settings as object.union(_settings, {"unreadable": []})
	d.step == "read_only"
}
