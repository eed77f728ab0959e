# METADATA
# title: Disclosure tests
# description: |
#   Recursive reads, secrets outside the key files, environment dumps and
#   copies of secrets, through the policy with the real built-ins (the home
#   and working directory do not exist: what is checked is lexical).
package permopa.policy.tools.reads_test

_settings := {"home": "/home/u", "cwd": "/w"}

_decide(tool, tool_input, mode, settings) := d if {
	d := data.permopa.policy.decision with input as {
		"tool_name": tool, "tool_input": tool_input, "permission_mode": mode, "cwd": "/w",
	}
		with data.permopa.settings as settings
}

_bash(command, mode) := _decide("Bash", {"command": command}, mode, _settings)

# Each case: [tool, tool_input, mode, expected behavior, expected step].
cases := {
	"grep -r home": ["Bash", {"command": "grep -r KEY ~"}, "default", "ASK", "tool_check"],
	"grep -r home, plan": ["Bash", {"command": "grep -r KEY ~"}, "plan", "DENY", "mode_fallback"],
	"grep -r home, dontAsk": ["Bash", {"command": "grep -r KEY ~"}, "dontAsk", "DENY", "tool_check"],
	"rg -uuu home": ["Bash", {"command": "rg -uuu . ~"}, "default", "ASK", "tool_check"],
	"cd home, grep -r": ["Bash", {"command": "cd ~ && grep -rl KEY"}, "default", "ASK", "tool_check"],
	"find -exec cat": ["Bash", {"command": "find ~ -type f -exec cat {} +"}, "default", "ASK", "tool_check"],
	"find | xargs cat": ["Bash", {"command": "find / -name '*.pem' | xargs cat"}, "default", "ASK", "tool_check"],
	"ls -aR home": ["Bash", {"command": "ls -aR /home"}, "default", "ASK", "tool_check"],
	"tar home": ["Bash", {"command": "tar czf /tmp/h.tgz ~"}, "acceptEdits", "ASK", "tool_check"],
	"cp -r home": ["Bash", {"command": "cp -r ~ /w/bk"}, "acceptEdits", "ASK", "tool_check"],
	"rg in workdir": ["Bash", {"command": "rg foo ."}, "plan", "ALLOW", "read_only"],
	"grep -rn src": ["Bash", {"command": "grep -rn foo src/"}, "plan", "ALLOW", "read_only"],
	"find workdir": ["Bash", {"command": "find . -name '*.go'"}, "plan", "ALLOW", "read_only"],
	"du -sh home": ["Bash", {"command": "du -sh ~"}, "plan", "ALLOW", "read_only"],
	"shadow": ["Bash", {"command": "cat /etc/shadow"}, "default", "ASK", "tool_check"],
	"shadow through /proc/1/root": ["Bash", {"command": "cat /proc/1/root/etc/shadow"}, "default", "ASK", "tool_check"],
	"environ": ["Bash", {"command": "cat /proc/self/environ"}, "default", "ASK", "tool_check"],
	"copy shadow, acceptEdits": ["Bash", {"command": "cp /etc/shadow ./x"}, "acceptEdits", "ASK", "tool_check"],
	"copy source file, acceptEdits": ["Bash", {"command": "cp a.go b.go"}, "acceptEdits", "ALLOW", "tool_check"],
	"printenv": ["Bash", {"command": "printenv"}, "default", "ASK", "tool_check"],
	"printenv, bypass": ["Bash", {"command": "printenv"}, "bypassPermissions", "ALLOW", "mode_fallback"],
	"printenv HOME": ["Bash", {"command": "printenv HOME"}, "plan", "ALLOW", "read_only"],
	"env dump": ["Bash", {"command": "env | sort"}, "default", "ASK", "tool_check"],
	"jq env": ["Bash", {"command": "jq -n env"}, "dontAsk", "DENY", "tool_check"],
	"awk ENVIRON": ["Bash", {"command": `awk 'BEGIN{print ENVIRON["HOME"]}'`}, "default", "ASK", "tool_check"],
	"Grep home": ["Grep", {"pattern": "KEY", "path": "/home/u"}, "default", "ASK", "tool_check"],
	"Grep /": ["Grep", {"pattern": "KEY", "path": "/"}, "default", "ASK", "tool_check"],
	"Grep workdir": ["Grep", {"pattern": "KEY"}, "plan", "ALLOW", "read_only"],
	"Glob home": ["Glob", {"pattern": "**/*", "path": "~"}, "default", "ASK", "tool_check"],
	"Glob rooted at /": ["Glob", {"pattern": "/**/id_*"}, "default", "ASK", "tool_check"],
	"Glob workdir": ["Glob", {"pattern": "**/*.go"}, "plan", "ALLOW", "read_only"],
	# A ".." in or after a wildcard segment leaves the directory the pattern
	# starts in (a globber resolves "src/*/../../x" to "../x"): read from "/".
	"Glob .. after *": ["Glob", {"pattern": "*/../../.ssh/*"}, "default", "ASK", "tool_check"],
	"Glob .. after *, plan": ["Glob", {"pattern": "*/../../.ssh/*"}, "plan", "DENY", "mode_fallback"],
	"Glob .. after a literal and *": ["Glob", {"pattern": "src/*/../../.env"}, "default", "ASK", "tool_check"],
	"Glob .. after **": ["Glob", {"pattern": "**/../x"}, "default", "ASK", "tool_check"],
	"Glob .. in braces": ["Glob", {"pattern": "{src,..}/.ssh/*"}, "default", "ASK", "tool_check"],
	"Glob .. after ?": ["Glob", {"pattern": "s?c/../../u/.aws/*"}, "default", "ASK", "tool_check"],
	"Glob .. with a path": ["Glob", {"pattern": "*/../*", "path": "/w/src"}, "default", "ASK", "tool_check"],
	"Glob absolute, .. after *": ["Glob", {"pattern": "/w/*/../../home/u/.ssh/*"}, "default", "ASK", "tool_check"],
	"Glob .. before the wildcard": ["Glob", {"pattern": "src/../*.go"}, "plan", "ALLOW", "read_only"],
}

