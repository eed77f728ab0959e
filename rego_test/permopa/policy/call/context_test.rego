# Call context tests: the context read from one permopa.call.context call,
# each field, the session's runtime mode, and a policy evaluated with no
# settings document.
package permopa.policy.call_test

import data.permopa.policy.call

test_context_fields if {
	c := call with input as {
		"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": "/w",
		"permission_mode": "bypassPermissions",
	}
		with data.permopa.settings as object.union(_settings, {"bypass_honours_safety": true})
	c.valid
	c.tool == "Bash"

	# Field by field: OPA's type check (permopa check, typed by
	# schemas/permopa/input.json) rejects a typed object compared whole
	# with an object literal (docs/opa.md §6).
	c.tool_input.command == "ls"
	count(c.tool_input) == 1
	c.cwd == "/w"
	c.home == "/home/u"
	c.bypass_honours_safety == true
	c.path_opts == {"cwd": "/w", "home": "/home/u", "dangerous_paths": {}, "case_insensitive": false}
	c.bash_opts == {"cwd": "/w", "home": "/home/u", "working_directories": ["/w"], "shell_per_call": false, "positional_empty": false, "stdin_terminal": false, "git_pager_cat": false}
}

test_session_mode_stands_in_for_the_default_mode if {
	s := object.union(_settings, {"default_mode": "default", "session_modes": {"s1": "plan"}})
	m := call.mode with input as {"tool_name": "x", "tool_input": {}, "session_id": "s1"}
		with data.permopa.settings as s
	m == "EXPLORE"
	n := call.mode with input as {"tool_name": "x", "tool_input": {}, "session_id": "s2"}
		with data.permopa.settings as s
	n == "DEFAULT"
	o := call.mode with input as {"tool_name": "x", "tool_input": {}, "session_id": "s1", "permission_mode": "dontAsk"}
		with data.permopa.settings as s
	o == "DONT_ASK"
}

# Plain `opa eval` of the policy has no settings document: the call still
# gets a context (cwd /, no home) and a decision.
test_no_settings_document if {
	c := call.context with input as {"tool_name": "Read", "tool_input": {"file_path": "/w/a.go"}}
	c.valid
	c.cwd == "/"
	c.home == ""
	d := data.permopa.policy.decision with input as {"tool_name": "Read", "tool_input": {"file_path": "/w/a.go"}}
	d.behavior == "ALLOW"
	d.step == "read_only"
}

# The mode's sources in order (the input's permission_mode, the
# permission_context's mode, the session's runtime mode, the settings'
# default_mode, "default"), each counting only as a non-empty string, any
# spelling of the policy's table, and BYPASS disabled by managed settings.
# [input fields, settings fields, the mode, or the error it makes].
_mode_cases := [
	[{}, {}, "DEFAULT"],
	[{"permission_mode": "plan"}, {}, "EXPLORE"],
	[{"permission_mode": "acceptEdits"}, {}, "ACCEPT_EDITS"],
	[{"permission_mode": "ACCEPT_EDITS"}, {}, "ACCEPT_EDITS"],
	[{"permission_mode": "BypassPermissions"}, {}, "BYPASS"],
	[{"permission_mode": "dontAsk"}, {"default_mode": "plan"}, "DONT_ASK"],
	[{"permission_mode": ""}, {"default_mode": "plan"}, "EXPLORE"],
	[{"permission_mode": null}, {"default_mode": "plan"}, "EXPLORE"],
	[{"permission_mode": 3}, {"default_mode": "plan"}, "permission_mode: must be a string"],
	[{"permission_context": {"mode": "acceptEdits"}}, {"default_mode": "plan"}, "ACCEPT_EDITS"],
	[{"permission_mode": "default", "permission_context": {"mode": "plan"}}, {}, "DEFAULT"],
	[{"permission_context": {"mode": ""}}, {"default_mode": "plan"}, "EXPLORE"],
	[{"permission_context": {"mode": 1}}, {"default_mode": "plan"}, "EXPLORE"],
	[{"session_id": "s1"}, {"default_mode": "default", "session_modes": {"s1": "dontAsk"}}, "DONT_ASK"],
	[{"session_id": "s1", "permission_context": {"mode": "plan"}}, {"session_modes": {"s1": "dontAsk"}}, "EXPLORE"],
	[{"session_id": "s2"}, {"default_mode": "plan", "session_modes": {"s1": "dontAsk"}}, "EXPLORE"],
	[{"session_id": "s1"}, {"default_mode": "plan", "session_modes": {"s1": ""}}, "EXPLORE"],
	[{}, {"default_mode": ""}, "DEFAULT"],
	[{"permission_mode": "bypass"}, {"disable_bypass_mode": true}, "DEFAULT"],
	[{"permission_mode": "bypass"}, {"disable_bypass_mode": false}, "BYPASS"],
	[{"session_id": "s1"}, {"disable_bypass_mode": true, "session_modes": {"s1": "bypassPermissions"}}, "DEFAULT"],
	[{"permission_mode": "weird"}, {"default_mode": "plan"}, `permission_mode: unknown mode "weird"`],
	[{}, {"default_mode": "yolo"}, `permission_mode: unknown mode "yolo"`],
	[{"session_id": "s1"}, {"session_modes": {"s1": "Plan "}}, `permission_mode: unknown mode "Plan "`],
]

test_mode_sources_in_order if {
	failing := [c | some c in _mode_cases; not _mode_case_holds(c)]
	count(failing) == 0
}

_mode_case_holds([fields, settings, want]) if {
	startswith(want, "permission_mode:")
	inp := object.union({"tool_name": "x", "tool_input": {}}, fields)
	errs := call.errors with input as inp with data.permopa.settings as object.union(_settings, settings)
	want in errs
	not call.valid with input as inp with data.permopa.settings as object.union(_settings, settings)
	d := data.permopa.policy.decision with input as inp with data.permopa.settings as object.union(_settings, settings)
	d.behavior == "DENY"
	d.reason == "input_error"
}

_mode_case_holds([fields, settings, want]) if {
	not startswith(want, "permission_mode:")
	inp := object.union({"tool_name": "x", "tool_input": {}}, fields)
	m := call.mode with input as inp with data.permopa.settings as object.union(_settings, settings)
	m == want
	call.valid with input as inp with data.permopa.settings as object.union(_settings, settings)
}
