# METADATA
# title: One decision per call
# description: |
#   However many findings of every kind a call has (dangerous writes,
#   credential reads, critical removals, dangerous patterns), each tool check
#   yields one value and the decision is one object: never a conflict
#   (eval_conflict_error), never a DENY with step error, in every mode.
package permopa.policy.tools.findings_test

_settings := {"home": "/home/u", "cwd": "/w"}

_modes := ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]

# The expected outcome of a safety ASK in each mode.
_safety := {
	"default": ["ASK", "tool_check"],
	"acceptEdits": ["ASK", "tool_check"],
	"plan": ["DENY", "mode_fallback"],
	"bypassPermissions": ["ALLOW", "mode_fallback"],
	"dontAsk": ["DENY", "tool_check"],
}

_decide(tool, tool_input, mode) := d if {
	d := data.permopa.policy.decision with input as {
		"tool_name": tool, "tool_input": tool_input, "permission_mode": mode, "cwd": "/w",
	}
		with data.permopa.settings as _settings
}

# An analysis with n findings of every kind: n dangerous writes, n
# credential reads, n critical removals, n dangerous patterns.
_analysis(n) := {
	"read_only": false,
	"analysable": true,
	"reasons": [],
	"not_read_only": ["x"],
	"leaves": [{
		"argv": ["x"], "program": "x", "wrappers": [], "allow_argv": ["x"], "read_only": false,
		"reads": [], "writes": [], "touches": [], "fs_command": false,
	}],
	"reads": [sprintf("/home/u/.ssh/id_rsa_%d", [i]) | some i in numbers.range(1, n)],
	"writes": [sprintf("/home/u/.config/git/f%d", [i]) | some i in numbers.range(1, n)],
	"touches": [],
	"recursive_reads": [],
	"environment": [],
	"critical_removals": [sprintf("/d%d", [i]) | some i in numbers.range(1, n)],
	"dangerous": [{"pattern": "p", "leaf": 0, "detail": sprintf("detail %d", [i])} | some i in numbers.range(1, n)],
	"truncated": false,
	"dynamic_writes": false,
}

# regal ignore:argument-always-wildcard
_analyze_1(_, _) := _analysis(1)

# regal ignore:argument-always-wildcard
_analyze_2(_, _) := _analysis(2)

# regal ignore:argument-always-wildcard
_analyze_7(_, _) := _analysis(7)

_decide_mocked(n, mode) := d if {
	n == 1
	d := _decide("Bash", {"command": "x"}, mode) with permopa.bash.analyze as _analyze_1
} else := d if {
	n == 2
	d := _decide("Bash", {"command": "x"}, mode) with permopa.bash.analyze as _analyze_2
} else := d if {
	n == 7
	d := _decide("Bash", {"command": "x"}, mode) with permopa.bash.analyze as _analyze_7
}

test_any_number_of_findings_one_decision[name] if {
	some n in [1, 2, 7]
	some mode in _modes
	name := sprintf("%d findings/%s", [n, mode])
	d := _decide_mocked(n, mode)
	[d.behavior, d.step] == _safety[mode]
}

# The message names every finding of the first kind, sorted.
test_message_lists_every_hit_sorted if {
	d := _decide_mocked(7, "default")
	contains(d.message, "/home/u/.config/git/f1 (")
	contains(d.message, "/home/u/.config/git/f7 (")
	indexof(d.message, "f1 (") < indexof(d.message, "f2 (")
}

# Real commands with several findings of every kind at once.
bash_cases := {
	"two dangerous writes": "echo x > ~/.bashrc; echo y > ~/.zshrc",
	"two credential reads": "cat ~/.ssh/id_rsa ~/.aws/credentials",
	"credential reads in two leaves": "cat ~/.netrc; head ~/.npmrc; tail .env",
	"reads and writes": "cat ~/.ssh/id_rsa > ~/.bashrc; cp .env ~/.profile",
	"every kind": "cat ~/.ssh/id_rsa ~/.aws/config; echo > ~/.zshrc; echo >> .git/config; rm -rf / /usr; :(){ :|:& };:",
	"two dangerous patterns": "dd if=/dev/zero of=/dev/sda; dd if=/dev/zero of=/dev/sdb",
	"two critical removals": "rm -rf / ~",
}

test_bash_findings_one_decision[name] if {
	some case_name, command in bash_cases
	some mode in _modes
	name := sprintf("%s/%s", [case_name, mode])
	d := _decide("Bash", {"command": command}, mode)
	d.step != "error"
	[d.behavior, d.step] == _safety[mode]
}

file_cases := {
	"Read two credentials by glob": ["Read", {"file_path": "/home/u/.ssh/id_*"}],
	"Glob into two credential dirs": ["Glob", {"pattern": "/home/u/.ssh/*", "path": "/home/u/.aws"}],
	"Write dangerous": ["Write", {"file_path": "/w/.git/hooks/pre-commit", "content": ""}],
}

test_file_findings_one_decision[name] if {
	some case_name, [tool, tool_input] in file_cases
	some mode in _modes
	name := sprintf("%s/%s", [case_name, mode])
	d := _decide(tool, tool_input, mode)
	d.step != "error"
	[d.behavior, d.step] == _safety[mode]
}
