# Project rules: settings.projects[<dir>] (an OPA server's
# settings.projects) apply to calls whose project_dir, else cwd, is exactly
# that key; a project deny rule wins over another layer's allow rule.
package permopa.policy.rules_test

_project_call(cmd, extra) := object.union({"tool_name": "Bash", "tool_input": {"command": cmd}, "cwd": "/w/app", "permission_mode": "default"}, extra)

_deny_push := {"tool_name": "Bash", "rule_content": "git push:*", "behavior": "DENY", "source": "projectSettings", "layer": "/w/app/.permopa/settings.yaml"}

_allow_push := {"tool_name": "Bash", "rule_content": "git push:*", "behavior": "ALLOW", "source": "userSettings", "layer": "/u/settings.yaml"}

_deny_db := {"tool_name": "mcp__db__*", "rule_content": null, "behavior": "DENY", "source": "localSettings", "layer": "/w/app/.permopa/settings.local.yaml"}

_projects_settings := {
	"home": "/home/u", "cwd": "/w",
	"rules": {"allow": {"Bash": [_allow_push]}},
	"index": {"allow": {"Bash": {"wide": [], "rules": [_allow_push], "contents": ["git push:*"]}}},
	"tool_pattern_rules": {},
	"projects": {"/w/app": {
		"rules": {"deny": {"Bash": [_deny_push]}},
		"index": {"deny": {"Bash": {"wide": [], "rules": [_deny_push], "contents": ["git push:*"]}}},
		"tool_pattern_rules": {"deny": [_deny_db]},
	}},
}

_project_decide(call_input) := d if {
	d := data.permopa.policy.decision with input as call_input with data.permopa.settings as _projects_settings
}

test_project_rules_apply_to_their_cwd if {
	d := _project_decide(_project_call("git push origin main", {}))
	d.behavior == "DENY"
	d.matched_rule.source == "projectSettings"
	d.matched_rule.layer == "/w/app/.permopa/settings.yaml"
}

test_project_rules_keyed_exactly if {
	_project_decide(_project_call("git push", {"cwd": "/w/other"})).behavior == "ALLOW"
	_project_decide(_project_call("git push", {"cwd": "/w/app/"})).behavior == "ALLOW"
	_project_decide(_project_call("git push", {"cwd": "/w/app/src/.."})).behavior == "ALLOW"
}

test_project_dir_names_the_project if {
	_project_decide(_project_call("git push", {"cwd": "/w/app/web", "project_dir": "/w/app"})).behavior == "DENY"
	_project_decide(_project_call("git push", {"cwd": "/w/app", "project_dir": "/w/other"})).behavior == "ALLOW"
}

test_project_pattern_rules if {
	d := _project_decide({"tool_name": "mcp__db__drop", "tool_input": {}, "cwd": "/w/app"})
	d.behavior == "DENY"
	d.matched_rule.layer == "/w/app/.permopa/settings.local.yaml"
	_project_decide({"tool_name": "mcp__db__drop", "tool_input": {}, "cwd": "/w"}).behavior == "ASK"
}
