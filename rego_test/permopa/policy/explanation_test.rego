# Explanation tests: the explanation (docs/decision.md, "Explanations")
# agrees with the decision on every case of the matrix: the same decision,
# one decided point at the decision's step, passed or skipped points before
# it, none reached after it.
package permopa.policy_test

_explain(call_input) := e if {
	e := data.permopa.policy.explanation with input as call_input with data.permopa.settings as _settings
}

test_explanation_agrees_with_matrix[name] if {
	some name, [mode, extra, behavior, step] in matrix_cases
	call_input := _call(mode, extra)
	e := _explain(call_input)
	e.decision == _decide(call_input)
	e.decision.behavior == behavior
	[p.step | some p in e.points; p.status == "decided"] == [step]
	every p in e.points {
		_ordered(p, step)
	}
}

_order := {"deny_rule": 1, "ask_rule": 2, "read_only": 3, "tool_check": 4, "allow_rule": 5, "mode_fallback": 6}

_ordered(p, step) if {
	p.point < _order[step]
	p.status in {"passed", "skipped"}
}

_ordered(p, step) if p.point == _order[step]

_ordered(p, step) if {
	p.point > _order[step]
	p.status == "not reached"
}

test_explanation_skips_what_explore_does_not_consult if {
	e := _explain(_call("plan", object.union(_rules(["allow"]), _safety)))
	e.points[3].status == "skipped"
	e.points[4].status == "skipped"
	e.points[4].detail == "the mode EXPLORE does not consult allow rules (deploy from permission_context would match)"
}

test_explanation_of_an_input_error if {
	e := _explain(_call("yolo", {}))
	e.decision.step == "error"
	e.points[0].point == 0
	e.points[0].status == "decided"
	every p in array.slice(e.points, 1, 7) {
		p.status == "not reached"
	}
	count(e.input_errors) == 1
}

_bash(command, ctx) := {
	"tool_name": "Bash", "tool_input": {"command": command}, "cwd": "/w",
	"permission_mode": "default", "permission_context": ctx,
}

_bash_rules(b, contents) := {sprintf("%s_rules", [b]): {"Bash": [{"tool_name": "Bash", "rule_content": c, "behavior": upper(b)} |
	some c in contents
]}}

test_explanation_names_the_leaves_a_deny_rule_hits if {
	e := _explain(_bash("git status && sudo rm -fr build; echo done", _bash_rules("deny", ["rm -rf:*"])))
	e.decision.step == "deny_rule"
	e.points[0].leaves == [1]
	e.points[0].rule.rule_content == "rm -rf:*"
}

# The points after the decided one name the rules that would also match,
# with the right article: "an ask rule", "an allow rule".
test_explanation_names_rules_not_reached_with_their_article if {
	ctx := object.union_n([_bash_rules("deny", ["rm -rf:*"]), _bash_rules("ask", ["rm:*"]), _bash_rules("allow", ["rm -rf build"])])
	e := _explain(_bash("rm -rf build", ctx))
	e.decision.step == "deny_rule"
	e.points[1].detail == "an ask rule would also match: Bash(rm:*) from permission_context"
	e.points[4].detail == "an allow rule would also match: Bash(rm -rf build) from permission_context"
}

# A deny rule that could match decides at point 1, with its own step.
test_explanation_of_an_uncertain_deny_rule if {
	e := _explain(_bash("npx prettier --write .", object.union(_bash_rules("deny", ["rm -rf:*"]), _bash_rules("allow", ["npx prettier --write ."]))))
	e.decision.step == "deny_rule_uncertain"
	e.points[0].step == "deny_rule_uncertain"
	e.points[0].status == "decided"
	e.points[0].rule.rule_content == "rm -rf:*"
	e.points[0].leaves == [0]
	startswith(e.points[0].detail, "ASK: npx runs a package's program")
}

test_explanation_names_the_leaves_a_path_rule_hits if {
	ctx := {"deny_rules": {"Read": [{"tool_name": "Read", "rule_content": "./.env", "behavior": "DENY"}]}}
	e := _explain(_bash("ls; cat ./.env | wc -l", ctx))
	e.decision.step == "deny_rule"
	e.points[0].leaves == [1]
}

test_explanation_covers_each_leaf if {
	e := _explain(_bash("npm run build && git status && sudo make install", _bash_rules("allow", ["npm run:*", "make install"])))
	e.decision.step == "mode_fallback"
	[c.rule.rule_content | some c in e.points[4].coverage; c.rule != null] == ["npm run:*"]
	[c.needs_rule | some c in e.points[4].coverage] == [true, false, true]
	e.points[4].detail == "no set of allow rules covers every leaf that is not read-only"
}

test_explanation_says_why_not_read_only if {
	e := _explain(_bash("cat ~/.ssh/id_rsa && npm install", {}))
	contains(e.points[2].detail, "reads credential path")
	e.points[3].status == "decided"
}

test_explanation_of_a_network_read if {
	e := _explain(object.union(_bash("npm view react version", {}), {"permission_mode": "plan"}))
	e.decision.step == "read_only"
	contains(e.points[2].detail, "a network read (npm view talks to a service configured outside the command")
}
