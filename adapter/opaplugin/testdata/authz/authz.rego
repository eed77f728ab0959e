# METADATA
# title: Example system.authz for permopa's server
# description: |
#   Run with `permopa run --server --authentication=token --authorization=basic`.
#   Agents (bearer tokens in _agents) may ask for decisions; only
#   administrators (_admins) may accept rules, list them or use OPA's own
#   APIs. Health checks need no token. The tokens are placeholders: a
#   deployment keeps hashes of real ones in a data bundle (e.g. under
#   data.tokens, compared with crypto.sha256(input.identity)).
package system.authz

_agents := {"agent-token"}

_admins := {"admin-token"}

_admin if input.identity in _admins

_agent if input.identity in _agents

default allow := false

# Load balancers and the tests probe /health without a token.
allow if input.path == ["health"]

# An agent may ask for decisions (input.body is the call, read by OPA's
# authorizer before permopa's handler sees it).
allow if {
	input.method == "POST"
	input.path == ["v1", "permission", "check"]
	_agent
	is_string(input.body.tool_name)
}

# Administrators may do everything: confirm, list rules, OPA's own APIs.
allow if _admin
