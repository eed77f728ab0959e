# METADATA
# title: mcp__db__query (Acme's database MCP server)
# description: |
#   Checks for the MCP tool mcp__db__query, whose tool_input is
#   {"database": "<name>", "sql": "<statement>"}. The default policy consults
#   this package at decision points 3 (read_only) and 4 (check) for every call
#   of the tool (docs/decision.md, custom tools):
#   - one plain SELECT (or WITH ... SELECT, EXPLAIN, SHOW) statement is
#     read-only, so it is allowed in every mode;
#   - DROP TABLE/DATABASE/SCHEMA and TRUNCATE are denied, whatever the rules;
#   - any other statement against a production database is a safety ASK
#     (bypass_immune): no allow rule can silence it;
#   - anything else passes through to the allow rules and the mode.
#   The SQL is matched with conservative patterns, not parsed: a statement
#   the patterns do not recognise as read-only is not read-only.
#   The input is typed by permopa's schema (`permopa check`,
#   docs/architecture.md#the-data-documents): it lists the built-in tools'
#   arguments, not this tool's, so its own fields are read with object.get.
# schemas:
#   - input: schema.permopa.input
package permopa.custom.mcp__db__query

_sql := object.get(input.tool_input, "sql", null)

_database := lower(object.get(input.tool_input, "database", ""))

# One statement (a trailing semicolon is allowed) that starts with a
# reading keyword and contains no writing keyword anywhere.
_read_only_start := `(?is)^\s*(select|with|explain|show)\b[^;]*;?\s*$`

_writing_word := concat("", [
	`(?i)\b(insert|update|delete|merge|upsert|replace|drop|alter|create|truncate|grant|revoke`,
	`|into|copy|call|do|lock|vacuum|set|execute)\b`,
])

_destructive := `(?i)\b(drop\s+(table|database|schema)|truncate)\b`

# METADATA
# description: The call only reads (decision point 3 allows it in every mode).
# scope: document
default read_only := false

read_only if {
	is_string(_sql)
	regex.match(_read_only_start, _sql)
	not regex.match(_writing_word, _sql)
}

# METADATA
# description: |
#   The tool check (decision point 4): DENY for destructive statements, a
#   safety ASK for other writes to production, else undefined (the default
#   policy then passes through).
# scope: document
check := {
	"behavior": "DENY",
	"bypass_immune": false,
	"message": "mcp__db__query: DROP TABLE/DATABASE/SCHEMA and TRUNCATE are not allowed from agents",
} if {
	is_string(_sql)
	regex.match(_destructive, _sql)
} else := {
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf(
		"mcp__db__query: a statement that is not read-only against production database %q needs a human",
		[_database],
	),
} if {
	not read_only
	_production
}

_production if regex.match(`(^|[-_.])(prod|production)($|[-_.])`, _database)
