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
	c.tool_input == {"command": "ls"}
	c.cwd == "/w"
	c.home == "/home/u"
	c.bypass_honours_safety == true
	c.path_opts == {"cwd": "/w", "home": "/home/u", "dangerous_paths": {}, "case_insensitive": false}
	c.bash_opts == {"cwd": "/w", "home": "/home/u", "working_directories": ["/w"]}
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
