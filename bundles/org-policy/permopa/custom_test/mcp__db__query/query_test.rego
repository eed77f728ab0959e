# METADATA
# title: Tests of the mcp__db__query checks, through the default policy's decision
# description: Run with `permopa test bundles/org-policy rego` (the default policy loaded next to this package).
package permopa.custom_test.mcp__db__query_test

import data.permopa.policy

_call(database, sql, mode) := {
	"tool_name": "mcp__db__query",
	"tool_input": {"database": database, "sql": sql},
	"permission_mode": mode,
	"cwd": "/w",
}

# An allow rule for the whole tool, as a settings layer would give it.
_allow_tool := {
	"tool_name": "mcp__db__query", "rule_content": null, "behavior": "ALLOW",
	"source": "userSettings", "layer": "u.yaml",
}

_settings_allowing := {"index": {"allow": {"mcp__db__query": {"wide": [_allow_tool], "rules": [], "contents": []}}}}

test_select_is_read_only_in_every_mode if {
	every mode in ["default", "plan", "dontAsk", "bypassPermissions"] {
		d := policy.decision with input as _call("orders-prod", "SELECT id, total FROM orders WHERE id = 7;", mode)
		d.behavior == "ALLOW"
		d.step == "read_only"
	}
}

test_select_with_a_second_statement_is_not_read_only if {
	d := policy.decision with input as _call("orders-staging", "SELECT 1; DELETE FROM orders", "default")
	d.behavior == "ASK"
	d.step == "mode_fallback"
}

test_drop_table_is_denied_even_with_an_allow_rule if {
	d := policy.decision with input as _call("orders-staging", "drop table orders", "default")
		with data.permopa.settings as _settings_allowing
	d.behavior == "DENY"
	d.step == "tool_check"
	contains(d.message, "DROP TABLE")
}

test_production_write_is_a_safety_ask_no_allow_rule_silences if {
	d := policy.decision with input as _call("orders-prod", "UPDATE orders SET total = 0 WHERE id = 7", "default")
		with data.permopa.settings as _settings_allowing
	d.behavior == "ASK"
	d.step == "tool_check"
	d.bypass_immune == true
	d.suggested_rules == []
}

test_production_write_with_nobody_to_ask_is_denied if {
	d := policy.decision with input as _call("orders-prod", "UPDATE orders SET total = 0", "dontAsk")
	d.behavior == "DENY"
	d.step == "tool_check"
}

test_staging_write_passes_through_to_the_allow_rules if {
	d := policy.decision with input as _call("orders-staging", "UPDATE orders SET total = 0", "default")
	d.behavior == "ASK"
	d.step == "mode_fallback"
	d.suggested_rules == [{"tool_name": "mcp__db__query", "rule_content": null, "behavior": "ALLOW", "source": "suggested"}]

	allowed := policy.decision with input as _call("orders-staging", "UPDATE orders SET total = 0", "default")
		with data.permopa.settings as _settings_allowing
	allowed.behavior == "ALLOW"
	allowed.step == "allow_rule"
}
