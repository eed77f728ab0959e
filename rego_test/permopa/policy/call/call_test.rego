# METADATA
# title: Input validation tests
# description: Malformed input is DENY with step error and a message naming the field.
package permopa.policy.call_test

_settings := {"home": "/home/u", "cwd": "/w"}

_decide(call_input) := d if {
	d := data.permopa.policy.decision with input as call_input with data.permopa.settings as _settings
}

bad_inputs := {
	"missing tool_name": [{"tool_input": {}}, "tool_name: missing"],
	"tool_name not a string": [{"tool_name": 7, "tool_input": {}}, "tool_name: must be a non-empty string"],
	"missing tool_input": [{"tool_name": "deploy"}, "tool_input: missing"],
	"tool_input not an object": [{"tool_name": "deploy", "tool_input": "x"}, "tool_input: must be an object"],
	"unknown mode": [{"tool_name": "deploy", "tool_input": {}, "permission_mode": "yolo"}, `permission_mode: unknown mode "yolo"`],
	"unknown context mode": [{"tool_name": "deploy", "tool_input": {}, "permission_context": {"mode": "YOLO"}}, `permission_mode: unknown mode "YOLO"`],
	"mode not a string": [{"tool_name": "deploy", "tool_input": {}, "permission_mode": 1}, "permission_mode: must be a string"],
	"cwd not a string": [{"tool_name": "deploy", "tool_input": {}, "cwd": ["/"]}, "cwd: must be a string"],
	"working_directories": [{"tool_name": "deploy", "tool_input": {}, "working_directories": "/x"}, "working_directories: must be an array of strings"],
	"bash without command": [{"tool_name": "Bash", "tool_input": {}}, "tool_input.command: Bash needs a non-empty string"],
	"bash empty command": [{"tool_name": "Bash", "tool_input": {"command": ""}}, "tool_input.command: Bash needs a non-empty string"],
	"write path not a string": [{"tool_name": "Write", "tool_input": {"file_path": 3}}, "tool_input.file_path: Write needs a non-empty string"],
	"glob path not a string": [{"tool_name": "Glob", "tool_input": {"pattern": "*", "path": 1}}, "tool_input.path: must be a string"],
	"webfetch without url": [{"tool_name": "WebFetch", "tool_input": {}}, "tool_input.url: WebFetch needs a non-empty string"],
	"bad tool_check": [{"tool_name": "deploy", "tool_input": {}, "tool_check": {"behavior": "MAYBE"}}, "tool_check: must be an object with a behavior of ALLOW, DENY, ASK or PASSTHROUGH"],
	"read_only not a boolean": [{"tool_name": "deploy", "tool_input": {}, "read_only": "yes"}, "read_only: must be a boolean"],
	"permission_context not an object": [{"tool_name": "deploy", "tool_input": {}, "permission_context": []}, "permission_context: must be an object"],
}

test_bad_input_is_denied[name] if {
	some name, [call_input, msg] in bad_inputs
	d := _decide(call_input)
	d.behavior == "DENY"
	d.step == "error"
	d.reason == "input_error"
	contains(d.message, msg)
}

test_input_not_an_object if {
	d := _decide(["Bash"])
	d.behavior == "DENY"
	d.step == "error"
}

test_mode_names[name] if {
	some name, want in {
		"default": "DEFAULT", "DEFAULT": "DEFAULT", "acceptEdits": "ACCEPT_EDITS", "accept_edits": "ACCEPT_EDITS",
		"ACCEPT_EDITS": "ACCEPT_EDITS", "plan": "EXPLORE", "EXPLORE": "EXPLORE", "bypassPermissions": "BYPASS",
		"BYPASS": "BYPASS", "dontAsk": "DONT_ASK", "DONT_ASK": "DONT_ASK",
	}
	m := data.permopa.policy.call.mode with input as {"tool_name": "x", "tool_input": {}, "permission_mode": name}
		with data.permopa.settings as _settings
	m == want
}

test_mode_precedence if {
	m := data.permopa.policy.call.mode with input as {"tool_name": "x", "tool_input": {}, "permission_context": {"mode": "EXPLORE"}}
		with data.permopa.settings as object.union(_settings, {"default_mode": "dontAsk"})
	m == "EXPLORE"
	n := data.permopa.policy.call.mode with input as {"tool_name": "x", "tool_input": {}}
		with data.permopa.settings as object.union(_settings, {"default_mode": "dontAsk"})
	n == "DONT_ASK"
	o := data.permopa.policy.call.mode with input as {"tool_name": "x", "tool_input": {}}
		with data.permopa.settings as _settings
	o == "DEFAULT"
}

test_working_directories if {
	dirs := data.permopa.policy.call.working_directories with input as {
		"tool_name": "x", "tool_input": {}, "cwd": "/w", "working_directories": ["/a"],
		"permission_context": {"working_directories": {"/b": {"path": "/b", "source": "session"}, "/c": {}}},
	}
		with data.permopa.settings as object.union(_settings, {"working_directories": ["/d"]})
	dirs == ["/w", "/a", "/b", "/c", "/d"]
}

test_extra_fields_are_ignored if {
	d := _decide({"tool_name": "deploy", "tool_input": {}, "permission_mode": "default", "hook_event_name": "PreToolUse", "transcript_path": "/x"})
	d.behavior == "ASK"
}
