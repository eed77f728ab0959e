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