test_disclosure[name] if {
	some name, [tool, tool_input, mode, behavior, step] in cases
	d := _decide(tool, tool_input, mode, _settings)
	d.behavior == behavior
	d.step == step
}

# environment_is_secret: false relaxes the dumps, not the secret files.
test_environment_setting[name] if {
	some name, [command, behavior, step] in {
		"printenv": ["printenv", "ALLOW", "read_only"],
		"env": ["env", "ALLOW", "read_only"],
		"ps e": ["ps eww", "ALLOW", "read_only"],
		"environ file": ["cat /proc/1/environ", "DENY", "mode_fallback"],
	}
	d := _decide("Bash", {"command": command}, "plan", object.union(_settings, {"environment_is_secret": false}))
	d.behavior == behavior
	d.step == step
}

_rules(b, content) := {sprintf("%s_rules", [b]): {"Read": [{"tool_name": "Read", "rule_content": content, "behavior": upper(b)}]}}

# Read deny and ask rules see below the roots of recursive reads.
test_read_rules_below_roots[name] if {
	some name, [tool, tool_input, b, content, step] in {
		"grep -r home": ["Bash", {"command": "grep -r x ~"}, "deny", "~/.ssh/**", "deny_rule"],
		"tar home": ["Bash", {"command": "tar cf /tmp/x ~"}, "deny", "~/.ssh/**", "deny_rule"],
		"find home": ["Bash", {"command": "find ~ -name x"}, "ask", "~/.aws/**", "ask_rule"],
		"rg workdir, anchored": ["Bash", {"command": "rg x ."}, "deny", "./secrets/**", "deny_rule"],
		"Grep home": ["Grep", {"pattern": "x", "path": "~"}, "deny", "~/.ssh/**", "deny_rule"],
		"Glob home": ["Glob", {"pattern": "**/*", "path": "/home/u"}, "ask", "~/.ssh/**", "ask_rule"],
	}
	d := data.permopa.policy.decision with input as {
		"tool_name": tool, "tool_input": tool_input, "permission_mode": "bypassPermissions", "cwd": "/w",
		"permission_context": _rules(b, content),
	}
		with data.permopa.settings as _settings
	d.step == step
}

