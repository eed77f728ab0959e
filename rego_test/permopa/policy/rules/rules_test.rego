# METADATA
# title: Session rules, session modes and the managed lock
# description: Rules accepted at runtime apply to their session only; a session's mode switch applies to its calls; allow_managed_rules_only silences the input's allow rules.
package permopa.policy.rules_test

_deploy(extra) := object.union({"tool_name": "deploy", "tool_input": {}, "cwd": "/w"}, extra)

_allow_deploy := {"tool_name": "deploy", "rule_content": null, "behavior": "ALLOW", "source": "session", "layer": "session:s1"}

_settings := {
	"home": "/home/u", "cwd": "/w", "rules": {}, "tool_pattern_rules": {},
	"session_rules": {"s1": {
		"rules": {"allow": {"deploy": [_allow_deploy]}},
		"index": {"allow": {"deploy": {"wide": [_allow_deploy], "rules": [], "contents": []}}},
		"tool_pattern_rules": {"deny": [{"tool_name": "mcp__db__*", "rule_content": null, "behavior": "DENY", "source": "session", "layer": "session:s1"}]},
	}},
	"session_modes": {"s2": "dontAsk"},
}

_decide(call_input, settings) := d if {
	d := data.permopa.policy.decision with input as call_input with data.permopa.settings as settings
}

test_session_rules_apply_to_their_session if {
	d := _decide(_deploy({"session_id": "s1"}), _settings)
	d.behavior == "ALLOW"
	d.matched_rule.layer == "session:s1"
	_decide(_deploy({"session_id": "s2"}), _settings).behavior == "DENY"
	_decide(_deploy({}), _settings).behavior == "ASK"
}

test_session_pattern_rules if {
	_decide({"tool_name": "mcp__db__drop", "tool_input": {}, "session_id": "s1"}, _settings).behavior == "DENY"
	_decide({"tool_name": "mcp__db__drop", "tool_input": {}, "session_id": "s3"}, _settings).behavior == "ASK"
}

test_session_mode if {
	d := _decide(_deploy({"session_id": "s2"}), _settings)
	d.behavior == "DENY"
	d.step == "mode_fallback"
	_decide(_deploy({"session_id": "s2", "permission_mode": "default"}), _settings).behavior == "ASK"
}

test_managed_lock_ignores_context_allow_rules if {
	ctx := {"permission_context": {
		"allow_rules": {"deploy": [{"tool_name": "deploy", "rule_content": null, "behavior": "allow"}]},
		"deny_rules": {"deploy": [{"tool_name": "deploy", "rule_content": "{\"x\":1}", "behavior": "deny"}]},
	}}
	_decide(_deploy(ctx), _settings).behavior == "ALLOW"
	locked := object.union(_settings, {"allow_managed_rules_only": true})
	_decide(_deploy(ctx), locked).behavior == "ASK"
	_decide(_deploy(object.union(ctx, {"tool_input": {"x": 1}})), locked).behavior == "DENY"
}
