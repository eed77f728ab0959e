# METADATA
# title: WebFetch and custom tools
# description: |
#   WebFetch is never read-only (it can exfiltrate); its rules name domains.
#   Every other tool is a custom tool (MCP tools are mcp__<server>__<tool>):
#   the host may send its own read_only and tool_check results in the input,
#   and a policy author may add a package permopa.custom.<tool> with a
#   read_only rule and a check rule, without writing Go. Defaults: not
#   read-only, PASSTHROUGH. Rule contents match the canonical JSON of
#   tool_input (sorted keys, no spaces), exactly or as a glob.
# schemas:
#   - input: schema.permopa.input
#   - data.permopa.settings: schema.permopa.settings
#   - data.permopa.rules: schema.permopa.rules
package permopa.policy.tools.other

import data.permopa.policy.call

# METADATA
# description: |
#   The web tools: never read-only, since a fetch carries the call's data
#   off the machine (it can exfiltrate); their rules name domains. The
#   routes below spell the set out literally (a reference to a rule costs an
#   evaluation); TestWebToolLiteralsAreTheOneDefinition
#   (rego_test/tables_test.go) holds each literal to this set, and Go reads
#   it from here (tables.WebTools in rego/tables).
web := {"WebFetch"}

default _custom := {}

_custom := data.permopa.custom[call.tool]

# METADATA
# description: The host or a policy package says the call is read-only (never for WebFetch).
# scope: document
read_only if {
	_not_web
	input.read_only == true
}

read_only if {
	_not_web
	_custom.read_only == true
}

# The call names a tool, and not a web tool: a `not` alone would hold for a
# call without a tool name.
_not_web if {
	is_string(call.tool)
	not call.tool in {"WebFetch"}
}

# METADATA
# description: |
#   The tool check: a WebFetch whose host permopa cannot read as the
#   fetcher would is a safety ASK (no domain rule can be trusted with it);
#   otherwise a policy package's check wins over the host's tool_check;
#   without either, PASSTHROUGH.
# scope: document
default check := {"behavior": "PASSTHROUGH", "bypass_immune": false, "message": ""}

check := {
	"id": "uncertain_host",
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf(
		"WebFetch of %s: permopa cannot read its host as a browser's URL parser would (%s), %s",
		[json.marshal(input.tool_input.url), _uncertain_host_kinds, "so no domain rule can be trusted with it; a safety check"],
	),
} if {
	call.tool in {"WebFetch"}
	not _host_certain
} else := _normalise(_custom.check, "custom_policy") if {
	is_object(_custom.check)
} else := _normalise(input.tool_check, "host_check") if {
	is_object(input.tool_check)
}

# Behaviors are read in any case (AgentScope Java's wire form is
# lower-case: "allow", "passthrough"). A safety ASK is bypass_immune, or, in
# Java's wire form, an ASK whose decision_reason mentions safety. A check
# whose behavior is none of the four denies: a policy that cannot be
# understood must not fall through to the allow rules. id says whose check
# it is (docs/api.md, "Check ids"); a check's own "id" is not taken, since
# the ids are a closed, documented set.
_normalise(tc, id) := {
	"id": id,
	"behavior": b,
	"bypass_immune": _immune(tc),
	"message": object.get(tc, "message", ""),
} if {
	b := upper(object.get(tc, "behavior", "PASSTHROUGH"))
	b in {"ALLOW", "DENY", "ASK", "PASSTHROUGH"}
} else := {
	"id": "invalid_behavior",
	"behavior": "DENY",
	"bypass_immune": false,
	"message": sprintf(
		"the tool check for %s gave behavior %v, not allow, deny, ask or passthrough; denied to fail closed",
		[call.tool, object.get(tc, "behavior", null)],
	),
}

_immune(tc) if {
	tc.bypass_immune == true
} else if {
	contains(lower(object.get(tc, "decision_reason", "")), "safety")
} else := false

# METADATA
# description: The canonical JSON of tool_input that rule contents of custom tools match.
canonical := json.marshal(input.tool_input)