# A tree too large to check is not read-only and never auto-allowed.
# regal ignore:argument-always-wildcard
_too_large(_, _) := {"dangerous": [], "credential": [], "unknown": [{"path": "/w", "reason": "more than 20000 entries"}]}

test_unknown_tree_is_not_read_only[mode] if {
	some [mode, behavior, step] in [
		["plan", "DENY", "mode_fallback"],
		["acceptEdits", "ASK", "mode_fallback"],
		["default", "ASK", "mode_fallback"],
	]
	d := _bash("grep -r x .", mode) with permopa.path.check as _too_large
	d.behavior == behavior
	d.step == step
}

# A deny rule hit only because a tree's walk cannot finish (match_any
# without "certain": true hits, with it not) is the uncertain deny, check
# unseen_tree (docs/decision.md, point 1); a hit the walk shows stays a
# DENY by the rule it shows, before an uncertain one listed first.
_tree_rules := {"deny_rules": {"Read": [
	{"tool_name": "Read", "rule_content": "**/*.pem", "behavior": "DENY"},
	{"tool_name": "Read", "rule_content": "~/.ssh/**", "behavior": "DENY"},
]}}

_tree_calls := [
	["Bash", {"command": "grep -R x ."}],
	["Bash", {"command": "rg -L x ."}],
	["Grep", {"pattern": "x"}],
	["Glob", {"pattern": "**/*"}],
]

_tree_decide(call, mode, settings) := d if {
	d := data.permopa.policy.decision with input as {
		"tool_name": call[0], "tool_input": call[1], "permission_mode": mode, "cwd": "/w",
		"permission_context": _tree_rules,
	}
		with data.permopa.settings as settings
}

# regal ignore:argument-always-wildcard
_cut_short(_, _, opts) := -1 if opts.certain

else := 0

# regal ignore:argument-always-wildcard
_second_for_certain(_, _, opts) := 1 if opts.certain

else := 0

test_tree_too_large_is_the_uncertain_deny[[call, mode]] if {
	some call in _tree_calls
	some [mode, behavior] in [
		["default", "ASK"], ["acceptEdits", "ASK"],
		["dontAsk", "DENY"], ["bypassPermissions", "DENY"], ["plan", "DENY"],
	]
	d := _tree_decide(call, mode, _settings) with permopa.path.check as _too_large
		with permopa.glob.match_any as _cut_short
	d.behavior == behavior
	d.step == "deny_rule_uncertain"
	d.check == "unseen_tree"
	d.bypass_immune == true
	d.matched_rule.rule_content == "**/*.pem"
	startswith(d.message, sprintf("%s reads a tree too large to check: /w (more than 20000 entries)", [call[0]]))
	not contains(d.message, "whether it runs")
	d.reason == "deny rule Read(**/*.pem) (permission_context) could match: reads a tree too large to check: /w (more than 20000 entries)"
}

_honouring_safety := object.union(_settings, {"bypass_honours_safety": true})

test_tree_too_large_asks_in_bypass_that_honours_safety[call] if {
	some call in _tree_calls
	d := _tree_decide(call, "bypassPermissions", _honouring_safety) with permopa.path.check as _too_large
		with permopa.glob.match_any as _cut_short
	d.behavior == "ASK"
	d.check == "unseen_tree"
}

test_tree_hit_the_walk_shows_is_a_deny[[call, mode]] if {
	some call in _tree_calls
	some mode in ["default", "dontAsk", "bypassPermissions"]
	d := _tree_decide(call, mode, _settings) with permopa.path.check as _too_large
		with permopa.glob.match_any as _second_for_certain
	d.behavior == "DENY"
	d.step == "deny_rule"
	d.matched_rule.rule_content == "~/.ssh/**"
	not d.check
}
