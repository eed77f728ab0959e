# Why a Bash deny or ask rule matched: a rule that hits by its words says
# nothing more; a flag-aware hit and a command permopa cannot see through
# say why, in the decision's reason and message.
package permopa.policy.rules_test

_why_bash(cmd, mode) := {
	"tool_name": "Bash", "tool_input": {"command": cmd}, "cwd": "/w", "permission_mode": mode,
	"permission_context": {
		"deny_rules": {"Bash": [{"tool_name": "Bash", "rule_content": "rm -rf:*", "behavior": "DENY"}]},
		"ask_rules": {"Bash": [{"tool_name": "Bash", "rule_content": "curl:*", "behavior": "ASK"}]},
	},
}

_why_decide(call_input) := d if {
	d := data.permopa.policy.decision with input as call_input
		with data.permopa.settings as {"home": "/home/u", "cwd": "/w", "rules": {}, "tool_pattern_rules": {}}
}

test_literal_hit_says_nothing_more if {
	d := _why_decide(_why_bash("rm -rf build", "bypassPermissions"))
	d.behavior == "DENY"
	d.reason == "deny rule Bash(rm -rf:*) (permission_context)"
}

test_flag_aware_hit_says_why if {
	d := _why_decide(_why_bash("rm -fr build", "bypassPermissions"))
	d.behavior == "DENY"
	d.step == "deny_rule"
	contains(d.reason, "flag-aware")
	contains(d.message, "rm -fr build carries the rule's options")
}

# A command permopa cannot see through could match the deny rule: asked
# where someone can answer, denied where nobody can (uncertain_test.rego).
test_uncertain_command_says_why if {
	d := _why_decide(_why_bash("$CMD https://x.example", "default"))
	d.behavior == "ASK"
	d.step == "deny_rule_uncertain"
	d.reason == "deny rule Bash(rm -rf:*) (permission_context) could match: command name is not static"
	a := _why_decide(_why_bash("npx foo", "dontAsk"))
	a.behavior == "DENY"
	a.step == "deny_rule_uncertain"
	startswith(a.message, "npx runs a package's program; permopa cannot tell whether it runs `rm -rf`")
}

_why_ask_only(cmd, mode) := {
	"tool_name": "Bash", "tool_input": {"command": cmd}, "cwd": "/w", "permission_mode": mode,
	"permission_context": {"ask_rules": {"Bash": [{"tool_name": "Bash", "rule_content": "curl:*", "behavior": "ASK"}]}},
}

test_ask_rule_says_why if {
	d := _why_decide(_why_ask_only("python3 -c 'import urllib.request'", "default"))
	d.behavior == "ASK"
	d.step == "ask_rule"
	contains(d.reason, "python3 -c runs inline code")
	n := _why_decide(_why_ask_only("python3 -c 'import urllib.request'", "dontAsk"))
	n.behavior == "DENY"
	contains(n.message, "cannot tell")
}
