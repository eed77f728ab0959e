# METADATA
# title: Tool dispatch
# description: |
#   Routes the read-only question (decision point 3), the tool check (point 4)
#   and the suggested rules to the package of the call's tool. The routes test
#   input.tool_name against literal names: no rule is evaluated to route a
#   call, and OPA's rule index skips the other routes.
# schemas:
#   - input: schema.permopa.input
#   - data.permopa.settings: schema.permopa.settings
#   - data.permopa.rules: schema.permopa.rules
package permopa.policy.tools

import data.permopa.policy.tools.bash
import data.permopa.policy.tools.files
import data.permopa.policy.tools.other

# METADATA
# description: The call is read-only (decision point 3).
# scope: document
read_only if {
	input.tool_name == "Bash"
	bash.read_only
}

read_only if {
	input.tool_name in {"Read", "Glob", "Grep"}
	files.read_only
}

read_only if {
	input.tool_name != "Bash"
	not input.tool_name in {"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep"}
	other.read_only
}

# METADATA
# description: |
#   The hard analysis limit the call exceeds, undefined when none: the call
#   is denied before any rule is matched (builtins/bash/doc.go, "Limits").
limit_exceeded := bash.limit_exceeded if input.tool_name == "Bash"

# METADATA
# description: |
#   The tool check: {id, behavior, bypass_immune, message}. Every outcome
#   but PASSTHROUGH has an id, one of the check ids of docs/api.md.
check := bash.check if {
	input.tool_name == "Bash"
} else := files.check if {
	input.tool_name in {"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep"}
} else := other.check

# METADATA
# description: The allow rules that would stop the question next time.
suggestions := bash.suggestions if {
	input.tool_name == "Bash"
} else := files.suggestions if {
	input.tool_name in {"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep"}
} else := other.suggestions