_url_pattern := `^[A-Za-z][A-Za-z0-9+.-]*://([^/?#@]*@)?([^/?#:]*)`

_host := lower(parts[2]) if parts := regex.find_all_string_submatch_n(_url_pattern, input.tool_input.url, 1)[0]

# A URL whose host _url_pattern reads as a browser's URL parser (WHATWG,
# which the hosts' fetchers follow) reads it: http or https and "//", at
# most one "user@" with no backslash, a host of ASCII letters, digits, "-" and
# "_" in non-empty labels, a numeric port, no backslash or white space before the
# query. Anything else may name another host for the fetcher (docs/rules.md,
# "Other rule forms").
_certain_url := concat("", [
	`^[Hh][Tt][Tt][Pp][Ss]?://`, # http or https
	`([^/?#\\@\s]*@)?`, # at most one user@, no backslash
	`[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*`, # ASCII labels, no trailing dot
	`(:[0-9]{0,5})?`, # a numeric port
	`(/[^?#\\\s]*)?([?#]\S*)?$`, # path, then query or fragment
])

# What makes a host uncertain, for the message.
_uncertain_host_kinds := concat(", ", [
	"another scheme, a backslash, several @, white space",
	"a percent-encoded, non-ASCII or numeric host, a trailing dot",
])

_host_certain if {
	regex.match(_certain_url, input.tool_input.url)
	not _numeric_host
}

# A host ending in a number is an IPv4 address to WHATWG, which reads
# 0x7f.1 or 2130706433 as 127.0.0.1: only the dotted-decimal form is
# certain.
_numeric_host if {
	regex.match(`(^|\.)([0-9]+|0[xX][0-9A-Fa-f]*)$`, _host)
	not regex.match(`^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$`, _host)
}

# METADATA
# description: |
#   match_index(contents, b): the index of the first rule content of
#   behavior b that matches the call, or -1. WebFetch: domain:host or
#   domain:*.host. Others: the canonical JSON, exactly or as a glob whose
#   "*" matches any run of characters: within one JSON string for allow
#   rules (an allow rule on {"env":"stag*"} does not cover more keys), across
#   anything for deny and ask rules. A WebFetch whose host permopa cannot
#   read with certainty (_host_certain) meets every domain deny and ask
#   rule, in every mode: the fetcher may go to the host a rule names.
match_index(contents, b) := min(uncertain) if {
	call.tool in {"WebFetch"}
	b in {"deny", "ask"}
	not _host_certain
	uncertain := {i | some i, c in contents; startswith(c, "domain:")}
	count(uncertain) > 0
} else := permopa.glob.first(contents, _host, _domain_glob) if {
	call.tool in {"WebFetch"}
} else := -1 if {
	call.tool in {"WebFetch"}
} else := permopa.glob.first(contents, canonical, _json_glob[b])

# Domain rules are domain:<glob> (lower-cased, "*" within one label) for
# the host as a lower-case string; other contents of WebFetch rules match
# nothing. One built-in call per rule list: the list's patterns are
# compiled and indexed once per data revision.
_domain_glob := {"prefix": "domain:", "lower": true, "delimiters": ["."]}

# Everything but "*" is literal (OPA's glob would read "{...}" as
# alternatives). The delimiter keeps an allow rule's "*" inside one JSON
# string ("\""); for deny and ask rules there is none, so "*" matches across
# anything.
_json_glob := {
	"allow": {"syntax": "stars", "delimiters": ["\""]},
	"deny": {"syntax": "stars"},
	"ask": {"syntax": "stars"},
}

# METADATA
# description: |
#   The suggested allow rule: the tool-wide rule (WebFetch: the domain).
suggestions := [{
	"tool_name": call.tool,
	"rule_content": concat("", ["domain:", _host]),
	"behavior": "ALLOW",
	"source": "suggested",
}] if {
	call.tool in {"WebFetch"}
	_host != ""
} else := [{"tool_name": call.tool, "rule_content": null, "behavior": "ALLOW", "source": "suggested"}]
