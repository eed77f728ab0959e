# METADATA
# title: Tool dispatch
# description: |
#   Routes the read-only question (decision point 3), the tool check (point 4)
#   and the suggested rules to the package of the call's tool.
package permopa.policy.tools

import data.permopa.policy.call
import data.permopa.policy.tools.bash
import data.permopa.policy.tools.files
import data.permopa.policy.tools.other

# METADATA
# description: The call is read-only (decision point 3).
# scope: document
read_only if {
	call.tool == "Bash"
	bash.read_only
}

read_only if files.read_only

read_only if {
	not call.tool in {"Bash", "Read", "Write", "Edit", "Glob", "Grep"}
	other.read_only
}

# METADATA
# description: |
#   The tool check: {behavior, bypass_immune, message}.
check := bash.check if {
	call.tool == "Bash"
} else := files.check if {
	files.handles
} else := other.check

# METADATA
# description: The allow rules that would stop the question next time.
suggestions := bash.suggestions if {
	call.tool == "Bash"
} else := files.suggestions if {
	files.handles
} else := other.suggestions
